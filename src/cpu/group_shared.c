/*
 * group_shared.c - the shared, partitioned table of a group-by run
 * (group_shared.h); spilling and the final merge are group_spill.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cpu_group.h"
#include "group_shared.h"
#include "pool.h"

/* Partitions: as many as the limit gives GS_PART_MIN each, up to
 * GS_PARTS_MAX (a tiny test limit gets one: every partition's first
 * growth would be past it otherwise). */
static unsigned parts_for(uint64_t limit)
{
	unsigned p = 1;

	while (p < GS_PARTS_MAX && (uint64_t)p * 2 * GS_PART_MIN <= limit)
		p *= 2;
	return p;
}

struct gshared *gs_new(const struct gs_job *job)
{
	struct gshared *sh = calloc(1, sizeof(*sh));
	size_t kb;

	if (!sh)
		return NULL;
	sh->job = job;
	sh->kw = job->group->nkeys;
	sh->psize = gcol_size(job) * job->group->nvals;
	kb = sh->kw * sizeof(uint64_t);
	sh->rec = (sh->psize + kb + 15) / 16 * 16;	/* payloads 16-aligned */
	sh->limit = job->group->limit;
	sh->nparts = parts_for(sh->limit);
	sh->fd = -1;
	atomic_init(&sh->refs, 1);
	atomic_init(&sh->bytes, 0);
	atomic_init(&sh->windows, 0);
	atomic_init(&sh->err, 0);
	pthread_mutex_init(&sh->spill_mu, NULL);
	for (unsigned p = 0; p < sh->nparts; p++) {
		pthread_mutex_init(&sh->part[p].mu, NULL);
		if (ktable_init(&sh->part[p].t, sh->kw, sh->psize) < 0) {
			sh->nparts = p + 1;
			gs_unref(job, sh);
			return NULL;
		}
		atomic_fetch_add(&sh->bytes, ktable_bytes(&sh->part[p].t));
	}
	return sh;
}

void gs_ref(struct gshared *sh)
{
	atomic_fetch_add(&sh->refs, 1);
}

/* The widened keys' xsums of the final run (read back: rare). */
static bool free_pay(void *ctx, const uint64_t *key, unsigned char *pay)
{
	(void)key;
	group_pay_free(ctx, pay);
	return true;
}

void gs_unref(const struct gs_job *job, struct gshared *sh)
{
	if (!sh || atomic_fetch_sub(&sh->refs, 1) != 1)
		return;
	if (!sh->broken) {
		for (unsigned p = 0; p < sh->nparts; p++)
			for (size_t i = 0; i < sh->part[p].t.n; i++)
				group_pay_free(job, ktable_pay(&sh->part[p].t, i));
		if (sh->wides_out && sh->nruns == 1 && !atomic_load(&sh->err))
			(void)gs_walk(sh, free_pay, (void *)job);
	}
	for (unsigned p = 0; p < sh->nparts; p++) {
		ktable_free(&sh->part[p].t);
		pthread_mutex_destroy(&sh->part[p].mu);
	}
	pthread_mutex_destroy(&sh->spill_mu);
	if (sh->fd >= 0)
		close(sh->fd);
	free(sh->runs);
	free(sh->win);
	free(sh);
}

static unsigned part_of(const struct gshared *sh, const uint64_t *key)
{
	return sh->nparts == 1 ? 0 : gs_part(sh, ktable_hash(key, sh->kw));
}

/* The first failure sticks, with the keys and bytes it had. */
static int fail(struct gshared *sh, int err)
{
	int none = 0;

	if (atomic_compare_exchange_strong(&sh->err, &none, err)) {
		sh->err_keys = gs_keys(sh);
		sh->err_bytes = atomic_load(&sh->bytes);
	}
	return -1;
}

uint64_t gs_keys(struct gshared *sh)
{
	uint64_t n = sh->spilled;

	for (unsigned p = 0; p < sh->nparts; p++)
		n += sh->part[p].t.n;
	return n;
}

