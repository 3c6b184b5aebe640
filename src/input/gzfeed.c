/*
 * gzfeed.c - see gzfeed.h.
 *
 * A block (64 KiB at most) is read whole into the read-ahead before it is
 * copied into its group's buffer in the pipe, so that the bytes after the
 * last clean block are all still there when the thread stops. Groups grow
 * from GROUP_FIRST to GROUP_MAX decoded bytes: the first is served soon,
 * the later ones are large enough that serving one is not per-block work.
 * The groups queued are remembered, the last SENT_MAX of them (every one
 * not yet served is among them: the pipe's ring holds no more frames), so
 * that where one does not decode, the stream can have its compressed bytes
 * and all those after it, from the pipe's buffers. The reads are
 * feedio.h's: the thread can be stopped while the writer is silent.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "feedio.h"
#include "gzfeed.h"
#include "gzframes.h"
#include "zpipe.h"

#define GROUP_FIRST ((uint64_t)256 << 10)	/* decoded bytes a group aims at */
#define GROUP_MAX ((uint64_t)4 << 20)
#define SENT_MAX 64	/* groups remembered: zpipe.c's ZP_SLOTS */
#define BGZF_FIXED 12	/* a member's header before its extra field */

/* A group queued: where it begins, its compressed bytes and its slot. */
struct sent {
	uint64_t off;
	size_t csize;
	int slot;
};

struct gzfeed {
	struct feedio io;	/* the pipe, its read-ahead */
	struct zpipe *pipe;
	pthread_t tid;
	struct sent sent[SENT_MAX];	/* group k in sent[k % SENT_MAX] */
	uint64_t nsent;
	struct sent part;	/* a group begun and not queued when stopped
				 * (csize 0: none) */
	struct zfeed_end end;	/* how it ended */
};

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Whether a whole BGZF block decoding to at most GZFRAMES_BLOCK_MAX bytes
 * is at the read-ahead's position: its length and ISIZE. A member that is
 * not BGZF is known by its first four bytes, before more are waited for. */
static bool feed_block(struct gzfeed *f, size_t *len, uint32_t *isize)
{
	static const unsigned char magic[4] = { 0x1f, 0x8b, 8, 4 };
	size_t hsize, hlen;
	const unsigned char *h;

	if (!feedio_need(&f->io, 4) || memcmp(f->io.rb + f->io.rpos, magic, 4) != 0 ||
	    !feedio_need(&f->io, BGZF_FIXED))
		return false;
	h = f->io.rb + f->io.rpos;
	hsize = BGZF_FIXED + ((size_t)h[10] | (size_t)h[11] << 8);
	if (!feedio_need(&f->io, hsize) ||
	    !(*len = gzframes_block(f->io.rb + f->io.rpos, hsize, &hlen)) ||
	    !feedio_need(&f->io, *len))
		return false;
	*isize = le32(f->io.rb + f->io.rpos + *len - 4);
	return *isize <= GZFRAMES_BLOCK_MAX;
}

/* Stop feeding here: how it ended, with the read-ahead handed back for the
 * stream to decode. 0. */
static int feed_rest(struct gzfeed *f)
{
	struct zfeed_end *e = &f->end;
	size_t ahead = f->io.rlen - f->io.rpos;

	*e = (struct zfeed_end){ .how = ZFEED_REST, .raw_off = f->io.roff,
				 .eof = f->io.eof, .err = f->io.err };
	if (f->io.err) {
		e->how = ZFEED_ERROR;
	} else if (ahead == 0 && f->io.eof) {
		e->how = ZFEED_EOF;
	} else {
		e->len = ahead;
		e->cap = ahead + ZSTD_DStreamInSize();
		e->buf = malloc(e->cap);
		if (e->buf) {
			memcpy(e->buf, f->io.rb + f->io.rpos, ahead);
		} else {
			e->how = ZFEED_ERROR;
			e->err = ENOMEM;
		}
	}
	return 0;
}

/* The group of blocks from the read-ahead's position on, until it holds
 * target decoded bytes or what follows is no clean block: 1 when it was
 * queued, 0 when feeding ends here (end says how), -1 when stopped. */
