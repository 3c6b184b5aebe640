/*
 * zpipe.c - see zpipe.h; serving and lending the frames is zpipe_serve.c's,
 * the state both share zpipe_impl.h's.
 *
 * The workers are made once, each with its own decoder, and park on
 * zp_work; the open pipe is zp_active. Its ring holds the frames being
 * decoded or served, in serving order: slots [head, head + count), of which
 * the first `claimed` are taken by workers (claims go in order, completions
 * in any), then those queued, and last at most one reserved by a producer
 * still reading its bytes. A worker takes a copy before a frame: serving is
 * a copy into the reader's chunk, and idle workers split it with the
 * reader, since one core's memcpy of a gigabyte takes about as long as
 * sixteen cores decoding it.
 *
 * Decoded buffers are whole huge pages from mmap (the kernel backs them
 * with 2 MiB pages: 512 times fewer faults on first touch, which happens in
 * the worker that decodes into it), reused by the next frame that fits:
 * frames of one size (pzstd, the seekable format) fault only once per slot.
 * One lock guards the pipe and the workers' parking; it is taken a few
 * times per frame, never while decoding or copying.
 *
 * A CPU run may compute on a decoded frame where it lies instead of a copy
 * (zpipe_view): the slot is served but lent (SLOT_LENT) until the views of
 * it come back. A lent slot that comes round as the tail again (copies of
 * small frames can pass the whole ring while a view is out), and the lent
 * slots of a pipe that closes, leave their buffers to the orphans, which
 * unmap them when their last view comes back. Lent slots and orphans are
 * ZP_VIEW_SLOTS at most, and lent buffers half the budget.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "gzframes.h"
#include "gzmembers.h"
#include "zpipe.h"
#include "zpipe_impl.h"

static pthread_once_t zp_once = PTHREAD_ONCE_INIT;
pthread_mutex_t zp_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t zp_work = PTHREAD_COND_INITIALIZER;
static int zp_workers;
static unsigned zp_race_us;	/* ZPIPE_RACE_ENV */
struct zpipe *zp_active;
static bool zp_taken;		/* a pipe is open */

struct zorphan zp_orphan[ZP_VIEW_SLOTS];
int zp_orphans;

/* ---- buffers ----------------------------------------------------------------- */

static size_t page_up(uint64_t n)
{
	return (size_t)((n + ZP_PAGE - 1) / ZP_PAGE * ZP_PAGE);
}

static unsigned char *buf_map(size_t n)
{
	void *b = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (b == MAP_FAILED)
		return NULL;
	madvise(b, n, MADV_HUGEPAGE);	/* a hint: fine where refused */
	return b;
}

static void buf_unmap(unsigned char **b, size_t *cap, uint64_t *held)
{
	if (*b)
		munmap(*b, *cap);
	*held -= *cap;
	*b = NULL;
	*cap = 0;
}

/* A buffer fits a frame when it is large enough and not twice too large:
 * a run of small frames does not keep a large frame's memory. */
static bool fits(size_t cap, uint64_t need)
{
	return need == 0 || (cap >= need && cap - need <= need + ZP_PAGE);
}

/* Give a lent slot's buffer to the orphans, counted in owner's budget
 * (NULL: the pipe is closing), and leave the slot without one. A slot
 * still lent (its views outlived ZP_SLOTS frames: a chunk in place waits
 * or is computed on while the reader copies small frames into the next,
 * and the engine gives a view back only when its reader next takes a
 * buffer) comes round as the tail: it gets another buffer. lent_slots +
 * zp_orphans stays the same. */
static void slot_orphan(struct zpipe *p, struct zslot *s, struct zpipe *owner)
{
	for (int k = 0; s->lent && k < ZP_VIEW_SLOTS; k++)
		if (!zp_orphan[k].buf) {
			zp_orphan[k] = (struct zorphan){ s->dbuf, s->dcap,
							 s->lent, owner };
			zp_orphans++;
			p->lent_slots--;
			if (!owner)
				p->dbytes -= s->dcap;
			s->dbuf = NULL;
			s->dcap = 0;
			s->lent = 0;
		}
}

/* Give slot t a decoded buffer for dsize bytes within the budget: a free
 * slot's that fits, else a new one, made room for by unmapping the buffers
 * of free slots; those are the ring's from the from'th on (t is the tail,
 * or the slot reserved before it). 1, 0 when there is no room now, -1 when
 * there never will be (over the budget) or mmap fails. */
