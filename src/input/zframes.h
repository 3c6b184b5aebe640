/*
 * zframes.h - the zstd frames of a regular file, listed from their headers
 * and decoded on several threads at once (zpipe.h), then served in order
 * (zsrc.c). Private to the input layer.
 *
 * A file of several frames (concatenated .zst files, pzstd's output, the
 * seekable format, with skippable frames anywhere) is decoded a frame per
 * worker; one zstd stream decodes on one core only. Only files whose frames
 * all check out before decoding take this path: whole frames of at most
 * ZPIPE_FRAME_MAX decoded bytes, by their headers' content sizes or, for
 * frames written without one (pzstd's, the seekable format's), by their
 * blocks (zstd_bound), with windows within the limit. Any other file is
 * read as a stream. A frame that does not decode is an error named as the
 * stream names it, by where the frame begins; none of its bytes are served
 * (the stream serves what it decoded before it noticed).
 */
#ifndef ZFRAMES_H
#define ZFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "zpipe.h"

/* The zstd frames of regular file fd's bytes [start, end), skippable
 * frames left out, in *list (malloc'd; *n of them), read by pread: false
 * when one is not whole, decodes to more than ZPIPE_FRAME_MAX (or might,
 * by its blocks, when its header has no content size) or asks for a window
 * over window_max (the file is then read as a stream), or when out of
 * memory. */
bool zframes_scan(int fd, uint64_t start, uint64_t end, uint64_t window_max,
		  struct zframe **list, size_t *n);

/* Exactly n bytes of file fd at off, by pread: false when they are not
 * all there. */
bool zframes_peek(int fd, uint64_t off, void *buf, size_t n);

/* The length of the zstd frame at p[0..n) whose header is hsize bytes, from
 * its block headers: 0 when it is not whole in p or a block is reserved or
 * over 128 KiB. *bound gets what its blocks decode to at most, for a
 * window of window bytes (zstd_bound). */
uint64_t zframes_walk(const unsigned char *p, size_t n, size_t hsize,
		      bool checksum, uint64_t window, uint64_t *bound);

/* The frames of regular file fd from byte start to its end, if there are
 * at least two zstd frames and they check out, queued as file 0 of a new
 * pipe decoding on up to threads workers (their offsets are the fd's): the
 * pipe, or NULL (read the file as a stream). */
struct zpipe *zframes_open(int fd, uint64_t start, uint64_t window_max,
			   int threads);

/* The n frames list[0..n) (malloc'd) of regular file fd of size bytes,
 * their offsets the fd's, queued as file 0 of a new pipe decoding on up to
 * threads workers, the file mapped: the pipe, or NULL (fewer than two
 * frames, no pipe or mapping: list is freed and the file read as a
 * stream). */
struct zpipe *zframes_pipe(int fd, uint64_t size, struct zframe *list,
			   size_t n, int threads);

#endif