/* key's payload in partition t (locked), its growth counted. */
static void *get(struct gshared *sh, struct ktable *t, const uint64_t *key,
		 bool *fresh)
{
	size_t before = ktable_bytes(t);
	void *p = ktable_get(t, key, fresh);

	if (ktable_bytes(t) != before)
		atomic_fetch_add(&sh->bytes, ktable_bytes(t) - before);
	return p;
}

/* src's payload into partition t's entry for key (t locked). */
static bool absorb_one(const struct gs_job *job, struct gshared *sh,
		       struct ktable *t, const uint64_t *key,
		       unsigned char *src)
{
	bool fresh;
	unsigned char *dst = get(sh, t, key, &fresh);
	unsigned w;

	if (!dst)
		return false;
	if (fresh) {		/* moved whole, a widened ksum's pointer too */
		memcpy(dst, src, sh->psize);
		memset(src, 0, sh->psize);	/* left empty: nothing to free */
		w = group_pay_wides(job, dst);
	} else {
		unsigned before = group_pay_wides(job, dst);

		if (!group_pay_merge(job, dst, src))
			return false;
		w = group_pay_wides(job, dst) - before;
	}
	if (w)
		atomic_fetch_add(&sh->bytes, (uint64_t)w * sizeof(struct xsum));
	return true;
}

int gs_absorb(const struct gs_job *job, struct gshared *sh,
	      const uint64_t *keys, unsigned char *pays, size_t n,
	      uint32_t *order)
{
	size_t at[GS_PARTS_MAX + 1] = { 0 };
	uint32_t *own = NULL;
	bool ok = true;

	if (atomic_load(&sh->err))
		return -1;
	if (!n)
		return 0;
	if (!order && !(order = own = malloc(n * sizeof(*order))))
		return fail(sh, ENOMEM);
	/* a counting sort of the entries by partition */
	for (size_t i = 0; i < n; i++)
		at[part_of(sh, keys + i * sh->kw) + 1]++;
	for (unsigned p = 0; p < sh->nparts; p++)
		at[p + 1] += at[p];
	for (size_t i = 0; i < n; i++)
		order[at[part_of(sh, keys + i * sh->kw)]++] = (uint32_t)i;
	/* at[p] is now partition p's end; take each lock once */
	for (unsigned p = 0, lo = 0; ok && p < sh->nparts; lo = (unsigned)at[p++]) {
		if (lo == at[p])
			continue;
		pthread_mutex_lock(&sh->part[p].mu);
		for (size_t k = lo; ok && k < at[p]; k++) {
			size_t i = order[k];

			ok = absorb_one(job, sh, &sh->part[p].t, keys + i * sh->kw,
					pays + i * sh->psize);
		}
		pthread_mutex_unlock(&sh->part[p].mu);
	}
	free(own);
	if (!ok)
		return fail(sh, ENOMEM);
	if (gs_held(sh) > sh->limit)
		return gs_spill(job, sh);
	return atomic_load(&sh->err) ? -1 : 0;
}

void *gs_payload(const struct gs_job *job, struct gshared *sh,
		 const uint64_t *key, bool *fresh)
{
	void *p;

	if (atomic_load(&sh->err) ||
	    (gs_held(sh) > sh->limit && gs_spill(job, sh) < 0))
		return NULL;
	p = get(sh, &sh->part[part_of(sh, key)].t, key, fresh);
	if (!p)
		fail(sh, ENOMEM);
	return p;
}

/* ---- reading ---------------------------------------------------------------- */

/* In memory, an entry id is partition << 32 | index (ktable's indices are
 * below 2^32); once spilled (and merged: one run), the record's index. */
static bool spilled(const struct gshared *sh)
{
	return sh->nruns > 0;
}