static int feed_group(struct gzfeed *f, uint64_t target)
{
	struct sent g = { f->io.roff - (f->io.rlen - f->io.rpos), 0, -1 };
	uint64_t dsize = 0;
	uint32_t isize;
	size_t len;
	unsigned char *c;

	if (!feed_block(f, &len, &isize))
		return f->io.stopped ? -1 : feed_rest(f);
	g.slot = zpipe_reserve(f->pipe, 0, ZCODEC_BGZF, g.off, ZPIPE_UNSIZED);
	if (g.slot == -1)
		return -1;
	if (g.slot < 0)
		return feed_rest(f);
	do {
		if (!(c = zpipe_cbuf(f->pipe, g.slot, g.csize + len)))
			break;
		memcpy(c + g.csize, f->io.rb + f->io.rpos, len);
		f->io.rpos += len;
		g.csize += len;
		dsize += isize;
	} while (dsize < target && feed_block(f, &len, &isize));
	if (!f->io.stopped && g.csize == 0) {	/* no memory for the first */
		zpipe_cancel(f->pipe, g.slot);
		return feed_rest(f);
	}
	if (f->io.stopped || zpipe_commit(f->pipe, g.slot, g.csize, dsize, false) < 0) {
		f->part = g;	/* its bytes stay in the slot's buffer */
		return -1;
	}
	f->sent[f->nsent++ % SENT_MAX] = g;
	return 1;
}

static void *feed_main(void *v)
{
	struct gzfeed *f = v;
	uint64_t target = GROUP_FIRST;

	while (feed_group(f, target) > 0)
		target = target < GROUP_MAX ? 2 * target : GROUP_MAX;
	zpipe_end(f->pipe, 0);
	return NULL;
}

struct gzfeed *gzfeed_open(int fd, const unsigned char *had, size_t n,
			   uint64_t raw_off, int threads)
{
	struct gzfeed *f;

	/* FLG: bgzip writes FEXTRA alone, gzip and pigz FNAME or nothing */
	if (n > FEEDIO_READ || (n >= 4 && had[3] != 4) ||
	    !(f = calloc(1, sizeof(*f))))
		return NULL;
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

struct zpipe *gzfeed_pipe(const struct gzfeed *f)
{
	return f->pipe;
}

/* Free f and its pipe; the thread has ended. */
static void feed_free(struct gzfeed *f)
{
	zpipe_close(f->pipe);
	feedio_free(&f->io);
	free(f);
}

/* Stop the thread, wherever it waits, and wait for it to end. */
static void feed_stop(struct gzfeed *f)
{
	feedio_stop(&f->io);
	zpipe_stop(f->pipe);
	pthread_join(f->tid, NULL);
}

void gzfeed_finish(struct gzfeed *f, struct zfeed_end *e)
{
	pthread_join(f->tid, NULL);
	*e = f->end;
	feed_free(f);
}

/* Append group g's bytes, in its slot's buffer, at *to. */
static void take(struct gzfeed *f, const struct sent *g, unsigned char **to)
{
	if (g->csize)
		memcpy(*to, zpipe_cbuf(f->pipe, g->slot, 0), g->csize);
	*to += g->csize;
}

void gzfeed_rewind(struct gzfeed *f, uint64_t at, struct zfeed_end *e)
{
	uint64_t k = f->nsent > SENT_MAX ? f->nsent - SENT_MAX : 0;
	size_t len, ahead;
	unsigned char *to;

	feed_stop(f);
	free(f->end.buf);	/* it may have ended on its own since */
	while (k < f->nsent && f->sent[k % SENT_MAX].off != at)
		k++;
	ahead = f->io.rlen - f->io.rpos;
	len = f->part.csize + ahead;
	for (uint64_t i = k; i < f->nsent; i++)
		len += f->sent[i % SENT_MAX].csize;
	/* a read error is met again by the stream, after these bytes */
	*e = (struct zfeed_end){ .how = ZFEED_REST, .len = len,
				 .cap = len + ZSTD_DStreamInSize(),
				 .raw_off = f->io.roff, .eof = f->io.eof && !f->io.err };
	e->buf = malloc(e->cap);
	if (!e->buf) {
		e->how = ZFEED_ERROR;
		e->err = ENOMEM;
		e->len = e->cap = 0;
		feed_free(f);
		return;
	}
	to = e->buf;
	for (; k < f->nsent; k++)
		take(f, &f->sent[k % SENT_MAX], &to);
	take(f, &f->part, &to);
	memcpy(to, f->io.rb + f->io.rpos, ahead);
	feed_free(f);
}

void gzfeed_close(struct gzfeed *f)
{
	if (!f)
		return;
	feed_stop(f);
	free(f->end.buf);
	feed_free(f);
}