static int slot_buffer(struct zpipe *p, struct zslot *t, uint64_t dsize,
		       size_t from)
{
	size_t want;

	slot_orphan(p, t, p);
	if (fits(t->dcap, dsize))
		return 1;
	for (size_t k = from; k < ZP_SLOTS; k++) {
		struct zslot *o = ring(p, k);

		if (o->state == SLOT_FREE && fits(o->dcap, dsize)) {
			unsigned char *b = o->dbuf;
			size_t c = o->dcap;

			o->dbuf = t->dbuf;
			o->dcap = t->dcap;
			t->dbuf = b;
			t->dcap = c;
			return 1;
		}
	}
	want = page_up(dsize);
	if (want > p->budget)
		return -1;
	buf_unmap(&t->dbuf, &t->dcap, &p->dbytes);
	for (size_t k = from; k < ZP_SLOTS && p->dbytes + want > p->budget; k++)
		if (ring(p, k)->state == SLOT_FREE)
			buf_unmap(&ring(p, k)->dbuf, &ring(p, k)->dcap,
				  &p->dbytes);
	if (p->dbytes + want > p->budget)
		return 0;
	if (!(t->dbuf = buf_map(want)))
		return -1;
	t->dcap = want;
	p->dbytes += want;
	return 1;
}

/* ---- the workers ------------------------------------------------------------- */

void zp_copy_pieces(struct zcopy *c)
{
	int i;

	while ((i = atomic_fetch_add(&c->next, 1)) < c->n) {
		memcpy(c->piece[i].dst, c->piece[i].src, c->piece[i].len);
		atomic_fetch_add(&c->done, 1);
	}
}

/* Map in [p, p + n) (advice MADV_POPULATE_READ or _WRITE) instead of a
 * page fault every 64 KiB of a mapped file's frame, or every page of a
 * fresh buffer where huge pages are not had. A hint: kernels before 5.14
 * refuse it and the faults come as before. A call holds the process's
 * mapping lock (for reading) while it works, and every mmap and munmap
 * waits for it: sixteen workers populating 64 MiB each in one call apiece
 * held the reader's mapping of the next shard 13 ms at a time. So it goes
 * ZP_PAGE at a time, letting them in between. */
#ifdef MADV_POPULATE_READ
static void populate(const void *p, size_t n, int advice)
{
	/* 4 KiB, or 16/64 KiB on some arm64 and ppc64 kernels (glibc
	 * answers from the auxiliary vector: no system call) */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(page - 1), end = (uintptr_t)p + n;

	for (uintptr_t k; n && a < end; a += k) {
		k = end - a < ZP_PAGE ? end - a : ZP_PAGE;
		if (madvise((void *)a, k, advice) != 0)
			break;	/* refused: the faults come as before */
	}
}
#endif

/* The slot's frame, decoded: its size, or zstd's error. */
static size_t slot_decode(ZSTD_DCtx *d, struct zslot *s)
{
	static unsigned char none[1];
	size_t got;

	s->from = ZPIPE_NOWHERE;
	if (s->nomem)
		return (size_t)-ZSTD_error_memory_allocation;
#ifdef MADV_POPULATE_READ
	populate(s->src, s->csize, MADV_POPULATE_READ);
#endif
	/* members decode to a bound they seldom fill: faulted in as written */
	if (s->codec == ZCODEC_GZMEMBERS) {
		got = gzmembers_decode(s->src, s->csize, s->cmax, s->dbuf,
				       s->bound, &s->from, &s->to);
		s->from += s->from == ZPIPE_NOWHERE ? 0 : s->off;
		s->to += s->off;
		return got;
	}
#ifdef MADV_POPULATE_READ
	populate(s->dbuf, s->bound, MADV_POPULATE_WRITE);
#endif
	if (s->codec == ZCODEC_BGZF)
		return gzframes_decode(s->src, s->csize, s->dbuf, s->dsize)
		       ? s->dsize : (size_t)-ZSTD_error_corruption_detected;
	got = ZSTD_decompressDCtx(d, s->bound ? s->dbuf : none, s->bound,
				  s->src, s->csize);
	/* the header promised dsize: zstd checks it, this is the backstop
	 * (more than the bound is "too small a destination" here, which
	 * zsrc_corrupt reports as corrupt, as for the stream decoder; a
	 * frame's blocks cannot decode to more) */
	return ZSTD_isError(got) || got == s->bound || !s->sized ? got
	       : (size_t)-ZSTD_error_corruption_detected;
}

static bool claimable(struct zpipe *p)
{
	return p->claimed < p->count && ring(p, p->claimed)->state == SLOT_QUEUED;
}

