# The Valgrind tool "loopscope" (recorder/vgtool/), built out of tree against
# Debian's Valgrind tool libraries.  It runs with VALGRIND_LIB pointing at
# $(VGLIB), a directory holding the tool and links to Valgrind's own files.
VG_LIBDIR ?= /usr/lib/x86_64-linux-gnu/valgrind
VG_EXECDIR ?= /usr/libexec/valgrind
VG_INC ?= /usr/include/valgrind
VGLIB := $(BUILD)/vglib
VGTOOL := $(VGLIB)/loopscope-amd64-linux
VGTOOL_SRC := $(wildcard recorder/vgtool/*.c)
VGTOOL_OBJ := $(VGTOOL_SRC:%.c=$(BUILD)/vg/%.o)
VG_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wno-unused-parameter \
	-fno-strict-aliasing -fno-builtin -fno-stack-protector -fno-pie \
	-fno-asynchronous-unwind-tables -m64 -I$(VG_INC) -Irecorder \
	-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1
VG_LDFLAGS := -static -nodefaultlibs -nostartfiles -u _start -no-pie \
	-Wl,--build-id=none -Wl,-Ttext-segment=0x58000000 -m64
VG_LIBS := $(VG_LIBDIR)/libcoregrind-amd64-linux.a $(VG_LIBDIR)/libvex-amd64-linux.a \
	$(VG_LIBDIR)/libgcc-sup-amd64-linux.a

$(BUILD)/vg/%.o: %.c recorder/lsc_proto.h $(wildcard recorder/vgtool/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(VG_CFLAGS) -c $< -o $@

$(VGTOOL): $(VGTOOL_OBJ)
	@mkdir -p $(VGLIB)
	$(CC) $(VG_LDFLAGS) -o $@ $(VGTOOL_OBJ) $(VG_LIBS) -lgcc
	@for f in $(VG_EXECDIR)/*; do \
		b=$$(basename $$f); \
		[ -e $(VGLIB)/$$b ] || ln -s $$f $(VGLIB)/$$b; \
	done

vgtool: $(VGTOOL)