const uint64_t *gs_key(struct gshared *sh, uint64_t id)
{
	if (!spilled(sh))
		return ktable_key(&sh->part[id >> 32].t, id & UINT32_MAX);
	if (!gs_window(sh, id))
		return NULL;
	return (const uint64_t *)(sh->win + (id - sh->win_lo) * sh->rec + sh->psize);
}

unsigned char *gs_pay(struct gshared *sh, uint64_t id)
{
	if (!spilled(sh))
		return ktable_pay(&sh->part[id >> 32].t, id & UINT32_MAX);
	if (!gs_window(sh, id))
		return NULL;
	return sh->win + (id - sh->win_lo) * sh->rec;
}

/* Partition p's ids in key order, from *o on: the partition is put in
 * that order first, so the results read each partition front to back. */
static bool sorted_part(struct gshared *sh, unsigned p, size_t **o)
{
	struct ktable *t = &sh->part[p].t;

	if (ktable_sort(t) < 0)
		return false;
	for (size_t i = 0; i < t->n; i++)
		*(*o)++ = (size_t)p << 32 | i;
	return true;
}

/* Partitions' sorted ids merged: a partition holds keys of every range. */
static void merge_ids(struct gshared *sh, size_t *a, size_t *b,
		      const size_t *cut, unsigned lo, unsigned hi)
{
	unsigned mid = (lo + hi) / 2;
	size_t i, j, o, e;

	if (hi - lo < 2)
		return;
	merge_ids(sh, a, b, cut, lo, mid);
	merge_ids(sh, a, b, cut, mid, hi);
	i = cut[lo], j = cut[mid], o = cut[lo], e = cut[hi];
	while (i < cut[mid] && j < e) {
		const uint64_t *x = gs_key(sh, a[i]), *y = gs_key(sh, a[j]);
		size_t k = 0;

		while (k + 1 < sh->kw && x[k] == y[k])
			k++;
		b[o++] = y[k] < x[k] ? a[j++] : a[i++];
	}
	while (i < cut[mid])
		b[o++] = a[i++];
	while (j < e)
		b[o++] = a[j++];
	memcpy(a + cut[lo], b + cut[lo], (e - cut[lo]) * sizeof(*a));
}

size_t *gs_sorted(struct gshared *sh, size_t *n, bool *oom)
{
	size_t cut[GS_PARTS_MAX + 1];
	size_t *a, *b, *o;

	*oom = false;
	*n = (size_t)gs_keys(sh);
	if (!*n)
		return NULL;
	a = malloc(*n * sizeof(*a));
	if (a && spilled(sh)) {		/* one run, in order */
		for (size_t i = 0; i < *n; i++)
			a[i] = i;
		return a;
	}
	b = a ? malloc(*n * sizeof(*b)) : NULL;
	o = a;
	for (unsigned p = 0; b && p < sh->nparts; p++) {
		cut[p] = (size_t)(o - a);
		if (!sorted_part(sh, p, &o))
			break;
	}
	cut[sh->nparts] = (size_t)(o - a);
	if (!b || cut[sh->nparts] != *n) {
		free(a);
		free(b);
		*n = 0;
		*oom = true;
		return NULL;
	}
	merge_ids(sh, a, b, cut, 0, sh->nparts);
	free(b);
	return a;
}

/* ---- one entry at a time ------------------------------------------------ */

/* The partitions put in key order, a thread's share at a time. */
struct psort {
	struct gshared *sh;
	_Atomic unsigned next;
	_Atomic bool failed;
};

static void sort_task(void *arg, int i, int n)
{
	struct psort *s = arg;
	unsigned p;

	(void)i;
	(void)n;
	while ((p = atomic_fetch_add(&s->next, 1)) < s->sh->nparts)
		if (ktable_sort(&s->sh->part[p].t) < 0)
			atomic_store(&s->failed, true);
}

