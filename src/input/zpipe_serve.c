/*
 * zpipe_serve.c - the frames of a pipe (zpipe.h) served in order: copied
 * into the reader's buffer (split with idle workers), or lent where they
 * were decoded (zpipe_view). The pipe's state is zpipe_impl.h's; see
 * zpipe.c for how frames are decoded.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "zpipe.h"
#include "zpipe_impl.h"

/* ---- serving ------------------------------------------------------------------ */

/* The head slot is served: free it for the next frame (it keeps its
 * buffers). */
static void release_head(struct zpipe *p)
{
	struct zslot *s = ring(p, 0);

	if (s->state == SLOT_QUEUED || s->state == SLOT_DONE)
		p->pending -= s->bound;
	s->state = s->lent ? SLOT_LENT : SLOT_FREE;
	p->head = (p->head + 1) % ZP_SLOTS;
	p->count--;
	if (p->claimed)		/* claims go in order: the head's first */
		p->claimed--;
	p->pos = 0;
	pthread_cond_broadcast(&p->cv);
}

/* Drop what is left of the files before id: frames decoding are waited
 * for (the others are not decoded: drop_below). */
static void drop_before(struct zpipe *p, int id)
{
	if (p->drop_below < id)
		p->drop_below = id;
	while (p->count && ring(p, 0)->file < id) {
		if (ring(p, 0)->state == SLOT_DECODING)
			pthread_cond_wait(&p->cv, &zp_lock);
		else
			release_head(p);
	}
	while (p->files && p->files->id < id)
		zp_file_pop(p);
}

/* Whether slot s comes next: any frame but members, which must begin
 * where the chain is (then it moves on to their end). */
static bool linked(const struct zslot *s, uint64_t *chain)
{
	if (s->codec != ZCODEC_GZMEMBERS)
		return true;
	if (s->from != *chain)
		return false;
	*chain = s->to;
	return true;
}

/* Plan the copy of up to n bytes of file id from the decoded frames at the
 * head into buf: its size. */
static size_t plan(struct zpipe *p, int id, unsigned char *buf, size_t n)
{
	struct zcopy *c = &p->copy;
	size_t got = 0, pos = p->pos;
	uint64_t chain = p->chain;

	c->n = 0;
	for (size_t k = 0; k < p->count && got < n && c->n < ZP_PIECES; k++) {
		const struct zslot *s = ring(p, k);

		if (s->file != id || s->state != SLOT_DONE || ZSTD_isError(s->rc) ||
		    !linked(s, &chain))
			break;
		while (pos < s->dsize && got < n && c->n < ZP_PIECES) {
			size_t len = s->dsize - pos;

			len = len < n - got ? len : n - got;
			len = len < ZP_PIECE ? len : ZP_PIECE;
			c->piece[c->n++] = (struct zpiece){ buf + got,
							    s->dbuf + pos, len };
			pos += len;
			got += len;
		}
		if (pos < s->dsize)
			break;
		pos = 0;
	}
	return got;
}

/* Copy the planned pieces, split with the idle workers when there are
 * several; called and returning with zp_lock held. */
static void copy_out(struct zpipe *p)
{
	struct zcopy *c = &p->copy;

	atomic_store(&c->next, 0);
	atomic_store(&c->done, 0);
	p->copy_on = c->n > 1;
	if (p->copy_on)
		pthread_cond_broadcast(&zp_work);
	pthread_mutex_unlock(&zp_lock);
	zp_copy_pieces(c);
	pthread_mutex_lock(&zp_lock);
	while (atomic_load(&c->done) < c->n || p->helpers)
		pthread_cond_wait(&p->cv, &zp_lock);
	p->copy_on = false;
}

/* got bytes of file id were served: move past them, and past the empty
 * frames after them. */
