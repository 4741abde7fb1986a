# loopscope - top-level build.  `make`, `make check`, `make demo`,
# `make install PREFIX=...`.  Sources are found by folder, so a new module
# needs no edit here.

PREFIX ?= /usr/local
BUILD ?= build$(if $(SANITIZE),-san)
CC ?= cc
PKG_CONFIG ?= pkg-config

WARN := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes
CFLAGS ?= -O2 -g
ALL_CFLAGS := $(WARN) $(CFLAGS) -D_GNU_SOURCE -I. -Icommon -MMD -MP
LIBS := $(shell $(PKG_CONFIG) --libs libzstd libelf libdw 2>/dev/null) -lipt -lpthread -ldl
ALL_CFLAGS += $(shell $(PKG_CONFIG) --cflags libzstd libelf libdw capstone 2>/dev/null)
# capstone is loaded with dlopen() when the first handle is opened
# (decoder/cslib.c), not linked: its relocations cost every start of
# every process, also the ones that disassemble nothing.  The soname is
# that of the library this build's header came with.
CS_SONAME := $(shell objdump -p "$$($(PKG_CONFIG) --variable=libdir capstone 2>/dev/null)/libcapstone.so" \
	2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
ALL_CFLAGS += -DLS_CAPSTONE_SONAME='"$(or $(CS_SONAME),libcapstone.so.4)"'

# debuginfod (symbols by build-id from DEBUGINFOD_URLS): optional.  Without
# elfutils' header the build goes on, and DEBUGINFOD_URLS does nothing
# (the commands say so when it is set).  The library is loaded with
# dlopen() when DEBUGINFOD_URLS is used (decoder/debuginfod.c), not linked.
HAVE_DEBUGINFOD := $(shell printf '\043include <elfutils/debuginfod.h>\n' | \
	$(CC) -E -x c - >/dev/null 2>&1 && echo yes)
ifeq ($(HAVE_DEBUGINFOD),yes)
ALL_CFLAGS += -DLS_HAVE_DEBUGINFOD
else
$(info note: elfutils/debuginfod.h not found (Debian: libdebuginfod-dev, or 'make deps'): building without debuginfod support)
endif

ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDSAN := -fsanitize=$(SANITIZE)
endif
# `make fuzz` sets this: libFuzzer's coverage hooks in every object.
ALL_CFLAGS += $(FUZZ_COV)

LIB_SRC := $(wildcard common/*.c formats/*.c recorder/*.c decoder/*.c analysis/*.c)
CLI_SRC := $(wildcard cli/*.c)
UNIT_SRC := $(wildcard tests/unit/*.c)
TOOL_SRC := $(wildcard tests/tools/*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
LIBA := $(BUILD)/libloopscope.a
BIN := $(BUILD)/loopscope
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/%)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/tests/%)
FUZZ_OBJ := $(FUZZ_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/fuzz/replay.o

# Debian 12 packages the build, the tests and the demo need (chromium and
# its fonts: the HTML report's browser test; python3-jsonschema: the
# speedscope export's schema check; bsdutils: script(1), a terminal;
# strace: t0004 counts the execs of the run again for huge pages).
DEB_DEPS := build-essential gcc-multilib pkg-config libipt-dev libzstd-dev libcapstone-dev \
	libelf-dev libdw-dev libdebuginfod-dev valgrind linux-perf xz-utils bzip2 \
	sqlite3 zstd python3 procps debuginfod chromium fonts-dejavu-core \
	fonts-liberation python3-jsonschema bsdutils slurm-wlm munge strace
# Optional, for `make fuzz` only (`make deps-fuzz`): clang and libFuzzer.
FUZZ_DEPS := clang-14 libfuzzer-14-dev
FUZZ_CC ?= clang-14
DEB_PKGS ?= $(DEB_DEPS)

all: $(BIN) vgtool testdata

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIBA)
	$(CC) $(LDSAN) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIBA) $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDSAN) $(LDFLAGS) -o $@ $< $(LIBA) $(LIBS)

$(BUILD)/tests/%: tests/tools/%.c $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDSAN) $(LDFLAGS) -o $@ $< $(LIBA) $(LIBS)

# Fuzz entry points, linked with a replay driver so `make check` runs
# them over a corpus under the sanitizers without libFuzzer.  Compiled
# one object per source, so that each gets its own header dependencies.
$(BUILD)/tests/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(LDSAN) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBA) $(LIBS)

# libFuzzer targets: the same entry points built by clang with
# -fsanitize=fuzzer,address,undefined into build-fuzz/fuzz/ (bench/fuzz.sh
# runs them).  `make check` needs no clang.
fuzz:
	@command -v $(FUZZ_CC) >/dev/null || { echo "no $(FUZZ_CC): run 'make deps-fuzz'" >&2; exit 1; }
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=$(FUZZ_CC) \
		SANITIZE=address,undefined FUZZ_COV=-fsanitize=fuzzer-no-link fuzz-targets

fuzz-targets: $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

$(BUILD)/fuzz/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) -fsanitize=fuzzer,$(SANITIZE) $(LDFLAGS) -o $@ $< $(LIBA) $(LIBS)

include recorder/vgtool/vgtool.mk
include testdata/testdata.mk

# A profile-guided build (GCC): loopscope built with -fprofile-generate
# into PGO_BUILD, trained there by bench/pgo-train.sh (the instrumented
# binary records the hand-written programs of testdata/ and analyzes
# them as users do; none of bench/'s measured programs), then its objects
# compiled again with the counts (-fprofile-use; functions the training
# never ran optimized as usual).  The result, $(PGO_BUILD)/loopscope,
# gives the same bytes as this build (t0225) and spends 3 to 7% less
# CPU on an analysis (doc/performance.md, "A profile-guided build").
# `make install BUILD=$(PGO_BUILD)` installs it.  Not the default: an
# edited source would meet counts of its old self.
PGO_BUILD ?= build-pgo
PGO_GEN := -fprofile-generate -fprofile-update=prefer-atomic
PGO_USE := -fprofile-use -fprofile-partial-training -Wno-missing-profile
# (GCC: the compiler's own macros say so, __GNUC__ without __clang__)
IS_GCC := printf '\043if !defined(__GNUC__) || defined(__clang__)\n\043error\n\043endif\n' | \
	$(CC) -E -x c - >/dev/null 2>&1
pgo:
	@$(IS_GCC) || { echo "make pgo: $(CC) is not GCC (its profile flags differ)" >&2; exit 1; }
	@[ -n "$(PGO_BUILD)" ] && [ "$(abspath $(PGO_BUILD))" != "$(abspath $(BUILD))" ] || \
		{ echo "make pgo: PGO_BUILD must be a directory of its own, not '$(BUILD)'" >&2; exit 1; }
	rm -rf $(PGO_BUILD)
	@$(MAKE) --no-print-directory BUILD=$(PGO_BUILD) CFLAGS='$(CFLAGS) $(PGO_GEN)' \
		LDFLAGS='$(LDFLAGS) -fprofile-generate' all
	sh bench/pgo-train.sh $(PGO_BUILD)
	rm -f $(PGO_BUILD)/loopscope $(LIBA:$(BUILD)/%=$(PGO_BUILD)/%) \
		$(LIB_OBJ:$(BUILD)/%=$(PGO_BUILD)/%) $(CLI_OBJ:$(BUILD)/%=$(PGO_BUILD)/%)
	@$(MAKE) --no-print-directory BUILD=$(PGO_BUILD) CFLAGS='$(CFLAGS) $(PGO_USE)' all

check: all $(UNIT_BIN) $(TOOL_BIN) $(FUZZ_BIN)
	@BUILD=$(BUILD) TESTS='$(TESTS)' sh tests/run.sh

# Installs what is missing, builds, records an example program
# (testdata/cpibench: a cache-missing pointer walk, arithmetic) and ends
# with its loop profile: the flat top loops, the loop tree, and the HTML
# report.  Each step re-reads this Makefile, so libraries that `deps` just
# installed are found by pkg-config.
demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	$(BIN) record -o $(BUILD)/demo.lsc -- $(BUILD)/testdata/cpibench 100000 4 1000000
	$(BIN) info $(BUILD)/demo.lsc
	$(BIN) analyze -o $(BUILD)/demo.lsprof $(BUILD)/demo.lsc
	$(BIN) report --buckets=3 $(BUILD)/demo.lsprof
	$(BIN) report --tree $(BUILD)/demo.lsprof
	$(BIN) html -q -o $(BUILD)/demo.html $(BUILD)/demo.lsc
	@echo "The HTML report of this run: $(abspath $(BUILD)/demo.html) (open it in a browser)"

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/loopscope \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/loopscope
	install -m 755 cluster/loopscope-batch $(DESTDIR)$(PREFIX)/bin/loopscope-batch
	install -m 755 $(VGTOOL) $(DESTDIR)$(PREFIX)/libexec/loopscope/
	@# Valgrind finds its own files (preload libraries, suppressions)
	@# through VALGRIND_LIB, which points at our tool's directory.
	for f in $(VG_EXECDIR)/*; do \
		ln -sf $$f $(DESTDIR)$(PREFIX)/libexec/loopscope/$$(basename $$f); \
	done
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/

# Installs what is missing (as root on Debian 12), with one apt-get update.
deps:
	@missing=$$(for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

deps-fuzz:
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(FUZZ_DEPS)"

# Both at once, with a single apt-get update (CI).
deps-all:
	@$(MAKE) --no-print-directory deps DEB_PKGS="$(DEB_DEPS) $(FUZZ_DEPS)"

clean:
	rm -rf $(BUILD)

.PHONY: all check demo deps deps-fuzz deps-all fuzz fuzz-targets install clean vgtool testdata pgo
.SECONDARY:

# Header dependencies (-MMD): the library and the command, and the test
# programs (a unit or tool binary's .d sits beside it).
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_BIN:=.d) $(TOOL_BIN:=.d) $(FUZZ_OBJ:.o=.d)
