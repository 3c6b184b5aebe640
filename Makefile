# gpustat - see README.md. `make` builds ./gpustat, `make check` runs the tests.
CC ?= cc
CFLAGS ?= -O2 -g
WARN = -std=c11 -Wall -Wextra -Wshadow -Wpointer-arith -Wstrict-prototypes \
       -Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS += -D_GNU_SOURCE -MMD -MP
LDLIBS += -lzstd -lpthread -lm

BUILD = build
SRCS = $(wildcard src/*.c)
OBJS = $(SRCS:src/%.c=$(BUILD)/%.o)
LIBOBJS = $(filter-out $(BUILD)/main.o,$(OBJS))
UNIT_SRCS = $(wildcard tests/unit_*.c)
UNIT_BINS = $(UNIT_SRCS:tests/%.c=$(BUILD)/tests/%)

all: gpustat

gpustat: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: src/%.c | $(BUILD)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(LIBOBJS) | $(BUILD)
	@mkdir -p $(BUILD)/tests
	$(CC) $(CPPFLAGS) -Isrc $(WARN) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD):
	@mkdir -p $(BUILD)

unit: $(UNIT_BINS)

check: gpustat unit
	@sh tests/run.sh

clean:
	rm -rf $(BUILD) gpustat

.PHONY: all unit check clean
-include $(OBJS:.o=.d)