static void consume(struct zpipe *p, int id, size_t got)
{
	while (p->count) {
		const struct zslot *s = ring(p, 0);
		size_t k = s->dsize - p->pos;
		uint64_t chain = p->chain;

		if (s->file != id || s->state != SLOT_DONE || ZSTD_isError(s->rc) ||
		    !linked(s, &chain))
			break;
		k = k < got ? k : got;
		p->pos += k;
		got -= k;
		if (p->pos < s->dsize)
			break;
		p->chain = chain;
		release_head(p);
	}
}

/* Whether file id has nothing more to serve: its frames are all served and
 * no more will come. */
static bool file_done(struct zpipe *p, int id)
{
	struct zfile *f = p->files;

	if (p->count && ring(p, 0)->file == id)
		return false;
	return !f || f->id != id || (f->ended && f->pushed == f->n);
}

/* Wait for the next frame of the file, at most stall_ms when its producer
 * has not given it yet: false on timeout. */
static bool wait_frame(struct zpipe *p, int id, int stall_ms,
		       const struct timespec *until)
{
	bool given = p->count && ring(p, 0)->state != SLOT_RESERVED;

	if (given || stall_ms < 0)
		return pthread_cond_wait(&p->cv, &zp_lock), true;
	return pthread_cond_timedwait(&p->cv, &zp_lock, until) == 0;
}

ssize_t zpipe_read(struct zpipe *p, int id, void *buf, size_t n, int stall_ms,
		   uint64_t *at, size_t *code)
{
	struct timespec until = { 0, 0 };
	ssize_t r = 0;

	if (stall_ms >= 0) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += stall_ms / 1000;
		until.tv_nsec += (long)(stall_ms % 1000) * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
	}
	pthread_mutex_lock(&zp_lock);
	drop_before(p, id);
	for (;;) {
		struct zslot *s = p->count ? ring(p, 0) : NULL;

		if (s && s->file == id && s->state == SLOT_DONE) {
			uint64_t chain = p->chain;
			bool link = linked(s, &chain);

			/* members that are no link: dropped where they begin
			 * before the chain (in members decoded already) or
			 * nowhere; where they begin past it, the reader
			 * decodes the members from the chain on */
			if (!link && (s->from == ZPIPE_NOWHERE || s->from < p->chain)) {
				release_head(p);
				continue;
			}
			if (!link) {
				*at = p->chain;
				*code = (size_t)-ZSTD_error_corruption_detected;
				r = -1;
				break;
			}
			if (ZSTD_isError(s->rc)) {
				*at = s->off;
				*code = s->rc;
				r = -1;
				break;
			}
			size_t got = plan(p, id, buf, n);

			if (got)
				copy_out(p);
			consume(p, id, got);
			if ((r = (ssize_t)got) > 0)
				break;
			continue;	/* empty frames only */
		}
		if (file_done(p, id)) {
			if (p->files && p->files->id == id)
				zp_file_pop(p);
			break;
		}
		if (!zp_top_up(p) && !wait_frame(p, id, stall_ms, &until)) {
			r = ZPIPE_STALL;
			break;
		}
	}
	pthread_mutex_unlock(&zp_lock);
	return r;
}

int zpipe_link(struct zpipe *p, int id, uint64_t skip)
{
	int r = -1;

	pthread_mutex_lock(&zp_lock);
	drop_before(p, id);
	for (zp_top_up(p); p->count; zp_top_up(p)) {
		struct zslot *s = ring(p, 0);
		uint64_t chain = p->chain;
		bool link;

		if (s->file != id || s->codec != ZCODEC_GZMEMBERS)
			break;
		if (s->state != SLOT_DONE) {
			r = 0;
			break;
		}
		link = linked(s, &chain);
		if (!link && (s->from == ZPIPE_NOWHERE || s->from < p->chain)) {
			release_head(p);
			continue;
		}
		if (link && !ZSTD_isError(s->rc) && (skip == 0 || skip < s->dsize)) {
			p->pos += skip;
			r = 1;
		}
		break;
	}
	pthread_mutex_unlock(&zp_lock);
	return r;
}

/* ---- lending ------------------------------------------------------------------ */

