/*
 * zfeed.h - the zstd frames of a pipe (stdin, a FIFO), read on a thread of
 * their own and decoded frame-parallel through a pipe of workers (zpipe.h)
 * as its file 0. Private to the input layer.
 *
 * The thread finds each frame's end from its header and block headers,
 * without decoding, and skips skippable frames. A frame without a content
 * size is bounded by its blocks (zstd_bound), as it is read. It stops at
 * the first frame it cannot take: one over ZPIPE_FRAME_MAX, one of no
 * content size over ZFEED_UNSIZED_MAX unless pzstd's skippable frame before
 * it gave its compressed size (one frame of a whole stream, written by zstd
 * from a pipe, is not read far before the stream takes it), one whose
 * window is over the limit, anything that is not a whole well-formed
 * frame (a truncated or corrupt one), the end of the stream, a skippable
 * frame over its read-ahead. The stream's own decoder then goes on from
 * exactly there, with the bytes read of that frame handed back, so that
 * every message and every byte served is the stream's.
 */
#ifndef ZFEED_H
#define ZFEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct zfeed;

enum { ZFEED_EOF, ZFEED_REST, ZFEED_ERROR };

/* How the frames ended, once zpipe_read said file 0 did. */
struct zfeed_end {
	int how;		/* ZFEED_EOF: the end of the stream, between
				 * frames; ZFEED_REST: go on as a stream with
				 * buf; ZFEED_ERROR: a read error */
	unsigned char *buf;	/* REST: malloc'd, now the caller's: len bytes
				 * read and not yet decoded, cap >= len +
				 * ZSTD_DStreamInSize() */
	size_t len, cap;
	uint64_t raw_off;	/* bytes of the operand read in all */
	bool eof;		/* the fd said end of file */
	int err;		/* ERROR: errno, at raw_off */
};

/* Read the frames of non-regular fd from here on, beginning with had[0..n)
 * (n <= ZSTD_DStreamInSize(), read already: raw_off bytes of the operand
 * are read); up to threads workers decode them. NULL when no pipe can be
 * had (the caller reads it as a stream). */
struct zfeed *zfeed_open(int fd, const unsigned char *had, size_t n,
			 uint64_t raw_off, uint64_t window_max, int threads);

/* The pipe its frames are file 0 of. */
struct zpipe *zfeed_pipe(const struct zfeed *f);

/* After zpipe_read returned 0 for file 0: how the frames ended; f is freed
 * with its pipe. */
void zfeed_finish(struct zfeed *f, struct zfeed_end *e);

/* Stop reading at once (the operand is given up) and free f. */
void zfeed_close(struct zfeed *f);

#endif