/* A share of the reader's copy, or the next frame; called and returning
 * with zp_lock held. The reader and the helpers take pieces without the
 * lock, so the copy worker_main saw may be gone by now: then a frame only
 * if one is queued (a claim past the queue marked a free slot claimed, and
 * the frame later put there was never decoded: the reader waited for it
 * forever), else nothing. */
static void work(struct zpipe *p, ZSTD_DCtx *d)
{
	p->busy++;
	if (p->copy_on && atomic_load(&p->copy.next) < p->copy.n) {
		p->helpers++;
		pthread_mutex_unlock(&zp_lock);
		zp_copy_pieces(&p->copy);
		pthread_mutex_lock(&zp_lock);
		p->helpers--;
	} else if (claimable(p)) {
		struct zslot *s = ring(p, p->claimed++);
		bool dropped = s->file < p->drop_below;
		size_t rc;

		s->state = SLOT_DECODING;
		pthread_mutex_unlock(&zp_lock);
		rc = dropped ? 0 : slot_decode(d, s);
		pthread_mutex_lock(&zp_lock);
		s->rc = rc;
		s->dsize = ZSTD_isError(rc) ? 0 : rc;
		s->state = SLOT_DONE;
	}
	p->busy--;
	pthread_cond_broadcast(&p->cv);
}

static void *worker_main(void *v)
{
	ZSTD_DCtx *d = v;

	pthread_mutex_lock(&zp_lock);
	for (;;) {
		struct zpipe *p = zp_active;

		if (p && p->busy < p->threads &&
		    ((p->copy_on && atomic_load(&p->copy.next) < p->copy.n) ||
		     claimable(p))) {
			if (zp_race_us)
				usleep(zp_race_us);
			work(p, d);
		} else
			pthread_cond_wait(&zp_work, &zp_lock);
	}
	return NULL;
}

static void zp_init(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const char *w = getenv(ZPIPE_WORKERS_ENV);
	pthread_attr_t a;

	if (w && *w)	/* the tests' many workers on a machine of few cores */
		cpus = strtol(w, NULL, 10);
	if ((w = getenv(ZPIPE_RACE_ENV)) && *w)
		zp_race_us = (unsigned)strtoul(w, NULL, 10);
	int n = cpus < 2 ? 0 : cpus > ZP_THREADS_MAX ? ZP_THREADS_MAX : (int)cpus;

	if (pthread_attr_init(&a) != 0)
		return;
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < n; i++) {
		ZSTD_DCtx *d = ZSTD_createDCtx();
		pthread_t t;

		if (!d || pthread_create(&t, &a, worker_main, d) != 0) {
			ZSTD_freeDCtx(d);
			break;
		}
		zp_workers++;
	}
	pthread_attr_destroy(&a);
}

/* ---- opening and closing ------------------------------------------------------ */

struct zpipe *zpipe_open(int threads, uint64_t budget)
{
	struct zpipe *p;

	pthread_once(&zp_once, zp_init);
	if (threads < 2 || zp_workers < 2 || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->threads = threads < zp_workers ? threads : zp_workers;
	/* as many frames again as are decoding, ready for the reader: more
	 * would only take fresh memory (each page's first touch costs the
	 * kernel a clear) where a served slot's buffer can be had */
	p->depth = 2 * (size_t)p->threads + 2;
	p->depth = p->depth < ZP_SLOTS ? p->depth : ZP_SLOTS;
	p->budget = budget;
	pthread_cond_init(&p->cv, NULL);
	pthread_mutex_lock(&zp_lock);
	if (zp_taken) {
		pthread_mutex_unlock(&zp_lock);
		pthread_cond_destroy(&p->cv);
		free(p);
		return NULL;
	}
	zp_taken = true;
	zp_active = p;
	pthread_mutex_unlock(&zp_lock);
	return p;
}

static void file_free(struct zfile *f)
{
	if (f->map)
		munmap(f->map, f->map_len);
	free(f->list);
	free(f);
}

/* Unlink the first file, whatever of it is left unserved. */
void zp_file_pop(struct zpipe *p)
{
	struct zfile *f = p->files;

	for (size_t i = f->pushed; i < f->n; i++)
		p->pending -= f->list[i].dsize;
	p->files = f->next;
	if (!p->files)
		p->last = NULL;
	file_free(f);
}

void zpipe_stop(struct zpipe *p)
{
	pthread_mutex_lock(&zp_lock);
	p->stopped = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&zp_lock);
}