ssize_t zpipe_view(struct zpipe *p, int id, size_t n, size_t align,
		   const void **view)
{
	struct zfile *f;
	ssize_t r = 0;

	pthread_mutex_lock(&zp_lock);
	drop_before(p, id);
	f = zp_file_find(p, id);
	for (; f && f->map;) {	/* a producer's frames may stall: read them */
		struct zslot *s = p->count ? ring(p, 0) : NULL;

		if (s && s->file == id && s->state == SLOT_DONE) {
			size_t avail = s->dsize - p->pos;
			bool more = s->lent ||
				    p->lent_slots + zp_orphans < ZP_VIEW_SLOTS;

			if (ZSTD_isError(s->rc) || s->codec == ZCODEC_GZMEMBERS)
				break;	/* zpipe_read reports it, or links it */
			if (avail == 0) {	/* an empty frame */
				consume(p, id, 0);
				continue;
			}
			/* a buffer lent stays out of the budget's reach:
			 * half of it at most, so frames still decode */
			if (!more || avail < (n < ZP_VIEW_MIN ? n : ZP_VIEW_MIN) ||
			    (!s->lent && p->lent_bytes + s->dcap > p->budget / 2) ||
			    (align > 1 && (uintptr_t)(s->dbuf + p->pos) % align))
				break;
			r = (ssize_t)(avail < n ? avail : n);
			*view = s->dbuf + p->pos;
			if (s->lent++ == 0) {
				p->lent_slots++;
				p->lent_bytes += s->dcap;
			}
			consume(p, id, (size_t)r);
			break;
		}
		if (file_done(p, id) || p->stopped)
			break;
		if (!zp_top_up(p))
			pthread_cond_wait(&p->cv, &zp_lock);
	}
	pthread_mutex_unlock(&zp_lock);
	return r;
}

bool zpipe_unread(struct zpipe *p, int id, size_t k)
{
	struct zslot *s;
	bool ok;

	pthread_mutex_lock(&zp_lock);
	s = p->count ? ring(p, 0) : NULL;
	ok = s && s->file == id && s->state == SLOT_DONE && p->pos >= k;
	if (ok)
		p->pos -= k;
	pthread_mutex_unlock(&zp_lock);
	return ok;
}

bool zpipe_served(struct zpipe *p, int id)
{
	bool done;

	pthread_mutex_lock(&zp_lock);
	drop_before(p, id);
	done = file_done(p, id);
	pthread_mutex_unlock(&zp_lock);
	return done;
}

bool zpipe_unview(const void *view)
{
	const unsigned char *v = view;
	struct zpipe *p;
	unsigned char *gone = NULL;
	size_t gone_cap = 0;
	bool found = false;

	pthread_mutex_lock(&zp_lock);
	p = zp_active;
	for (int i = 0; p && !found && i < ZP_SLOTS; i++) {
		struct zslot *s = &p->slot[i];

		if (!s->lent || v < s->dbuf || v >= s->dbuf + s->dcap)
			continue;
		found = true;
		if (--s->lent == 0) {
			p->lent_slots--;
			p->lent_bytes -= s->dcap;
			if (s->state == SLOT_LENT)
				s->state = SLOT_FREE;
			pthread_cond_broadcast(&p->cv);
		}
	}
	for (int k = 0; !found && k < ZP_VIEW_SLOTS; k++) {
		struct zorphan *o = &zp_orphan[k];

		if (!o->buf || v < o->buf || v >= o->buf + o->cap)
			continue;
		found = true;
		if (--o->lent == 0) {
			if (o->p) {	/* still the open pipe's */
				o->p->dbytes -= o->cap;
				o->p->lent_bytes -= o->cap;
				pthread_cond_broadcast(&o->p->cv);
			}
			gone = o->buf;
			gone_cap = o->cap;
			o->buf = NULL;
			zp_orphans--;
		}
	}
	pthread_mutex_unlock(&zp_lock);
	if (gone)
		munmap(gone, gone_cap);
	return found;
}
