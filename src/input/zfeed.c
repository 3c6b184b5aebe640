/*
 * zfeed.c - see zfeed.h.
 *
 * RFC 8878 is all it takes to find a frame's end: a frame header, blocks
 * (a 3-byte header each: last flag, type, size) and an optional 4-byte
 * checksum. Headers are read through a read-ahead buffer; a block's body
 * of 64 KiB or more is read straight into the frame's buffer in the pipe
 * with reads of exactly its length, so no byte after the frame is read
 * there. The reads are feedio.h's: zfeed_close can stop the thread while
 * the writer is silent.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "feedio.h"
#include "zfeed.h"
#include "zframes.h"
#include "zpipe.h"
#include "zsrc.h"

#define ZFEED_DIRECT ((size_t)64 << 10)	/* bodies read straight in from here */
#define ZFEED_BLOCK_MAX ((size_t)128 << 10)	/* RFC 8878: Block_Maximum_Size */
/* Decoded bytes a frame of no content size may bound to, unless pzstd's
 * skippable frame announced it: pzstd's frames are 4 << windowLog, 8 MiB at
 * its default level, and at most ZPIPE_FRAME_MAX (windowLog 26) are taken. */
#define ZFEED_UNSIZED_MAX ((uint64_t)32 << 20)

#define ZSTD_MAGIC 0xFD2FB528u
#define ZSTD_SKIP_MAGIC 0x184D2A50u	/* low 4 bits are free */