void zpipe_close(struct zpipe *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&zp_lock);
	p->stopped = true;
	zp_active = NULL;	/* no worker starts anything more in it */
	while (p->busy)
		pthread_cond_wait(&p->cv, &zp_lock);
	zp_taken = false;
	for (int k = 0; k < ZP_VIEW_SLOTS; k++)
		if (zp_orphan[k].p == p)
			zp_orphan[k].p = NULL;
	/* Views outlive the pipe: a file's own pipe closes at its end, while
	 * its last chunks are computed on. Their buffers leave its budget,
	 * but no other pipe opens before the run gives them back (shards
	 * share zahead's pipe; a second pass or operand comes after the
	 * engine's teardown), so the decoded bytes held stay within one. */
	for (int i = 0; i < ZP_SLOTS; i++)
		slot_orphan(p, &p->slot[i], NULL);
	pthread_mutex_unlock(&zp_lock);
	for (int i = 0; i < ZP_SLOTS; i++) {
		buf_unmap(&p->slot[i].dbuf, &p->slot[i].dcap, &p->dbytes);
		buf_unmap(&p->slot[i].cbuf, &p->slot[i].ccap, &p->cbytes);
	}
	while (p->files)
		zp_file_pop(p);
	pthread_cond_destroy(&p->cv);
	free(p);
}

/* ---- feeding ------------------------------------------------------------------ */

/* Put the next frames of mapped files into the ring while it has room:
 * true when it did. */
bool zp_top_up(struct zpipe *p)
{
	bool any = false;

	for (struct zfile *f = p->files; f && p->count < p->depth;) {
		if (f->pushed == f->n) {
			if (!f->ended)
				break;	/* a producer's: it puts them in */
			f = f->next;
			continue;
		}
		const struct zframe *fr = &f->list[f->pushed];
		struct zslot *s = ring(p, p->count);
		int b = slot_buffer(p, s, fr->dsize, p->count + 1);

		if (b == 0)
			break;
		s->state = SLOT_QUEUED;
		s->file = f->id;
		s->nomem = b < 0;
		s->codec = fr->codec;
		s->off = fr->off;
		s->bound = s->dsize = fr->dsize;
		s->sized = fr->sized;
		s->src = (const unsigned char *)f->map + fr->off;
		s->csize = (size_t)fr->csize;
		s->cmax = f->map_len - (size_t)fr->off;
		s->from = ZPIPE_NOWHERE;
		f->pushed++;
		p->count++;
		any = true;
	}
	if (any)
		pthread_cond_broadcast(&zp_work);
	return any;
}

static struct zfile *file_new(struct zpipe *p, int id)
{
	struct zfile *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->id = id;
	if (p->last)
		p->last->next = f;
	else
		p->files = f;
	p->last = f;
	return f;
}

struct zfile *zp_file_find(struct zpipe *p, int id)
{
	struct zfile *f = p->files;

	while (f && f->id != id)
		f = f->next;
	return f;
}

int zpipe_add(struct zpipe *p, int id, void *map, size_t len,
	      struct zframe *list, size_t n)
{
	struct zfile *f;

	pthread_mutex_lock(&zp_lock);
	f = file_new(p, id);
	if (f) {
		f->map = map;
		f->map_len = len;
		f->list = list;
		f->n = n;
		f->ended = map != NULL;
		for (size_t i = 0; i < n; i++)
			p->pending += list[i].dsize;
		zp_top_up(p);
	}
	pthread_mutex_unlock(&zp_lock);
	if (!f && map) {	/* its frames are read as a stream then */
		munmap(map, len);
		free(list);
	}
	return f ? 0 : -1;
}

void zpipe_chain(struct zpipe *p, uint64_t off)
{
	pthread_mutex_lock(&zp_lock);
	p->chain = off;
	pthread_mutex_unlock(&zp_lock);
}

uint64_t zpipe_chain_at(struct zpipe *p)
{
	uint64_t off;

	pthread_mutex_lock(&zp_lock);
	off = p->chain;
	pthread_mutex_unlock(&zp_lock);
	return off;
}

int zpipe_threads(const struct zpipe *p)
{
	return p->threads;
}

uint64_t zpipe_pending(struct zpipe *p)
{
	uint64_t n;

	pthread_mutex_lock(&zp_lock);
	n = p->pending;
	pthread_mutex_unlock(&zp_lock);
	return n;
}

