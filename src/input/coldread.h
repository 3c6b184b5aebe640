/*
 * coldread.h - reading a regular file whose pages are not in memory (a
 * cold file: on disk, not in the page cache). Private to the input layer
 * (parread.c's copies and zsrc.c's mapped views ask it).
 *
 * A page-cached file is read fastest by many threads at once (parread.h),
 * or mapped in place; a cold one by keeping the disk's queue full. Parallel
 * preads of 2 MiB pieces from one file description defeat the kernel's
 * readahead (each thread's read looks random to it, so each piece is read
 * as a few synchronous windows of the readahead size), and faulting mapped
 * pages reads one readahead window per fault. So each read first asks
 * whether its range is in memory (coldread_plan: a sample of its pages,
 * mincore(2)), and only where it is not does it change what it does: the
 * default queues the range and the next one (posix_fadvise WILLNEED, in
 * steps, since the kernel reads at most its readahead size per call) and
 * then reads as before. A page-cached read pays the sample only.
 *
 * GPUSTAT_COLD_READ=HOW[:MiB] picks what a cold read does, for measuring
 * (bench/bench_cold.sh) and tests:
 *   auto    the default: ahead
 *   ahead   WILLNEED on the range and MiB (default: one read's length) after
 *   seq     one read(2) from the reader thread (the kernel's readahead, as
 *           cat(1)); views: MADV_SEQUENTIAL on the mapping
 *   share   each thread reads one contiguous share of the range, no advice
 *   direct  O_DIRECT pieces into the (page-aligned) buffer, no view
 *   copy    ahead, but copied by parread instead of viewed in place
 *   off     no sample, no advice: as before this module
 * Every one reads the same bytes; only where they come from and when
 * differs.
 */
#ifndef COLDREAD_H
#define COLDREAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define COLDREAD_ENV "GPUSTAT_COLD_READ"

enum cold_how {
	COLD_CACHED,		/* in memory (or not asked): read as always */
	COLD_AHEAD,		/* queue it and what follows, then read */
	COLD_SEQ,		/* one read(2), the kernel's readahead */
	COLD_SHARE,		/* one contiguous share per thread */
	COLD_DIRECT,		/* O_DIRECT */
	COLD_COPY		/* AHEAD, never in place */
};

/* What a read of [off, off + n) of regular file fd should do: COLD_CACHED
 * where every sampled page is in memory (or GPUSTAT_COLD_READ=off), the
 * strategy otherwise. Counts n into the bytes input_cold_bytes reports,
 * except for a view (view: asked by zsrc_view) that it turns into a copy
 * (COLD_DIRECT, COLD_COPY), which the copy's read counts. */
enum cold_how coldread_plan(int fd, off_t off, size_t n, bool view);

/* Whether most of the regular file fd's pages are on disk, not in memory
 * (a sample of COLD_FILE_SAMPLES of them, mincore(2)); false where it
 * cannot be told or GPUSTAT_COLD_READ=off. */
bool coldread_file_cold(int fd);

/* Queue [off, off + n) and the window after it for reading (WILLNEED),
 * skipping what an earlier call on the same file queued. */
void coldread_ahead(int fd, off_t off, size_t n);

/* A name for -v: "ahead", "seq", ... ("off" where the sample is off). */
const char *coldread_name(void);

/* An O_DIRECT descriptor of the file fd reads (opened once per file, kept
 * until the next file), or -1 where the file system refuses it. */
int coldread_direct_fd(int fd);

/* The alignment O_DIRECT needs of offsets, lengths and buffers. */
#define COLDREAD_ALIGN ((size_t)4096)

#endif