struct zfeed {
	struct feedio io;	/* the pipe, its read-ahead */
	struct zpipe *pipe;
	pthread_t tid;
	uint64_t window_max;
	uint64_t hinted;	/* where the frame that pzstd's skippable frame
				 * announced begins, plus one (0: none) */
	uint32_t hint_csize;	/* ...and its compressed size */
	struct zfeed_end end;	/* how it ended */
};

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Stop feeding here: hand back the bytes of the frame begun (clen of them
 * in slot's buffer, none when slot < 0) and the read-ahead after them, for
 * the stream to decode. -1. */
static int feed_rest(struct zfeed *f, int slot, size_t clen)
{
	struct zfeed_end *e = &f->end;
	size_t ahead = f->io.rlen - f->io.rpos;

	e->raw_off = f->io.roff;
	e->eof = f->io.eof;
	e->err = f->io.err;
	e->how = f->io.err ? ZFEED_ERROR : ZFEED_REST;
	if (!f->io.err && !f->io.stopped) {
		e->len = clen + ahead;
		e->cap = e->len + ZSTD_DStreamInSize();
		e->buf = malloc(e->cap);
		if (e->buf) {
			if (clen)
				memcpy(e->buf, zpipe_cbuf(f->pipe, slot, 0), clen);
			memcpy(e->buf + clen, f->io.rb + f->io.rpos, ahead);
		} else {
			e->how = ZFEED_ERROR;
			e->err = ENOMEM;
		}
	}
	if (slot >= 0)
		zpipe_cancel(f->pipe, slot);
	return -1;
}

/* Append k bytes of the frame to its buffer: the read-ahead's first, then
 * reads of exactly what is missing. False at the end before them, on a
 * read error, when stopped or out of memory. */
static bool feed_copy(struct zfeed *f, int slot, size_t *clen, size_t k)
{
	unsigned char *c = zpipe_cbuf(f->pipe, slot, *clen + k);

	if (!c)
		return false;
	while (k) {
		size_t have = f->io.rlen - f->io.rpos;
		ssize_t r;

		if (have == 0 && k >= ZFEED_DIRECT) {
			r = feedio_read(&f->io, c + *clen, k);
			if (r <= 0)
				return false;
			have = (size_t)r;
		} else {
			if (have == 0 && !feedio_need(&f->io, 1))
				return false;
			have = f->io.rlen - f->io.rpos < k ? f->io.rlen - f->io.rpos : k;
			memcpy(c + *clen, f->io.rb + f->io.rpos, have);
			f->io.rpos += have;
		}
		*clen += have;
		k -= have;
	}
	return true;
}

/* Queue the frame in the slot, clen bytes that decode to at most bound: 1,
 * or -1 when stopped or when no buffer can be had for it (the stream then
 * decodes it, from the bytes handed back, as -j 1 does: a pipe's frame
 * that failed for want of memory could not be read again). */
static int feed_commit(struct zfeed *f, int slot, size_t clen, uint64_t bound)
{
	int r = zpipe_commit(f->pipe, slot, clen, bound, true);

	return r == 0 ? 1 : r == -2 ? feed_rest(f, slot, clen) : -1;
}

/* The blocks of the frame whose hsize header bytes are unread in the
 * read-ahead, then its checksum, into the slot; queued when whole. A frame
 * reserved ZPIPE_UNSIZED is bounded by its blocks for a window of window
 * bytes, up to max. */
static int feed_blocks(struct zfeed *f, int slot, size_t hsize, bool checksum,
		       bool sized, uint64_t window, uint64_t max)
{
	size_t clen = 0;
	uint64_t bound = 0;
	bool last = false;

	if (!feed_copy(f, slot, &clen, hsize))
		return feed_rest(f, slot, clen);
	while (!last) {
		uint32_t bh, type, size;

		if (!feedio_need(&f->io, 3))
			return feed_rest(f, slot, clen);
		bh = le32(f->io.rb + f->io.rpos) & 0xFFFFFFu;
		last = bh & 1;
		type = bh >> 1 & 3;
		size = bh >> 3;
		/* reserved, or too large: the stream says how it is corrupt */
		if (type == 3 || size > ZFEED_BLOCK_MAX)
			return feed_rest(f, slot, clen);
		zstd_bound(&bound, bh, window);
		if (!sized && bound > max)
			return feed_rest(f, slot, clen);
		if (!feed_copy(f, slot, &clen, 3 + (type == 1 ? 1 : size)))
			return feed_rest(f, slot, clen);
	}
	if (checksum && !feed_copy(f, slot, &clen, 4))
		return feed_rest(f, slot, clen);
	return feed_commit(f, slot, clen, bound);
}

/* The frame of csize compressed bytes, by pzstd's skippable frame before
 * it, whose hsize header bytes are unread in the read-ahead: read whole
 * (straight into the slot: no block at a time), then its blocks walked
 * there; queued when they end where pzstd said. */
static int feed_announced(struct zfeed *f, int slot, size_t hsize,
			  bool checksum, bool sized, uint64_t window,
			  size_t csize)
{
	size_t clen = 0;
	uint64_t bound;

	if (!feed_copy(f, slot, &clen, csize) ||
	    zframes_walk(zpipe_cbuf(f->pipe, slot, 0), csize, hsize, checksum,
			 window, &bound) != csize ||
	    (!sized && bound > ZPIPE_FRAME_MAX))
		return feed_rest(f, slot, clen);
	return feed_commit(f, slot, clen, bound);
}

/* A zstd frame at the read-ahead's position: queued, or the stream goes on
 * from it. */
static int feed_zstd(struct zfeed *f)
{
	const unsigned char *p;
	unsigned long long dsize;
	uint64_t win, off;
	size_t hsize;
	bool sized;
	int slot;

	if (!feedio_need(&f->io, 5) || !feedio_need(&f->io, hsize = zsrc_header_size(f->io.rb[f->io.rpos + 4])))
		return feed_rest(f, -1, 0);
	p = f->io.rb + f->io.rpos;
	off = f->io.roff - (f->io.rlen - f->io.rpos);
	dsize = ZSTD_getFrameContentSize(p, hsize);
	sized = dsize != ZSTD_CONTENTSIZE_UNKNOWN;
	if ((p[4] & 0x08) || dsize == ZSTD_CONTENTSIZE_ERROR ||
	    (sized && dsize > ZPIPE_FRAME_MAX) ||
	    zsrc_frame_window(p, hsize, &win) != 1 || win > f->window_max)
		return feed_rest(f, -1, 0);
	slot = zpipe_reserve(f->pipe, 0, ZCODEC_ZSTD, off,
			     sized ? dsize : ZPIPE_UNSIZED);
	if (slot == -1)
		return -1;	/* stopped */
	if (slot < 0)
		return feed_rest(f, -1, 0);
	if (off + 1 == f->hinted && f->hint_csize <= ZPIPE_FRAME_MAX)
		return feed_announced(f, slot, hsize, p[4] & 0x04, sized, win,
				      f->hint_csize);
	return feed_blocks(f, slot, hsize, p[4] & 0x04, sized, win,
			   ZFEED_UNSIZED_MAX);
}

/* The next frame: 1 when it was queued or skipped, 0 at the end of the
 * stream, -1 when feeding stops here (end says why). */
static int feed_frame(struct zfeed *f)
{
	uint32_t magic;
	size_t skip;

	if (!feedio_need(&f->io, 4)) {
		if (f->io.rpos == f->io.rlen && f->io.eof)
			return 0;
		return feed_rest(f, -1, 0);
	}
	magic = le32(f->io.rb + f->io.rpos);
	if (magic == ZSTD_MAGIC)
		return feed_zstd(f);
	if ((magic & ~0xFu) != ZSTD_SKIP_MAGIC || !feedio_need(&f->io, 8))
		return feed_rest(f, -1, 0);
	skip = 8 + (size_t)le32(f->io.rb + f->io.rpos + 4);
	/* whole in the read-ahead, so that the stream could still have it */
	if (skip > FEEDIO_READ || !feedio_need(&f->io, skip))
		return feed_rest(f, -1, 0);
	/* pzstd's: the compressed size of the frame after it */
	if (magic == ZSTD_SKIP_MAGIC && skip == 12) {
		f->hinted = f->io.roff - (f->io.rlen - f->io.rpos) + skip + 1;
		f->hint_csize = le32(f->io.rb + f->io.rpos + 8);
	}
	f->io.rpos += skip;
	return 1;
}

static void *feed_main(void *v)
{
	struct zfeed *f = v;
	int r;

	while ((r = feed_frame(f)) > 0)
		;
	if (r == 0)
		f->end = (struct zfeed_end){ .how = ZFEED_EOF,
					     .raw_off = f->io.roff, .eof = true };
	zpipe_end(f->pipe, 0);
	return NULL;
}

struct zfeed *zfeed_open(int fd, const unsigned char *had, size_t n,
			 uint64_t raw_off, uint64_t window_max, int threads)
{
	struct zfeed *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->window_max = window_max;
	if (feedio_init(&f->io, fd, had, n, raw_off) &&
	    (f->pipe = zpipe_open(threads, ZPIPE_BYTES)) != NULL) {
		if (zpipe_add(f->pipe, 0, NULL, 0, NULL, 0) == 0 &&
		    pthread_create(&f->tid, NULL, feed_main, f) == 0)
			return f;
		zpipe_close(f->pipe);
	}
	feedio_free(&f->io);
	free(f);
	return NULL;
}

struct zpipe *zfeed_pipe(const struct zfeed *f)
{
	return f->pipe;
}

/* Free f and its pipe; the thread has ended. */
static void feed_free(struct zfeed *f)
{
	zpipe_close(f->pipe);
	feedio_free(&f->io);
	free(f);
}

void zfeed_finish(struct zfeed *f, struct zfeed_end *e)
{
	pthread_join(f->tid, NULL);
	*e = f->end;
	feed_free(f);
}

void zfeed_close(struct zfeed *f)
{
	if (!f)
		return;
	feedio_stop(&f->io);
	zpipe_stop(f->pipe);
	pthread_join(f->tid, NULL);
	free(f->end.buf);
	feed_free(f);
}
