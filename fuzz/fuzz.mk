# Coverage-guided fuzzing with libFuzzer (clang), ASan and UBSan; included by
# the Makefile. Harnesses are fuzz/fuzz_*.c; seeds are fuzz/corpus/NAME/,
# crashes found (now fixed) are fuzz/regress/NAME/.
#
#   make fuzz                 each harness for FUZZ_TIME seconds, one at a time
#   make fuzz FUZZ=input      one harness
#   make fuzz-smoke           seeds and crash fixtures once through each
#                             harness (tests/test_fuzz.sh, in make check)
#
# New corpus entries and crash files go to build/fuzz/; copy the interesting
# ones into fuzz/corpus/ or fuzz/regress/ to keep them.
FUZZ_CC ?= clang
FUZZ_TIME ?= 600
FUZZ_NAMES = $(patsubst fuzz/fuzz_%.c,%,$(filter-out fuzz/fuzz_io.c,$(wildcard fuzz/fuzz_*.c)))
FUZZ ?= $(FUZZ_NAMES)
FUZZ_DIR = $(BUILD)/fuzz
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -Wall \
	      -Wextra -Wno-unused-parameter -Wno-bitwise-instead-of-logical \
	      $(FUZZ_SAN) -fsanitize=fuzzer-no-link
# libFuzzer options: a zstd frame may ask for the 2 GiB window that
# input.c allows, which is not a leak of memory but one large malloc.
FUZZ_RUN_OPTS = -rss_limit_mb=2048 -malloc_limit_mb=4096 -print_final_stats=1
FUZZ_BINS = $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)

# Every library object, so the harnesses link whatever the input layer comes
# to depend on.
FUZZ_OBJS = $(patsubst src/%.c,$(FUZZ_DIR)/obj/%.o,$(filter-out src/main.c,$(SRCS)))

$(FUZZ_DIR)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(INCLUDES) -MMD -MP -c -o $@ $<

$(FUZZ_DIR)/%.o: fuzz/%.c fuzz/fuzz.h
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(INCLUDES) -MMD -MP -c -o $@ $<

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/fuzz_%.o $(FUZZ_DIR)/fuzz_io.o $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ -lzstd -lz -lpthread -lm

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@st=0; for n in $(FUZZ); do \
		mkdir -p $(FUZZ_DIR)/corpus/$$n fuzz/regress/$$n; \
		dict=; [ -f fuzz/$$n.dict ] && dict=-dict=fuzz/$$n.dict; \
		echo "== fuzz_$$n for $(FUZZ_TIME) s"; \
		nice -n 10 $(FUZZ_DIR)/fuzz_$$n $(FUZZ_RUN_OPTS) $$dict \
			-max_total_time=$(FUZZ_TIME) \
			-artifact_prefix=$(FUZZ_DIR)/crash-$$n- \
			$(FUZZ_DIR)/corpus/$$n fuzz/corpus/$$n fuzz/regress/$$n \
			|| st=1; \
	done; exit $$st

fuzz-smoke: fuzz-build
	@sh tests/test_fuzz.sh

.PHONY: fuzz fuzz-build fuzz-smoke
.SECONDARY: $(FUZZ_OBJS) $(FUZZ_BINS:%=%.o) $(FUZZ_DIR)/fuzz_io.o
-include $(wildcard $(FUZZ_DIR)/*.d $(FUZZ_DIR)/obj/*.d $(FUZZ_DIR)/obj/*/*.d)
