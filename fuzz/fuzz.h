/*
 * fuzz.h - what the libFuzzer harnesses share (fuzz_io.c): operands written
 * into memfds and opened by name (so the input layer opens them itself, as
 * it opens real files), stdin as a pipe, read sizes drawn from the fuzz
 * bytes, and a reader that collects a whole stream with its warnings.
 *
 * Harnesses check invariants and abort() when one breaks, so libFuzzer
 * records the input as a crash like any sanitizer report.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "input.h"

#define FZ_MAX_OPS 4
/* Decoded bytes kept per read of a stream: a zstd frame of a few bytes may
 * expand to gigabytes, and the fuzzer should move on long before. */
#define FZ_CAP ((size_t)1 << 22)

/* abort() with a message when cond is false; never compiled out. */
#define FZ_CHECK(cond, ...) \
	do { if (!(cond)) fz_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)

void fz_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 3, 4)));

/* Write n bytes as operand slot i (0 <= i < FZ_MAX_OPS) and return a path
 * that opens them as a regular file; zst: the path ends in ".zst". */
const char *fz_file(int i, const void *p, size_t n, bool zst);

/* Make stdin a pipe holding the n bytes, its writer closed. Returns 0, or
 * -1 when they do not fit in the pipe. */
int fz_stdin(const void *p, size_t n);

/* Read sizes: mode picks a range (1..16, 1..4096, 1..64K, or "all" once). */
struct fz_sizes {
	uint64_t s;
	unsigned mode;
};
size_t fz_next_size(struct fz_sizes *z);

/* A whole stream as read through input_read. */
struct fz_run {
	uint8_t *out;		/* FZ_CAP bytes */
	size_t len;
	bool ended;		/* input_read returned 0 (not cut at FZ_CAP) */
	int nwarn;
	struct gs_err warn[8];
};

struct input_opts fz_opts(struct fz_run *r, bool raw);
void fz_run_init(struct fz_run *r);	/* buffer made once, kept */
/* Read in to its end (or FZ_CAP) with sizes from z; stall_ms as input_read. */
void fz_read(struct input *in, struct fz_run *r, struct fz_sizes *z,
	     int stall_ms);
/* Whether two runs read the same bytes (with bytes) and warned alike (with
 * warns: what, not where, as a pipe is "stdin" where a file has a path). */
bool fz_same(const struct fz_run *a, const struct fz_run *b, bool bytes,
	     bool warns);
/* Whether one of r's warnings contains what. */
bool fz_warned(const struct fz_run *r, const char *what);

#endif
