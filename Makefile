# gpustat - see README.md. `make` builds ./gpustat, `make check` runs the tests.

# Parallel by default, one job per core: `make -j1` (or any -jN) still wins.
# Only the top make: a sub-make shares its jobs (a -j of its own would
# reset the jobserver).
ifeq ($(MAKELEVEL),0)
ifeq ($(filter -j% j%,$(MAKEFLAGS)),)
NPROC := $(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
MAKEFLAGS += -j$(NPROC)
endif
endif

CC ?= cc
CFLAGS ?= -O2 -g
WARN = -std=c11 -Wall -Wextra -Wshadow -Wpointer-arith -Wstrict-prototypes \
       -Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS += -D_GNU_SOURCE -MMD -MP
LDLIBS += -lzstd -lz -lpthread -lm

# libdeflate inflates BGZF blocks 1.5 to 2.2 times as fast as zlib
# (gzframes.c): used where its header is found (libdeflate-dev); make
# DEFLATE= builds without it.
DEFLATE ?= $(shell printf '\043include <libdeflate.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo -ldeflate)
ifneq ($(DEFLATE),)
CPPFLAGS += -DGS_HAVE_LIBDEFLATE
LDLIBS += $(DEFLATE)
endif

# make install PREFIX=/usr DESTDIR=/tmp/pkg: DESTDIR is prepended to every
# path for staged installs; PREFIX is the final location.
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL ?= install
bindir = $(PREFIX)/bin
man1dir = $(PREFIX)/share/man/man1
bashcompdir = $(PREFIX)/share/bash-completion/completions
zshcompdir = $(PREFIX)/share/zsh/site-functions
fishcompdir = $(PREFIX)/share/fish/vendor_completions.d

BUILD = build
# src/ is one folder per layer and cuda/ is one more (tests/test_layers.sh
# lists them, bottom first, and fails on an include that goes up); headers
# are included by name, so every folder is on the include path.
SRCDIRS = $(sort $(dir $(wildcard src/*/*.c src/*/*.h)))
CUDA_DIRS := $(sort $(shell find cuda -type d))
INCLUDES = -Isrc $(patsubst %/,-I%,$(SRCDIRS)) $(addprefix -I,$(CUDA_DIRS))
CPPFLAGS += $(INCLUDES)
SRCS = $(wildcard src/*.c src/*/*.c)
OBJS = $(SRCS:src/%.c=$(BUILD)/%.o)
# The C objects but main's, as an archive: a program linked with it gets
# only the objects it calls (a unit test, its part of the C code).
LIBGS = $(BUILD)/libgs.a

# The CUDA backend is built wherever nvcc is found; make CUDA= leaves it out
# and make CUDA=/path/to/nvcc picks a compiler. Either is remembered in
# $(BUILD)/config.mk, so a later make, make check or make install builds the
# same configuration (make clean forgets it).
# NVCOMP (below) is remembered the same way; a value on the command line wins
# over the remembered one, and config.mk keeps whatever either was given.
CONFIG = $(BUILD)/config.mk
-include $(CONFIG)
ifneq ($(filter command line,$(origin CUDA) $(origin NVCOMP)),)
config_lines = $(foreach v,CUDA NVCOMP,$(if $(filter command line file,$(origin $(v))),'$(v) = $($(v))'))
$(shell mkdir -p $(BUILD) && { printf '%s\n' $(config_lines) | cmp -s - $(CONFIG) || \
	printf '%s\n' $(config_lines) > $(CONFIG); })
endif
CUDA ?= $(shell command -v nvcc 2>/dev/null)
# SASS for sm_80, which runs on every Ampere and Ada GPU (sm_80, 86, 87,
# 89: one major version), and for sm_90 (Hopper) from sm_90's own PTX, plus
# that PTX, which the driver compiles for anything newer (Blackwell on).
# sm_90 SASS made from compute_80 PTX was measured slower on the H100 (the
# wide f64 scan 6%, CUB's histogram 2.2x: CUB tunes by the PTX's arch), so
# the device compiler runs twice; the passes run at once (-t).
# cudart is linked statically so the binary needs only the driver.
CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 \
	     -gencode arch=compute_90,code=sm_90 \
	     -gencode arch=compute_90,code=compute_90 -t 3
# -compress-all: fatbinary compresses every image with zstd, the SASS too,
# not the PTX only: the 18 objects' fatbins, 66 MB, become 15 MB (gpustat
# 71 MB to about 20), for 0.4 s of CPU at most a file. --compress-mode=size
# makes scan/dispatch_scan_half.o's 3.1 MB 1.7 MB, for 21 s of CPU.
# Compressed fatbins from CUDA 13 need driver 580 or later (rapids-cmake's
# notes), which CUDA 13 code needs anyway.
NVCCFLAGS ?= -O3 -std=c++17 $(CUDA_ARCH) -Xfatbin=-compress-all -Xcompiler -Wall,-Wextra
ifneq ($(CUDA),)
CUDA_SRCS := $(sort $(shell find cuda -name '*.cu'))
CUDA_OBJS = $(CUDA_SRCS:cuda/%.cu=$(BUILD)/cuda/%.o)
CPPFLAGS += -DGS_HAVE_CUDA
LINK = $(CUDA) -cudart static $(addprefix -Xcompiler ,$(CFLAGS))
else
LINK = $(CC) $(CFLAGS)
endif

# nvCOMP, NVIDIA's GPU decoders (its batched zstd decoder), is looked for only
# with CUDA, for bench/nvcomp_probe (gpustat decodes on the CPU: the probe
# measured why, bench/RESULTS.md): NVCOMP=DIR names a folder with
# include/nvcomp/zstd.h (the pip wheel nvidia-libnvcomp-cu13's
# nvidia/libnvcomp, or a system prefix), else /usr/include/nvcomp or the
# wheel that python3 imports is used; NVCOMP= leaves it out. Only its
# headers are needed to build (GS_HAVE_NVCOMP): libnvcomp.so.6 is opened at
# run time (bench/nvcomp_lib.c), first in the folder found here.
ifneq ($(CUDA),)
ifeq ($(origin NVCOMP),undefined)
NVCOMP := $(shell if [ -f /usr/include/nvcomp/zstd.h ]; then echo /usr; else \
	python3 -c 'import os, nvidia.libnvcomp as m; print(os.path.dirname(m.__file__))' \
	2>/dev/null; fi)
endif
ifneq ($(NVCOMP),)
ifneq ($(wildcard $(NVCOMP)/include/nvcomp/zstd.h),)
HAVE_NVCOMP = 1
NVCOMP_LIBDIR := $(abspath $(dir $(firstword $(wildcard $(NVCOMP)/lib64/libnvcomp.so* \
	$(NVCOMP)/lib/libnvcomp.so* $(NVCOMP)/lib/*-linux-gnu/libnvcomp.so*))))
NVCOMP_FLAGS = -DGS_HAVE_NVCOMP -DGS_NVCOMP_LIBDIR='"$(NVCOMP_LIBDIR)"' \
	$(if $(filter /usr,$(abspath $(NVCOMP))),,-I$(abspath $(NVCOMP))/include)
else
$(warning NVCOMP=$(NVCOMP) has no include/nvcomp/zstd.h: building without nvCOMP)
endif
endif
endif

# Objects depend on the flags they were compiled with, as git's GIT-CFLAGS
# does: switching CUDA= on or off, or another CFLAGS, recompiles what they
# change (the C objects see GS_HAVE_CUDA) and nothing else. Each stamp is
# rewritten only when its flags differ.
stamp = $(shell mkdir -p $(BUILD) && { echo '$(2)' | cmp -s - $(1) || \
	echo '$(2)' > $(1); })
$(call stamp,$(BUILD)/cflags,$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS))
$(call stamp,$(BUILD)/nvccflags,$(CUDA) $(NVCCFLAGS) $(INCLUDES))

UNIT_SRCS = $(wildcard tests/unit_*.c)
UNIT_BINS = $(UNIT_SRCS:tests/%.c=$(BUILD)/tests/%)

all: gpustat

# The libraries we need: install their headers where they are missing (a
# fresh Debian/Ubuntu machine as root), else say what to install.
$(BUILD)/.deps: | $(BUILD)
	@for dep in zstd.h:libzstd-dev:zstd-devel zlib.h:zlib1g-dev:zlib-devel; do \
		h=$${dep%%:*}; pkg=$${dep#*:}; rpm=$${pkg#*:}; pkg=$${pkg%%:*}; \
		printf '#include <%s>\n' $$h | $(CC) -E -x c - >/dev/null 2>&1 && continue; \
		if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
			echo "installing $$pkg"; \
			(apt-get install -y -qq $$pkg >/dev/null 2>&1 || \
			 (apt-get update -qq && apt-get install -y -qq $$pkg)) >/dev/null; \
		else \
			echo "gpustat needs the $$h header: install $$pkg (or $$rpm)" >&2; exit 1; \
		fi; \
	done
	@touch $@

# ./gpustat, and $(BUILD)/gpustat for a build elsewhere (make asan).
gpustat $(BUILD)/gpustat: $(OBJS) $(CUDA_OBJS)
	$(LINK) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# nvcc writes the headers each object includes to its .d, as cc does. The
# CUDA files are the long part of a build: the first one compiled says so
# (CUDA_CPU_MINUTES: one core's minutes for all of them, measured: 26 on a
# busy 2-core machine, the five scan/dispatch_scan_* files most of them).
CUDA_CPU_MINUTES = 26
NCORES := $(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
$(shell rm -rf $(BUILD)/.said-nvcc)
$(BUILD)/cuda/%.o: cuda/%.cu $(BUILD)/nvccflags | $(BUILD)/.deps
	@mkdir -p $(dir $@)
	@! mkdir $(BUILD)/.said-nvcc 2>/dev/null || \
		echo "nvcc: compiling the CUDA kernels: $(words $(CUDA_SRCS)) files, about" \
		"$$(( ($(CUDA_CPU_MINUTES) + $(NCORES) - 1) / $(NCORES) )) minutes for all on $(NCORES) cores (make CUDA= builds without them)"
	$(CUDA) $(NVCCFLAGS) -MMD -MP $(INCLUDES) -c -o $@ $<

$(BUILD)/%.o: src/%.c $(BUILD)/cflags | $(BUILD)/.deps
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c -o $@ $<

$(LIBGS): $(filter-out $(BUILD)/main.o,$(OBJS))
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD):
	@mkdir -p $(BUILD)

# The unit tests and the CPU kernel bench: C programs over the C objects.
# None calls the CUDA backend, so they link with cc and no CUDA object
# (with them, each was 70 MB); one that does would add $(CUDA_OBJS) and
# link with $(LINK).
$(BUILD)/tests/%: tests/%.c $(LIBGS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBGS) $(LDLIBS)
# unit_perfile links perfile.c, whose writer reaches the command line's
# code and through it the backends: with CUDA, their objects too.
$(BUILD)/tests/unit_perfile.o: tests/unit_perfile.c $(BUILD)/cflags
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c -o $@ $<
$(BUILD)/tests/unit_perfile: $(BUILD)/tests/unit_perfile.o $(LIBGS) $(CUDA_OBJS)
	$(LINK) $(LDFLAGS) -o $@ $< $(LIBGS) $(CUDA_OBJS) $(LDLIBS)
# unit_xprod's vectors: products rounded by Python's fractions (a few
# seconds), made here rather than kept as 8,500 lines of numbers.
$(BUILD)/tests/xprod_vectors.h: tests/gen_xprod_vectors.py
	@mkdir -p $(@D)
	python3 tests/gen_xprod_vectors.py > $@.tmp && mv $@.tmp $@
$(BUILD)/tests/unit_xprod: $(BUILD)/tests/xprod_vectors.h
$(BUILD)/tests/unit_xprod: CPPFLAGS += -I$(BUILD)/tests
$(BUILD)/bench_kernels: bench/bench_kernels.c $(LIBGS)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBGS) $(LDLIBS)

unit: $(UNIT_BINS)

# The GPU kernel bench (needs nvcc).
$(BUILD)/bench_gpu: bench/bench_gpu.cu $(CUDA_OBJS) $(LIBGS)
	$(CUDA) $(NVCCFLAGS) $(INCLUDES) -o $@ $< $(CUDA_OBJS) $(LIBGS) -cudart static $(LDLIBS)

bench-gpu: $(BUILD)/bench_gpu $(BUILD)/bench_kernels

# nvCOMP's zstd decoder measured on its own (bench/bench_nvcomp.sh): needs
# nvcc and NVCOMP; it opens libnvcomp through its loader, bench/nvcomp_lib.c.
$(BUILD)/bench/nvcomp_lib.o: bench/nvcomp_lib.c bench/nvcomp_lib.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(NVCOMP_FLAGS) $(CFLAGS) $(WARN) -c -o $@ $<
$(BUILD)/nvcomp_probe: bench/nvcomp_probe.cu $(BUILD)/bench/nvcomp_lib.o $(BUILD)/nvccflags
	@test -n '$(HAVE_NVCOMP)' || { echo "nvcomp_probe needs nvcc and nvCOMP (make NVCOMP=DIR)" >&2; exit 1; }
	$(CUDA) $(NVCCFLAGS) $(filter -I% -D%,$(CPPFLAGS)) $(NVCOMP_FLAGS) -Ibench \
		-o $@ $< $(BUILD)/bench/nvcomp_lib.o -cudart static $(LDLIBS) -ldl
# Its deflate and gzip decoders (bench/bench_nvcomp_gz.sh), through the
# same loader.
$(BUILD)/nvcomp_gz_probe: bench/nvcomp_gz_probe.cu bench/nvcomp_gz_check.h bench/nvcomp_gz_fuzz.h \
		bench/gzwalk.h $(BUILD)/bench/nvcomp_lib.o $(BUILD)/nvccflags
	@test -n '$(HAVE_NVCOMP)' || { echo "nvcomp_gz_probe needs nvcc and nvCOMP (make NVCOMP=DIR)" >&2; exit 1; }
	$(CUDA) $(NVCCFLAGS) $(filter -I% -D%,$(CPPFLAGS)) $(NVCOMP_FLAGS) -Ibench \
		-o $@ $< $(BUILD)/bench/nvcomp_lib.o -cudart static $(LDLIBS) -ldl

# CUDA tells tests/run.sh which configuration was built (empty: CPU only);
# it builds the unit binaries (UNIT_MAKE) while the first groups run. (Named
# through a variable: a recipe line naming $$(MAKE) runs even under make -n.)
unit_make = $(MAKE) --no-print-directory unit
check: gpustat
	@CUDA='$(CUDA)' UNIT_MAKE='$(unit_make)' sh tests/run.sh

# The main job on the bundled samples: a histogram of a PGM image, and the
# statistics and sum of 100000 zstd-compressed float32 samples.
demo: gpustat
	./gpustat hist --nonzero fixtures/demo/photo.pgm | head -n 5
	./gpustat stats fixtures/demo/samples.f32.zst
	./gpustat hist -t f32 --bins 8 --range 0:20 fixtures/demo/samples.f32.zst

install: gpustat
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(man1dir) \
		$(DESTDIR)$(bashcompdir) $(DESTDIR)$(zshcompdir) $(DESTDIR)$(fishcompdir)
	$(INSTALL) -m 755 gpustat $(DESTDIR)$(bindir)/gpustat
	$(INSTALL) -m 644 man/gpustat.1 $(DESTDIR)$(man1dir)/gpustat.1
	$(INSTALL) -m 644 completions/gpustat.bash $(DESTDIR)$(bashcompdir)/gpustat
	$(INSTALL) -m 644 completions/_gpustat $(DESTDIR)$(zshcompdir)/_gpustat
	$(INSTALL) -m 644 completions/gpustat.fish $(DESTDIR)$(fishcompdir)/gpustat.fish

uninstall:
	rm -f $(DESTDIR)$(bindir)/gpustat $(DESTDIR)$(man1dir)/gpustat.1 \
		$(DESTDIR)$(bashcompdir)/gpustat $(DESTDIR)$(zshcompdir)/_gpustat \
		$(DESTDIR)$(fishcompdir)/gpustat.fish

.PHONY: install uninstall

# make asan: everything (CPU only) built with AddressSanitizer and UBSan into
# build-asan/ (binary build-asan/gpustat), then the whole suite run against it.
# A sanitizer finding exits 86, a status no test expects, so it always fails
# the test that hit it; allocator_may_return_null keeps a --chunk-size beyond
# memory an ordinary allocation failure, as it is without ASan.
ASAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	     -fno-omit-frame-pointer
asan:
	+$(MAKE) BUILD=build-asan CUDA= CFLAGS='-O1 -g $(ASAN_FLAGS)' \
		LDFLAGS='$(ASAN_FLAGS)' build-asan/gpustat unit
	@BUILD=build-asan GPUSTAT=build-asan/gpustat GPUSTAT_ASAN=1 \
		ASAN_OPTIONS=exitcode=86:allocator_may_return_null=1 \
		UBSAN_OPTIONS=exitcode=86:print_stacktrace=1 sh tests/run.sh

clean-asan:
	rm -rf build-asan

clean: clean-asan
	rm -rf $(BUILD) gpustat

.PHONY: asan clean-asan

.PHONY: all unit check demo clean bench-gpu
include fuzz/fuzz.mk
-include $(OBJS:.o=.d) $(CUDA_OBJS:.o=.d) $(UNIT_BINS:=.d)
