/*
 * gzfeed.h - the BGZF blocks of a pipe (stdin, a FIFO), read on a thread of
 * their own and decoded in parallel, in groups, through a pipe of workers
 * (zpipe.h) as its file 0, as zfeed.h does with zstd frames. Private to the
 * input layer.
 *
 * The thread finds each block's end from the 'BC' subfield of its header
 * and what it decodes to from its ISIZE, without inflating it, and queues
 * consecutive blocks as one frame of a few MiB, its exact decoded size
 * given when the group is whole. It stops at the first thing that is not a
 * whole BGZF block decoding to at most 64 KiB: another gzip member, garbage,
 * a truncated block, the end of the stream. The stream's own decoder
 * (gzsrc.h) then goes on from exactly there, with the bytes read and not
 * queued handed back; and where a group does not decode, from where that
 * group begins, with every byte read since handed back (gzfeed_rewind), so
 * that every message and every byte served is the stream's.
 */
#ifndef GZFEED_H
#define GZFEED_H

#include <stddef.h>
#include <stdint.h>
#include "zfeed.h"

struct gzfeed;

/* Read the BGZF blocks of non-regular fd from here on, beginning with
 * had[0..n) (n <= ZSTD_DStreamInSize(), read already: raw_off bytes of the
 * operand are read); up to threads workers inflate them. NULL when had
 * begins no BGZF block by its flags (the caller reads a gzip stream then)
 * or no pipe can be had. */
struct gzfeed *gzfeed_open(int fd, const unsigned char *had, size_t n,
			   uint64_t raw_off, int threads);

/* The pipe its groups are file 0 of. */
struct zpipe *gzfeed_pipe(const struct gzfeed *f);

/* After zpipe_read returned 0 for file 0: how the blocks ended (zfeed.h);
 * f is freed with its pipe. */
void gzfeed_finish(struct gzfeed *f, struct zfeed_end *e);

/* After zpipe_read said the group at compressed byte at did not decode:
 * stop reading, and hand back in e (ZFEED_REST) every byte read from at
 * on, for the stream to decode from there (ZFEED_ERROR with ENOMEM when
 * they cannot be had); f is freed with its pipe. */
void gzfeed_rewind(struct gzfeed *f, uint64_t at, struct zfeed_end *e);

/* Stop reading at once (the operand is given up) and free f. */
void gzfeed_close(struct gzfeed *f);

#endif