int gs_iter_start(struct gshared *sh, struct gs_iter *it, struct pool *pool)
{
	struct psort s = { .sh = sh };

	memset(it, 0, sizeof(*it));
	it->sh = sh;
	if (spilled(sh))
		return 0;
	atomic_init(&s.next, 0);
	atomic_init(&s.failed, false);
	if (pool && sh->nparts > 1)
		pool_run(pool, sort_task, &s);
	else
		sort_task(&s, 0, 1);
	if (atomic_load(&s.failed))
		return -1;
	gs_iter_rewind(it);
	return 0;
}

void gs_iter_rewind(struct gs_iter *it)
{
	struct gshared *sh = it->sh;

	it->next = 0;
	it->n = 0;
	if (spilled(sh))
		return;
	for (unsigned p = 0; p < sh->nparts; p++) {
		struct gs_icur *c = &it->cur[p];

		if (!sh->part[p].t.n)
			continue;
		*c = (struct gs_icur){ .k.key = ktable_key(&sh->part[p].t, 0),
				       .p = p };
		it->heap[it->n++] = &c->k;
	}
	kheap_make(it->heap, it->n, sh->kw);
}

bool gs_iter_next(struct gs_iter *it, uint64_t *id)
{
	struct gshared *sh = it->sh;
	struct gs_icur *c;
	const struct ktable *t;

	if (spilled(sh)) {
		*id = it->next;
		return it->next++ < sh->runs[0].n;
	}
	if (!it->n)
		return false;
	c = (struct gs_icur *)it->heap[0];
	t = &sh->part[c->p].t;
	*id = (uint64_t)c->p << 32 | c->at;
	if (++c->at == t->n)
		it->heap[0] = it->heap[--it->n];
	else
		c->k.key = ktable_key(t, c->at);
	kheap_sift(it->heap, it->n, 0, sh->kw);
	return true;
}

bool gs_walk(struct gshared *sh,
	     bool (*fn)(void *ctx, const uint64_t *key, unsigned char *pay),
	     void *ctx)
{
	if (spilled(sh)) {
		for (uint64_t i = 0; i < sh->runs[0].n; i++) {
			unsigned char *p = gs_pay(sh, i);

			if (!p || !fn(ctx, (const uint64_t *)(p + sh->psize), p))
				return false;
		}
		return true;
	}
	for (unsigned p = 0; p < sh->nparts; p++)
		for (size_t i = 0; i < sh->part[p].t.n; i++)
			if (!fn(ctx, ktable_key(&sh->part[p].t, i),
				ktable_pay(&sh->part[p].t, i)))
				return false;
	return true;
}

/* ---- a block of entries at a time, on threads --------------------------- */

