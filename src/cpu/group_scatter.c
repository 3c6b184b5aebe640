/*
 * group_scatter.c - a thread's records into the run's table by partition
 * (group_scatter.h).
 *
 * A partition's buffer is folded once it holds BATCH entries, if its
 * lock is free; else the thread goes on filling it, trying the lock again
 * now and then, and waits for it only once the buffer is full (twice
 * BATCH), so threads seldom wait on each other.
 */
#include <stdlib.h>
#include <string.h>
#include "cpu_group.h"
#include "group_scatter.h"

/* A partition's flush, at most: long, so that the partition's table,
 * loaded into the cache by the flush's first lookups, serves many records
 * before it leaves it (4,096: about one a key at a million keys and 256
 * partitions; 2,048 and 512 were slower). */
#define BATCH 4096u
#define BATCH_MIN 8u
#define RETRY 32u		/* entries between tries of a busy lock */

static size_t esize_of(const struct gshared *sh, size_t vbytes)
{
	return sh->kw * sizeof(uint64_t) + (vbytes + 7) / 8 * 8;
}

/* A partition's batch of entries of esize bytes within budget bytes of
 * buffers (nparts of twice the batch each). */
static size_t batch_of(const struct gshared *sh, size_t esize, uint64_t budget)
{
	uint64_t share = budget / (sh->nparts * 2 * esize);

	return share > BATCH ? BATCH : share < BATCH_MIN ? BATCH_MIN :
	       (size_t)share;
}

uint64_t gscatter_bytes(const struct gshared *sh, size_t vbytes,
			uint64_t budget)
{
	size_t esize = esize_of(sh, vbytes), cap = 2 * batch_of(sh, esize, budget);

	return (uint64_t)cap * (sh->nparts * esize + sizeof(uint64_t) +
				sizeof(uint32_t)) + sh->nparts * sizeof(uint32_t);
}

struct gscatter *gscatter_new(const struct gs_job *job, struct gshared *sh,
			      size_t vbytes, uint64_t budget,
			      gscatter_fold fold)
{
	struct gscatter *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->job = job;
	s->sh = sh;
	s->fold = fold;
	s->esize = esize_of(sh, vbytes);
	s->batch = batch_of(sh, s->esize, budget);
	s->cap = 2 * s->batch;
	s->buf = malloc(sh->nparts * s->cap * s->esize);
	s->n = calloc(sh->nparts, sizeof(*s->n));
	s->h = malloc(s->cap * sizeof(*s->h));
	s->idx = malloc(s->cap * sizeof(*s->idx));
	if (!s->buf || !s->n || !s->h || !s->idx) {
		gscatter_free(s);
		return NULL;
	}
	return s;
}

void gscatter_free(struct gscatter *s)
{
	if (!s)
		return;
	free(s->buf);
	free(s->n);
	free(s->h);
	free(s->idx);
	free(s);
}

/* Partition p's buffer folded into its table, whose lock the caller took
 * (and this releases); its growth counted, a spill where it is past the
 * limit. */
static bool flush(struct gscatter *s, unsigned p)
{
	struct gshared *sh = s->sh;
	struct ktable *t = &sh->part[p].t;
	const unsigned char *e = s->buf + (size_t)p * s->cap * s->esize;
	size_t n = s->n[p], before = ktable_bytes(t), after;
	size_t words = s->esize / sizeof(uint64_t);
	unsigned wides = 0;
	bool ok;

	if (s->hashed)
		for (size_t i = 0; i < n; i++)
			s->h[i] = ((const uint64_t *)e)[i * words + words - 1] >> 32;
	ok = !atomic_load(&sh->err) &&
	     (s->hashed ? ktable_find_hashed : ktable_find)(
		     t, (const uint64_t *)e, words, n, s->h, s->idx) == 0 &&
	     s->fold(s->ctx, s->job, t, e, s->esize, n, s->idx, &wides);

	after = ktable_bytes(t);
	pthread_mutex_unlock(&sh->part[p].mu);
	s->n[p] = 0;
	if (after != before)
		atomic_fetch_add(&sh->bytes, after - before);
	if (wides)
		atomic_fetch_add(&sh->bytes, (uint64_t)wides * sizeof(struct xsum));
	if (!ok)
		return false;
	if (gs_held(sh) > sh->limit && gs_spill(s->job, sh) < 0)
		return false;
	return !atomic_load(&sh->err);
}

bool gscatter_full(struct gscatter *s, unsigned p)
{
	pthread_mutex_t *mu = &s->sh->part[p].mu;
	size_t n = s->n[p];

	if (n < s->cap) {
		if ((n - s->batch) % RETRY || pthread_mutex_trylock(mu))
			return true;	/* busy: later */
	} else {
		pthread_mutex_lock(mu);
	}
	if (flush(s, p))
		return true;
	memset(s->n, 0, s->sh->nparts * sizeof(*s->n));	/* failed: dropped */
	return false;
}

bool gscatter_drain(struct gscatter *s)
{
	unsigned np = s->sh->nparts, first = (unsigned)((uintptr_t)s >> 6) % np;

	/* the free locks first, from a place of the thread's own */
	for (int wait = 0; wait < 2; wait++)
		for (unsigned i = 0; i < np; i++) {
			unsigned p = (first + i) % np;
			pthread_mutex_t *mu = &s->sh->part[p].mu;

			if (!s->n[p])
				continue;
			if (!wait && pthread_mutex_trylock(mu))
				continue;
			if (wait)
				pthread_mutex_lock(mu);
			if (!flush(s, p)) {
				memset(s->n, 0, np * sizeof(*s->n));
				return false;
			}
		}
	return true;
}
