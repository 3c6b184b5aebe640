/*
 * zframes.h - the independent zstd frames of a regular file decoded on
 * several threads at once and served in order (zsrc.c). Private to the
 * input layer.
 *
 * A file of several frames (concatenated .zst files, pzstd's output, the
 * seekable format, with skippable frames anywhere) is decoded a batch of
 * frames at a time, one frame per thread, then served; one zstd stream
 * decodes on one core only. (The next batch does not yet decode while one
 * is served.) Only
 * files whose frames all check out before decoding (whole frames, content
 * sizes in their headers, windows within the limit) take this path; any
 * other file is read as a stream. A frame that does not decode is an error
 * named as the stream names it, by where the frame begins; none of its bytes
 * are served (the stream serves what it decoded before it noticed).
 */
#ifndef ZFRAMES_H
#define ZFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct zframes;

/* One zstd frame of a mapped file. */
struct zframe {
	uint64_t off, csize, dsize;	/* where, compressed and decoded bytes */
};

/* The zstd frames of map[start..len), skippable frames left out, in *list
 * (malloc'd; *n of them): false when one is not whole, has no content size
 * or asks for a window over window_max (the file is then read as a
 * stream), or when out of memory. */
bool zframes_scan(const unsigned char *map, size_t len, uint64_t start,
		  uint64_t window_max, struct zframe **list, size_t *n);

/* The frames of regular file fd from byte start to its end, if there are
 * at least two zstd frames and each asks for a window of at most
 * window_max, decoded threads at a time; else NULL (read it as a stream).
 * One file at a time: NULL while another is open. */
struct zframes *zframes_open(int fd, uint64_t start, uint64_t window_max,
			     int threads);

/* Up to n decoded bytes, in order: the count, 0 at the end of the file,
 * or -1 when a frame did not decode: *at is where it begins and *code
 * zstd's error (ZSTD_error_memory_allocation: read the file as a stream
 * from *at on instead). */
ssize_t zframes_read(struct zframes *f, void *buf, size_t n, uint64_t *at,
		     size_t *code);

void zframes_close(struct zframes *f);

#endif