/* The first index of [lo, hi) of t whose key is x or above (hi: none). */
static size_t lower(const struct ktable *t, size_t lo, size_t hi,
		    const uint64_t *x, size_t kw)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (kheap_cmp(ktable_key(t, mid), x, kw) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* cut[p]: where partition p stands after the k keys that come next from
 * at[] on (the partitions' keys from at[] merged; k of them are left).
 * The cut lies in [lo, hi) of each partition: a pivot, the middle key of
 * the widest range, has below it the keys that the partitions' searches
 * count; at most k of them, and it is in the cut with them (the ranges'
 * fronts move up to it), else it and all above it are not (their backs
 * move down). A later pivot lies between the earlier ones, so a search
 * within a range counts as one over the partition would. */
static void select_cut(const struct gshared *sh, const size_t *at,
		       uint64_t k, size_t *cut)
{
	size_t lo[GS_PARTS_MAX], hi[GS_PARTS_MAX], pos[GS_PARTS_MAX];

	for (unsigned p = 0; p < sh->nparts; p++) {
		size_t n = sh->part[p].t.n;

		lo[p] = at[p];
		hi[p] = n - at[p] < k ? n : at[p] + (size_t)k;
	}
	for (;;) {
		unsigned w = 0;
		uint64_t below = 0;
		const uint64_t *x;
		size_t mid;

		for (unsigned p = 1; p < sh->nparts; p++)
			if (hi[p] - lo[p] > hi[w] - lo[w])
				w = p;
		if (hi[w] == lo[w])
			break;
		mid = lo[w] + (hi[w] - lo[w]) / 2;
		x = ktable_key(&sh->part[w].t, mid);
		for (unsigned p = 0; p < sh->nparts; p++) {
			pos[p] = p == w ? mid : lower(&sh->part[p].t, lo[p],
						      hi[p], x, sh->kw);
			below += pos[p] - at[p];
		}
		for (unsigned p = 0; p < sh->nparts; p++)
			if (below < k)
				lo[p] = pos[p] + (p == w);
			else
				hi[p] = pos[p];
	}
	memcpy(cut, lo, sh->nparts * sizeof(*cut));
}

/* The ids of the keys from partitions' a[] to z[] in order into out. */
static void merge_range(const struct gshared *sh, const size_t *a,
			const size_t *z, uint64_t *out)
{
	struct gs_icur cur[GS_PARTS_MAX];
	struct kcur *heap[GS_PARTS_MAX];
	size_t n = 0;

	for (unsigned p = 0; p < sh->nparts; p++) {
		if (a[p] == z[p])
			continue;
		cur[p] = (struct gs_icur){
			.k.key = ktable_key(&sh->part[p].t, a[p]), .p = p,
			.at = a[p] };
		heap[n++] = &cur[p].k;
	}
	kheap_make(heap, n, sh->kw);
	while (n) {
		struct gs_icur *c = (struct gs_icur *)heap[0];

		*out++ = (uint64_t)c->p << 32 | c->at;
		if (++c->at == z[c->p])
			heap[0] = heap[--n];
		else
			c->k.key = ktable_key(&sh->part[c->p].t, c->at);
		kheap_sift(heap, n, 0, sh->kw);
	}
}

struct take {
	const struct gshared *sh;
	size_t at[GS_PARTS_MAX], end[GS_PARTS_MAX];
	uint64_t *ids;
	size_t m;
};

/* Thread i of n: ranks [m i / n, m (i + 1) / n) of the block. */
static void take_task(void *arg, int i, int n)
{
	struct take *tk = arg;
	size_t a[GS_PARTS_MAX], z[GS_PARTS_MAX];
	uint64_t r0 = tk->m * (uint64_t)i / (uint64_t)n;
	uint64_t r1 = tk->m * (uint64_t)(i + 1) / (uint64_t)n;

	select_cut(tk->sh, tk->at, r0, a);
	select_cut(tk->sh, tk->at, r1, z);
	if (i == n - 1)
		memcpy(tk->end, z, tk->sh->nparts * sizeof(*z));
	merge_range(tk->sh, a, z, tk->ids + r0);
}

void gs_iter_take(struct gs_iter *it, uint64_t *ids, size_t m,
		  struct pool *pool)
{
	struct gshared *sh = it->sh;
	struct take tk = { .sh = sh, .ids = ids, .m = m };

	if (spilled(sh) || !pool || pool->n < 2 || m < 1024) {
		for (size_t i = 0; i < m && gs_iter_next(it, &ids[i]); i++)
			;
		return;
	}
	for (unsigned p = 0; p < sh->nparts; p++)
		tk.at[p] = it->cur[p].at;
	pool_run(pool, take_task, &tk);
	/* the heap again, at the cut after the block */
	it->n = 0;
	for (unsigned p = 0; p < sh->nparts; p++) {
		struct gs_icur *c = &it->cur[p];

		c->at = tk.end[p];
		if (c->at == sh->part[p].t.n)
			continue;
		*c = (struct gs_icur){ .k.key = ktable_key(&sh->part[p].t,
							   c->at),
				       .p = p, .at = c->at };
		it->heap[it->n++] = &c->k;
	}
	kheap_make(it->heap, it->n, sh->kw);
}