int zpipe_reserve(struct zpipe *p, int id, enum zcodec codec, uint64_t off,
		  uint64_t dsize)
{
	int r = -1, b;

	pthread_mutex_lock(&zp_lock);
	while (!p->stopped) {
		struct zslot *s = ring(p, p->count);

		if (p->count < p->depth &&
		    (b = slot_buffer(p, s, dsize == ZPIPE_UNSIZED ? 0 : dsize,
				     p->count + 1)) != 0) {
			if (b > 0) {
				s->state = SLOT_RESERVED;
				s->file = id;
				s->nomem = false;
				s->codec = codec;
				s->off = off;
				s->sized = dsize != ZPIPE_UNSIZED;
				s->bound = s->dsize = s->sized ? dsize : 0;
				p->count++;
			}
			r = b > 0 ? (int)(s - p->slot) : -2;
			break;
		}
		pthread_cond_wait(&p->cv, &zp_lock);
	}
	pthread_mutex_unlock(&zp_lock);
	return r;
}

/* Unmap free slots' compressed buffers while more than room are held. */
static void cbuf_room(struct zpipe *p, uint64_t room)
{
	for (size_t k = p->count; k < ZP_SLOTS && p->cbytes > room; k++)
		buf_unmap(&ring(p, k)->cbuf, &ring(p, k)->ccap, &p->cbytes);
}

unsigned char *zpipe_cbuf(struct zpipe *p, int slot, size_t need)
{
	struct zslot *s = &p->slot[slot];
	size_t want = page_up(need > 2 * s->ccap ? need : 2 * s->ccap);
	unsigned char *b;

	if (s->ccap >= need)
		return s->cbuf;
	if (want > p->budget)
		want = page_up(need);
	if (want > p->budget)
		return NULL;
	pthread_mutex_lock(&zp_lock);
	/* the frames before it hold the rest: room comes as they are served */
	for (;;) {
		cbuf_room(p, p->budget - want + s->ccap);
		if (p->stopped || p->cbytes - s->ccap + want <= p->budget)
			break;
		pthread_cond_wait(&p->cv, &zp_lock);
	}
	if (p->stopped) {
		pthread_mutex_unlock(&zp_lock);
		return NULL;
	}
	p->cbytes += want - s->ccap;
	pthread_mutex_unlock(&zp_lock);
	/* only this producer touches a reserved slot's buffer. Grown by the
	 * kernel, in place or moved, its bytes are neither copied nor faulted
	 * in again: a new buffer and a copy for each doubling touched twice
	 * the frame's size of fresh memory (each page cleared by the kernel)
	 * and copied as much again, all on the one feeding thread */
	b = s->cbuf ? mremap(s->cbuf, s->ccap, want, MREMAP_MAYMOVE)
		    : buf_map(want);
	pthread_mutex_lock(&zp_lock);
	if (b == MAP_FAILED || !b) {
		p->cbytes -= want - s->ccap;
		b = NULL;
	} else {
		s->cbuf = b;
		s->ccap = want;
	}
	pthread_mutex_unlock(&zp_lock);
	return b;
}

int zpipe_commit(struct zpipe *p, int slot, size_t csize, uint64_t bound,
		 bool hand_back)
{
	struct zslot *s = &p->slot[slot];
	int b = 1;

	pthread_mutex_lock(&zp_lock);
	/* reserved last, it is the ring's tail: free slots follow it */
	while (!s->sized && !p->stopped &&
	       (b = slot_buffer(p, s, bound, p->count)) == 0)
		pthread_cond_wait(&p->cv, &zp_lock);
	if (p->stopped) {
		pthread_mutex_unlock(&zp_lock);
		zpipe_cancel(p, slot);
		return -1;
	}
	if (b < 0 && hand_back) {
		pthread_mutex_unlock(&zp_lock);
		return -2;
	}
	if (!s->sized) {
		s->nomem = b < 0;
		s->bound = s->dsize = bound;
	}
	s->src = s->cbuf;
	s->csize = s->cmax = csize;
	s->state = SLOT_QUEUED;
	p->pending += s->bound;
	pthread_cond_broadcast(&zp_work);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&zp_lock);
	return 0;
}

void zpipe_cancel(struct zpipe *p, int slot)
{
	pthread_mutex_lock(&zp_lock);
	p->slot[slot].state = SLOT_FREE;
	p->count--;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&zp_lock);
}

void zpipe_end(struct zpipe *p, int id)
{
	struct zfile *f;

	pthread_mutex_lock(&zp_lock);
	f = zp_file_find(p, id);
	if (f)
		f->ended = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&zp_lock);
}
