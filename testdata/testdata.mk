# testdata programs: built with -O1 -g -fno-inline; each documents its
# hand-counted behaviour in its source.
TD_SRC := $(wildcard testdata/*.c)
TD_BIN := $(TD_SRC:testdata/%.c=$(BUILD)/testdata/%)
TD_LIB_SRC := $(wildcard testdata/lib/*.c)
TD_LIBS := $(TD_LIB_SRC:testdata/lib/%.c=$(BUILD)/testdata/lib%.so)
TD_CFLAGS := -O1 -g -fno-inline -fno-omit-frame-pointer

$(BUILD)/testdata/lib%.so: testdata/lib/%.c
	@mkdir -p $(dir $@)
	$(CC) $(TD_CFLAGS) -shared -fPIC -o $@ $<

$(BUILD)/testdata/%: testdata/%.c
	@mkdir -p $(dir $@)
	$(CC) $(TD_CFLAGS) -o $@ $< -lpthread -ldl

# pltleaf calls libplk.so through the PLT: linked to it, found next to it
# at run time, its symbols bound at load (no resolver in the calls).
$(BUILD)/testdata/pltleaf $(BUILD)/testdata/pltnest: $(BUILD)/testdata/%: testdata/%.c \
		$(BUILD)/testdata/libplk.so
	@mkdir -p $(dir $@)
	$(CC) $(TD_CFLAGS) -o $@ $< -L$(BUILD)/testdata -lplk \
		-Wl,-rpath,'$$ORIGIN' -Wl,-z,now

testdata: $(TD_BIN) $(TD_LIBS)

# The gcov cross-check's program: built with --coverage; its counters go
# where GCOV_PREFIX says when it runs (the tests put them in their cwd).
TD_COV_SRC := $(wildcard testdata/cov/*.c)
TD_COV_BIN := $(TD_COV_SRC:testdata/cov/%.c=$(BUILD)/testdata/cov/%)

$(BUILD)/testdata/cov/%: testdata/cov/%.c
	@mkdir -p $(dir $@)
	cd $(dir $@) && $(CC) $(TD_CFLAGS) --coverage -o $(notdir $@) $(abspath $<)

testdata: $(TD_COV_BIN)

# Loop labels (t0630): the same program at -O2, where gcc rotates loops,
# and at -O0.
TD_O2_SRC := $(wildcard testdata/o2/*.c)
TD_O2_BIN := $(TD_O2_SRC:testdata/o2/%.c=$(BUILD)/testdata/o2/%) \
	$(TD_O2_SRC:testdata/o2/%.c=$(BUILD)/testdata/o2/%_O0)

$(BUILD)/testdata/o2/%: testdata/o2/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<

$(BUILD)/testdata/o2/%_O0: testdata/o2/%.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -o $@ $<

testdata: $(TD_O2_BIN)

# Dependence kernels (t0900): -O0, so scalars live in memory as in
# Prospector's examples.
TD_DEPS_SRC := $(wildcard testdata/deps/*.c)
TD_DEPS_BIN := $(TD_DEPS_SRC:testdata/deps/%.c=$(BUILD)/testdata/deps/%)

$(BUILD)/testdata/deps/%: testdata/deps/%.c
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -o $@ $<

testdata: $(TD_DEPS_BIN)

# 32-bit code (t0540): static, no libc, so that the whole program is its
# own code (gcc -m32 needs Debian's gcc-multilib, in the Makefile's
# DEB_DEPS).
TD_M32_SRC := $(wildcard testdata/m32/*.c)
TD_M32_BIN := $(TD_M32_SRC:testdata/m32/%.c=$(BUILD)/testdata/m32/%)

$(BUILD)/testdata/m32/%: testdata/m32/%.c
	@mkdir -p $(dir $@)
	$(CC) -m32 $(TD_CFLAGS) -static -nostdlib -fno-pie -no-pie \
		-fno-asynchronous-unwind-tables -o $@ $<

testdata: $(TD_M32_BIN)

# The fuzz targets' templates (bench/fuzz.sh, t0301, t0312): static, no
# libc, at -O0 (scalars in memory, for the dependences), so that a
# recording holds their own code alone.
TD_STATIC_SRC := $(wildcard testdata/static/*.c)
TD_STATIC_BIN := $(TD_STATIC_SRC:testdata/static/%.c=$(BUILD)/testdata/static/%)

$(BUILD)/testdata/static/%: testdata/static/%.c testdata/static/start.h
	@mkdir -p $(dir $@)
	$(CC) -O0 -g -fno-omit-frame-pointer -static -nostdlib -fno-pie -no-pie \
		-fno-stack-protector -o $@ $<

testdata: $(TD_STATIC_BIN)
