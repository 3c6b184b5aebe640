/*
 * cpu_gvals.c - the group-by of quantile, median and mode on the CPU
 * (gvals.h): each record's order keys and select keys appended to the
 * thread's array (spilled as sorted runs past the limit: gvals_spill.c),
 * the arrays moved over by merges (src is the caller's to free after a
 * merge, and left empty) and joined on the threads at the end, and the
 * radix sorts that order them by key.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "colrd.h"
#include "fkeys.h"
#include "gvals.h"
#include "ktable.h"
#include "pool.h"
#include "select.h"
#include "spill_io.h"

#define SIGN64 (1ull << 63)

enum { GV_OK, GV_OOM, GV_SPILL };

/* The bytes every live collection holds, all threads and passes. */
static _Atomic uint64_t live;

struct gvals_form gvals_form_of(const struct gs_job *job)
{
	const struct gs_group *gr = job->group;
	struct gvals_form f = { .w = (size_t)gr->nkeys + gr->nvals,
				.nk = gr->nkeys };
	enum gs_type kt, vt;

	if (gr->nkeys != 1 || gr->nvals != 1 || gr->text)
		return f;
	kt = job_col_dtype(job, gr->key[0]).type;
	vt = job_col_dtype(job, gr->val[0]).type;
	if (type_is_float(kt) || type_size(kt) > 4 || type_size(vt) > 4)
		return f;
	/* a signed key's order key is its value plus 2^63 (ktable.h) */
	f.kbias = type_is_signed(kt) ? SIGN64 - ((uint64_t)1 << 31) : 0;
	f.w = 1;
	f.ks = 32;
	f.packed = true;
	f.vfloat = type_is_float(vt);
	return f;
}

static size_t gvals_acc_size(const struct gs_job *job)
{
	(void)job;
	return sizeof(struct gvals_acc);
}

static void gvals_acc_init(const struct gs_job *job, void *acc)
{
	(void)job;
	memset(acc, 0, sizeof(struct gvals_acc));
}

static void fail(struct gvals_acc *g, int why, uint64_t bytes)
{
	if (g->failed)
		return;
	g->failed = why;
	g->fail_n = gvals_held(g) + g->spilled;
	g->fail_bytes = bytes;
}

/* Room for n more records in g (n at most GVALS_SLICE), counted against the
 * limit: past half of it (the sort's copy is the other half) g's records
 * spill, unless g holds fewer than GVALS_SLICE (every thread may). */
static bool reserve(const struct gs_job *job, struct gvals_acc *g, size_t n)
{
	size_t w = gvals_width(job), cap = g->cap ? g->cap : GVALS_SLICE;
	uint64_t now, grow;
	uint64_t *p;

	if (g->failed)
		return false;
	if (g->n + n <= g->cap)
		return true;
	while (cap < g->n + n)
		cap *= 2;
	grow = (cap - g->cap) * w * 8;
	if (g->cap >= GVALS_SLICE &&
	    atomic_load(&live) + grow > job->group->limit / 2) {
		if (gvals_spill(job, g) < 0) {
			g->err = errno;
			fail(g, GV_SPILL, atomic_load(&live) + grow);
			return false;
		}
		return true;	/* g->n is 0: a slice fits */
	}
	now = atomic_fetch_add(&live, grow) + grow;
	if (!(p = realloc(g->w, cap * w * sizeof(*p)))) {
		atomic_fetch_sub(&live, grow);
		fail(g, GV_OOM, now);
		return false;
	}
	g->w = p;
	g->cap = cap;
	return true;
}

/* ---- big arrays freed on threads ------------------------------------------- */

#define BIG_FREE ((size_t)64 << 20)	/* bytes: past them, on the threads */

struct drop {
	void *p;
	size_t bytes;
};

static void drop_task(void *arg, int i, int nt)
{
	const struct drop *d = arg;
	uintptr_t page = 4096, a = ((uintptr_t)d->p + page - 1) / page * page;
	uintptr_t e = ((uintptr_t)d->p + d->bytes) / page * page;
	size_t np = a < e ? (e - a) / page : 0;
	size_t lo = np / (size_t)nt * (size_t)i;
	size_t hi = i == nt - 1 ? np : np / (size_t)nt * (size_t)(i + 1);

	if (lo < hi)
		(void)madvise((void *)(a + lo * page), (hi - lo) * page,
			      MADV_DONTNEED);
}

/* p freed (bytes of it). A big array's pages are let go on pool's
 * threads first (NULL: none): one thread frees pages at a few GB a
 * second, and madvises of slices run at once where one munmap would
 * not. */
static void free_big(struct pool *pool, void *p, size_t bytes)
{
	struct drop d = { p, bytes };

	if (pool && p && bytes >= BIG_FREE)
		pool_run(pool, drop_task, &d);
	free(p);
}

/* g's parts freed (on pool's threads: see free_big). */
static void free_parts(const struct gs_job *job, struct gvals_acc *g,
		       struct pool *pool)
{
	for (size_t k = 0; k < g->nparts; k++) {
		size_t bytes = g->parts[k].cap * gvals_width(job) * 8;

		atomic_fetch_sub(&live, bytes);
		free_big(pool, g->parts[k].w, bytes);
	}
	free(g->parts);
	g->parts = NULL;
	g->nparts = 0;
}

/* g's own array and parts freed (their records elsewhere, or not
 * wanted), on pool's threads (see free_big). */
static void let_go(const struct gs_job *job, struct gvals_acc *g,
		   struct pool *pool)
{
	size_t bytes = g->cap * gvals_width(job) * 8;

	atomic_fetch_sub(&live, bytes);
	free_big(pool, g->w, bytes);
	g->w = NULL;
	g->n = g->cap = 0;
	free_parts(job, g, pool);
}

static void gvals_acc_free(const struct gs_job *job, void *acc)
{
	struct gvals_acc *g = acc;
	struct pool pool;

	if (g->threads > 1 && (gvals_held(g) + g->cap) * gvals_width(job) * 8 >=
	    BIG_FREE && pool_init(&pool, g->threads) == 0) {
		let_go(job, g, &pool);
		pool_release(&pool);
	}
	let_go(job, g, NULL);	/* what is left */
	gvals_release(job, acc);
}

/* ---- the common shape: one key column, one value column ------------------ */

#define INLINE static inline __attribute__((always_inline))

/* select.h's key of a value of type vt at p (the NaN of a float column:
 * GVALS_NAN). */
INLINE uint64_t vkey_at(enum gs_type vt, const unsigned char *p)
{
	uint32_t u32;
	uint64_t u64;

	switch (vt) {
	case GS_F32:
		memcpy(&u32, p, 4);
		return ieee_is_nan(u32, 0x7f800000) ? GVALS_NAN :
		       fkey_nz(u32, 0x80000000u);
	case GS_F64:
		memcpy(&u64, p, 8);
		return ieee_is_nan(u64, 0x7ff0000000000000ull) ? GVALS_NAN :
		       fkey_nz(u64, SIGN64);
	case GS_I32: memcpy(&u32, p, 4); return u32 ^ 0x80000000u;
	default: memcpy(&u64, p, 8); return u64 ^ SIGN64;
	}
}

INLINE void collect(enum gs_type kt, enum gs_type vt, const unsigned char *d,
		    size_t m, size_t rs, size_t koff, size_t voff, uint64_t *out)
{
	for (size_t r = 0; r < m; r++, d += rs) {
		out[2 * r] = gkey_at(kt, d + koff);
		out[2 * r + 1] = vkey_at(vt, d + voff);
	}
}

/* The packed form's words (gvals.h): a 32-bit key's order key less its
 * type's least, and a 32-bit value's select key. */
INLINE void collect_packed(enum gs_type kt, enum gs_type vt,
			   const unsigned char *d, size_t m, size_t rs,
			   size_t koff, size_t voff, uint64_t *out)
{
	uint32_t k, v;

	for (size_t r = 0; r < m; r++, d += rs) {
		memcpy(&k, d + koff, 4);
		memcpy(&v, d + voff, 4);
		k ^= kt == GS_I32 ? 0x80000000u : 0;
		if (vt == GS_F32)
			v = ieee_is_nan(v, 0x7f800000) ? UINT32_MAX :
			    (uint32_t)fkey_nz(v, 0x80000000u);
		else if (vt == GS_I32)
			v ^= 0x80000000u;
		out[r] = (uint64_t)k << 32 | v;
	}
}

/* m records at d into out as gvals_cpu_add's loop writes them, by a loop
 * made for their key and value types: true, or false (another shape). */
static bool collect_fast(const struct colrd *kc, const struct colrd *vc,
			 const unsigned char *d, size_t m, size_t rs,
			 bool packed, uint64_t *out)
{
	enum gs_type kt = kc->t, vt = vc->t;

	if (kc->swap || kc->boolean || vc->swap || vc->boolean)
		return false;
#define P(K, VT) if (vt == VT) { collect_packed(K, VT, d, m, rs, kc->off, \
						vc->off, out); return true; }
	if (packed) {
		if (kt == GS_I32) { P(GS_I32, GS_F32) P(GS_I32, GS_I32)
				    P(GS_I32, GS_U32) }
		if (kt == GS_U32) { P(GS_U32, GS_F32) P(GS_U32, GS_I32)
				    P(GS_U32, GS_U32) }
		return false;
	}
#undef P
#define V(K, VT) if (vt == VT) { \
		collect(K, VT, d, m, rs, kc->off, vc->off, out); return true; }
#define K(KT) if (kt == KT) { V(KT, GS_F32) V(KT, GS_F64) V(KT, GS_I32) \
		V(KT, GS_I64) return false; }
	K(GS_I32) K(GS_I64) K(GS_U32) K(GS_U64) K(GS_F64)
#undef K
#undef V
	return false;
}

static void gvals_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			  const void *data, const void *data2, size_t nrec)
{
	const struct gs_group *gr = job->group;
	struct gvals_acc *g = acc;
	const unsigned char *d = data;
	struct gvals_form f = gvals_form_of(job);
	size_t rs = job_record_size(job), w = f.w;
	struct colrd *kc = scratch, *vc = kc + gr->nkeys;
	unsigned char e[8];
	uint64_t pk, pv;

	(void)data2;
	for (unsigned k = 0; k < gr->nkeys; k++)
		kc[k] = colrd_of(job, gr->key[k]);
	for (unsigned j = 0; j < gr->nvals; j++)
		vc[j] = colrd_of(job, gr->val[j]);
	for (size_t at = 0; at < nrec;) {
		size_t m = nrec - at < GVALS_SLICE ? nrec - at : GVALS_SLICE;
		uint64_t *out;

		if (!reserve(job, g, m))
			return;
		out = g->w + g->n * w;
		if (gr->nkeys == 1 && gr->nvals == 1 &&
		    collect_fast(kc, vc, d, m, rs, f.packed, out)) {
			g->n += m;
			at += m;
			d += m * rs;
			continue;
		}
		for (size_t r = 0; f.packed && r < m; r++, d += rs) {
			colrd_element(&kc[0], d, e);
			pk = gkey_of(kc[0].t, e) - f.kbias;
			colrd_element(&vc[0], d, e);
			if (!select_key(vc[0].t, e, &pv))
				pv = UINT32_MAX;
			*out++ = pk << 32 | pv;
		}
		for (size_t r = 0; !f.packed && r < m; r++, d += rs) {
			for (unsigned k = 0; k < gr->nkeys; k++) {
				colrd_element(&kc[k], d, e);
				*out++ = gkey_of(kc[k].t, e);
			}
			for (unsigned j = 0; j < gr->nvals; j++) {
				colrd_element(&vc[j], d, e);
				if (!select_key(vc[j].t, e, out))
					*out = GVALS_NAN;
				out++;
			}
		}
		g->n += m;
		at += m;
	}
}

static size_t gvals_scratch_size(const struct gs_job *job)
{
	return ((size_t)job->group->nkeys + job->group->nvals) *
	       sizeof(struct colrd);
}

static void gvals_acc_merge(const struct gs_job *job, void *acc,
			    const void *src)
{
	struct gvals_acc *g = acc;
	/* src's array and runs move over (every caller frees src after
	 * merging it, and a thread's array is the bulk) */
	struct gvals_acc *s = (struct gvals_acc *)src;

	if (s->failed && !g->failed) {
		g->failed = s->failed;
		g->err = s->err;
		g->fail_n = s->fail_n;
		g->fail_bytes = s->fail_bytes;
	}
	if (s->nruns && !g->failed) {
		struct gvals_run *r = realloc(g->runs, (g->nruns + s->nruns) *
					      sizeof(*r));

		if (!r) {
			fail(g, GV_OOM, 0);
			return;
		}
		memcpy(r + g->nruns, s->runs, s->nruns * sizeof(*r));
		g->runs = r;
		g->nruns += s->nruns;
		g->spilled += s->spilled;
		free(s->runs);
		s->runs = NULL;
		s->nruns = 0;
		s->spilled = 0;
	}
	if (g->failed)
		return;
	/* the first array becomes g's own, the rest its parts; an empty
	 * array stays src's to free */
	bool take = s->n && !g->cap;
	size_t more = s->nparts + (s->n && !take);

	if (more) {
		struct gvals_part *p = realloc(g->parts, (g->nparts + more) *
					       sizeof(*p));

		if (!p) {
			fail(g, GV_OOM, 0);
			return;
		}
		g->parts = p;
		if (s->nparts)
			memcpy(p + g->nparts, s->parts, s->nparts * sizeof(*p));
		g->nparts += s->nparts;
		if (s->n && !take)
			p[g->nparts++] = (struct gvals_part){ s->w, s->n, s->cap };
		free(s->parts);
		s->parts = NULL;
		s->nparts = 0;
	}
	if (take) {
		g->w = s->w;
		g->n = s->n;
		g->cap = s->cap;
	}
	if (s->n) {
		s->w = NULL;
		s->n = s->cap = 0;
	}
}

size_t gvals_held(const struct gvals_acc *g)
{
	size_t n = g->n;

	for (size_t i = 0; i < g->nparts; i++)
		n += g->parts[i].n;
	return n;
}

int gvals_join(const struct gs_job *job, struct gvals_acc *g, bool spill)
{
	size_t rb = gvals_width(job) * sizeof(uint64_t), n = gvals_held(g);
	uint64_t *w;

	if (!g->nparts)
		return 0;
	if (spill) {
		for (size_t k = 0; k < g->nparts; k++) {
			struct gvals_part own = { g->w, g->n, g->cap };
			int rc;

			g->w = g->parts[k].w;
			g->n = g->parts[k].n;
			rc = gvals_spill(job, g);
			g->w = own.w;
			g->n = own.n;
			if (rc < 0)
				return -1;
			g->parts[k].n = 0;
		}
	} else {
		if (n > g->cap) {
			if (!(w = realloc(g->w, n * rb))) {
				errno = ENOMEM;
				return -1;
			}
			atomic_fetch_add(&live, (n - g->cap) * rb);
			g->w = w;
			g->cap = n;
		}
		for (size_t k = 0; k < g->nparts; k++) {
			memcpy(g->w + g->n * gvals_width(job), g->parts[k].w,
			       g->parts[k].n * rb);
			g->n += g->parts[k].n;
		}
	}
	free_parts(job, g, NULL);
	return 0;
}

static double mib(uint64_t n)
{
	return (double)n / (double)((uint64_t)1 << 20);
}

static int gvals_acc_error(const struct gs_job *job, const void *acc,
			   struct gs_err *err)
{
	const struct gvals_acc *g = acc;

	if (g->failed == GV_SPILL)
		return gs_fail(err, GS_ERUNTIME, "--by", "%llu records (and "
			       "counting) of every key's values need %.2f MiB, "
			       "over half the limit of %.2f MiB, and spilling "
			       "them to %s failed: %s",
			       (unsigned long long)g->fail_n, mib(g->fail_bytes),
			       mib(job->group->limit), spill_dir(),
			       strerror(g->err));
	if (g->failed)
		return gs_fail(err, GS_ERUNTIME, "--by", "out of memory after "
			       "%llu records", (unsigned long long)g->fail_n);
	return 0;
}

const struct acc_kernels gvals_kernels = {
	.acc_size = gvals_acc_size,
	.acc_init = gvals_acc_init,
	.acc_merge = gvals_acc_merge,
	.scratch_size = gvals_scratch_size,
	.cpu_add = gvals_cpu_add,
	.acc_free = gvals_acc_free,
	.acc_error = gvals_acc_error,
};

/* ---- the sort ------------------------------------------------------------- */

/* Record i of w words from a to slot `to` of b. */
static inline void move(uint64_t *b, size_t to, const uint64_t *a, size_t i,
			size_t w)
{
	if (w == 1) {
		b[to] = a[i];
	} else if (w == 2) {
		b[2 * to] = a[2 * i];
		b[2 * to + 1] = a[2 * i + 1];
	} else {
		for (size_t k = 0; k < w; k++)
			b[to * w + k] = a[i * w + k];
	}
}

/* Each key word's least and largest keys (its bits from ks up) into
 * lo[k] and hi[k]: records [from, to). */
static void key_span(const uint64_t *a, size_t from, size_t to, size_t w,
		     size_t nk, unsigned ks, uint64_t *lo, uint64_t *hi)
{
	for (size_t k = 0; k < nk; k++) {	/* a word at a time: in registers */
		uint64_t l = UINT64_MAX, h = 0;

		for (size_t i = from; i < to; i++) {
			uint64_t x = a[i * w + k] >> ks;

			l = x < l ? x : l;
			h = x > h ? x : h;
		}
		lo[k] = l;
		hi[k] = h;
	}
}

static unsigned span_bytes(uint64_t lo, uint64_t hi)
{
	unsigned b = 0;

	for (uint64_t d = hi - lo; d; d >>= 8)
		b++;
	return b;
}

/* LSD radix over each key word less its least value (the order the same,
 * and only the bytes of its span: keys 0..6999 as i32's order keys take
 * 2 passes, not 8): one read counts every digit, and a digit that every
 * record shares takes no pass; the passes go back and forth between a
 * and tmp. */
bool gvals_sort(uint64_t *a, uint64_t *tmp, size_t n, size_t w, size_t nk,
		unsigned ks)
{
	size_t one_word[8][256];
	uint64_t lo1, hi1, *lo = &lo1, *hi = &hi1;
	size_t (*cnt)[256] = one_word;
	uint64_t *from = a, *to = tmp;

	if (nk > 1 && (!(cnt = calloc(nk * 8, sizeof(*cnt))) ||
		       !(lo = malloc(2 * nk * sizeof(*lo))))) {
		free(cnt == one_word ? NULL : cnt);
		return false;
	}
	hi = nk > 1 ? lo + nk : hi;
	if (nk == 1)
		memset(one_word, 0, sizeof(one_word));
	key_span(a, 0, n, w, nk, ks, lo, hi);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nk; k++) {
			uint64_t x = (a[i * w + k] >> ks) - lo[k];

			for (unsigned b = 0; b < 8; b++)
				cnt[k * 8 + b][(x >> (8 * b)) & 0xff]++;
		}
	for (size_t digit = 0; digit < nk * 8; digit++) {
		size_t word = nk - 1 - digit / 8;
		unsigned shift = (unsigned)(digit % 8) * 8;
		size_t *c = cnt[word * 8 + digit % 8], sum = 0;
		uint64_t base = lo[word];
		bool one = digit % 8 >= span_bytes(lo[word], hi[word]);

		for (unsigned b = 0; b < 256; b++) {
			size_t k = c[b];

			one = one || k == n;	/* every record's byte the same */
			c[b] = sum;
			sum += k;
		}
		if (one)
			continue;
		for (size_t i = 0; i < n; i++)
			move(to, c[(((from[i * w + word] >> ks) - base) >>
				    shift) & 0xff]++, from, i, w);
		uint64_t *t = from;

		from = to;
		to = t;
	}
	if (from != a)
		memcpy(a, from, n * w * sizeof(*a));
	if (nk > 1) {
		free(cnt);
		free(lo);
	}
	return true;
}

/* ---- the sort on threads -------------------------------------------------- */

/* One LSD pass shared by the threads, each a slice of the records: each
 * counts its slice's digits, the offsets go bucket by bucket and within a
 * bucket thread by thread, so the scatter is stable as one thread's. A
 * word's span of at most 16 bits is one pass of that many bits (1,000
 * keys spanning 7,000: one pass, not two), a wider one passes of at most
 * 11 bits (the buckets' lines stay in cache), each word's bits less its
 * least value. */
#define DIGIT_ONE 16
#define DIGIT_MAX 11

struct psort {
	const struct gvals_part *seg;	/* the records: arrays one after another */
	size_t nseg;
	uint64_t *to;
	size_t n, w, nk, word;
	unsigned ks;		/* a key word's key: its bits from ks up */
	unsigned shift;
	uint64_t base;		/* the word's least value */
	uint64_t mask;		/* the digit: (x - base) >> shift & mask */
	uint64_t *span;		/* [thread][4 * nk]: key_span's lo, hi; scratch */
	size_t *cnt;		/* [thread][1 << DIGIT_ONE] */
};

#define DIGIT(s, x) (((((x) >> (s)->ks) - (s)->base) >> (s)->shift) & \
		     (s)->mask)

static void slice(const struct psort *s, int i, int nt, size_t *lo, size_t *hi)
{
	*lo = s->n / (size_t)nt * (size_t)i;
	*hi = i == nt - 1 ? s->n : s->n / (size_t)nt * (size_t)(i + 1);
}

/* Segment k's records within [lo, hi) (records counted across the
 * segments, segment k's first at *at): [*a, *e), false where none. */
static bool seg_part(const struct psort *s, size_t k, size_t at, size_t lo,
		     size_t hi, size_t *a, size_t *e)
{
	*a = lo > at ? lo : at;
	*e = hi < at + s->seg[k].n ? hi : at + s->seg[k].n;
	return *a < *e;
}

static void span_task(void *arg, int i, int nt)
{
	struct psort *s = arg;
	uint64_t *lo = s->span + (size_t)i * 4 * s->nk, *x = lo + 2 * s->nk;
	size_t from, to, at = 0, a, e;

	slice(s, i, nt, &from, &to);
	for (size_t k = 0; k < s->nk; k++) {
		lo[k] = UINT64_MAX;
		lo[s->nk + k] = 0;
	}
	for (size_t g = 0; g < s->nseg; at += s->seg[g++].n) {
		if (!seg_part(s, g, at, from, to, &a, &e))
			continue;
		key_span(s->seg[g].w, a - at, e - at, s->w, s->nk, s->ks, x,
			 x + s->nk);
		for (size_t k = 0; k < s->nk; k++) {
			lo[k] = x[k] < lo[k] ? x[k] : lo[k];
			lo[s->nk + k] = x[s->nk + k] > lo[s->nk + k] ?
					x[s->nk + k] : lo[s->nk + k];
		}
	}
}

static void count_digit(void *arg, int i, int nt)
{
	struct psort *s = arg;
	size_t lo, hi, at = 0, a, e, *c = s->cnt + ((size_t)i << DIGIT_ONE);

	slice(s, i, nt, &lo, &hi);
	memset(c, 0, (s->mask + 1) * sizeof(*c));
	for (size_t g = 0; g < s->nseg; at += s->seg[g++].n) {
		const uint64_t *f = s->seg[g].w + s->word;

		if (seg_part(s, g, at, lo, hi, &a, &e))
			for (size_t r = a - at; r < e - at; r++)
				c[DIGIT(s, f[r * s->w])]++;
	}
}

static void scatter(void *arg, int i, int nt)
{
	struct psort *s = arg;
	size_t lo, hi, at = 0, a, e, *c = s->cnt + ((size_t)i << DIGIT_ONE);

	slice(s, i, nt, &lo, &hi);
	for (size_t g = 0; g < s->nseg; at += s->seg[g++].n) {
		const uint64_t *f = s->seg[g].w;

		if (seg_part(s, g, at, lo, hi, &a, &e))
			for (size_t r = a - at; r < e - at; r++)
				move(s->to, c[DIGIT(s, f[r * s->w + s->word])]++,
				     f, r, s->w);
	}
}

/* No pass needed (every key the same): the segments copied into to. */
static void copy_task(void *arg, int i, int nt)
{
	struct psort *s = arg;
	size_t lo, hi, at = 0, a, e;

	slice(s, i, nt, &lo, &hi);
	for (size_t g = 0; g < s->nseg; at += s->seg[g++].n)
		if (seg_part(s, g, at, lo, hi, &a, &e))
			memcpy(s->to + a * s->w, s->seg[g].w + (a - at) * s->w,
			       (e - a) * s->w * sizeof(*s->to));
}

/* The pages of the pass's destination made on the threads, each its
 * slice (a fault per page in the scatter costs more, on one thread's
 * turn at a time). */
static void populate_task(void *arg, int i, int nt)
{
	struct psort *s = arg;
	size_t lo, hi, page = 4096;
	uintptr_t a, e;

	slice(s, i, nt, &lo, &hi);
	a = ((uintptr_t)(s->to + lo * s->w) + page - 1) / page * page;
	e = (uintptr_t)(s->to + hi * s->w) / page * page;
	if (a < e)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
}

/* The offsets of this pass's digits, bucket by bucket, thread by thread
 * in each: false where every record has the same digit (no pass). */
static bool offsets(struct psort *s, int nt)
{
	size_t sum = 0;

	for (uint64_t b = 0; b <= s->mask; b++) {
		size_t all = 0;

		for (int t = 0; t < nt; t++)
			all += s->cnt[((size_t)t << DIGIT_ONE) + b];
		if (all == s->n)
			return false;
		if (all)
			break;		/* a bucket short of all: a pass */
	}
	for (uint64_t b = 0; b <= s->mask; b++)
		for (int t = 0; t < nt; t++) {
			size_t *c = s->cnt + ((size_t)t << DIGIT_ONE) + b;
			size_t k = *c;

			*c = sum;
			sum += k;
		}
	return true;
}

static uint64_t *big_array(size_t n, size_t rb)
{
	uint64_t *p = malloc((n ? n : 1) * rb);

	if (p)
		atomic_fetch_add(&live, (n ? n : 1) * rb);
	return p;
}

/* On one thread: the parts joined into g's array, sorted there. */
static int sort_one(const struct gs_job *job, struct gvals_acc *g)
{
	struct gvals_form f = gvals_form_of(job);
	size_t rb = f.w * sizeof(uint64_t);
	uint64_t *tmp;
	bool ok;

	if (gvals_join(job, g, false) < 0 ||
	    !(tmp = malloc((g->n ? g->n : 1) * rb)))
		return -1;
	ok = gvals_sort(g->w, tmp, g->n, f.w, f.nk, f.ks);
	free(tmp);
	return ok ? 0 : -1;
}

int gvals_sort_held(const struct gs_job *job, struct gvals_acc *g,
		    int threads)
{
	struct gvals_form f = gvals_form_of(job);
	size_t w = f.w, rb = w * sizeof(uint64_t);
	size_t nk = f.nk, n = gvals_held(g), nseg = 1 + g->nparts;
	struct psort s = { .n = n, .w = w, .nk = nk, .ks = f.ks, .nseg = nseg };
	struct gvals_part *seg, one;
	uint64_t *buf[2] = { NULL, NULL };	/* the passes' arrays */
	bool touched[2] = { false, false };	/* written by a pass */
	int nt = threads, cur = 0, to, rc = -1;
	bool moved = false;
	struct pool pool;

	if (nt < 2 || n < ((size_t)1 << 16) || pool_init(&pool, nt) < 0)
		return sort_one(job, g);
	seg = malloc(nseg * sizeof(*seg));
	s.cnt = malloc(((size_t)nt << DIGIT_ONE) * sizeof(*s.cnt));
	s.span = malloc((size_t)nt * 4 * nk * sizeof(*s.span));
	if (!seg || !s.cnt || !s.span || !(buf[0] = big_array(n, rb)))
		goto out;
	/* the first pass reads the threads' arrays where they are */
	seg[0] = (struct gvals_part){ g->w, g->n, g->cap };
	if (g->nparts)
		memcpy(seg + 1, g->parts, g->nparts * sizeof(*seg));
	s.seg = seg;
	pool_run(&pool, span_task, &s);
	for (int t = 1; t < nt; t++)	/* thread 0's span, the whole one */
		for (size_t k = 0; k < nk; k++) {
			uint64_t *lo = s.span, *x = s.span + (size_t)t * 4 * nk;

			lo[k] = x[k] < lo[k] ? x[k] : lo[k];
			lo[nk + k] = x[nk + k] > lo[nk + k] ? x[nk + k] :
				     lo[nk + k];
		}
	for (size_t word = nk; word-- > 0;) {
		unsigned bits = 0, passes, db;

		s.word = word;
		s.base = s.span[word];
		for (uint64_t d = s.span[nk + word] - s.base; d; d >>= 1)
			bits++;
		if (!bits)
			continue;
		passes = bits <= DIGIT_ONE ? 1 : (bits + DIGIT_MAX - 1) / DIGIT_MAX;
		db = (bits + passes - 1) / passes;
		s.mask = ((uint64_t)1 << db) - 1;
		for (unsigned p = 0; p < passes; p++) {
			s.shift = p * db;
			pool_run(&pool, count_digit, &s);
			if (!offsets(&s, nt))
				continue;
			if (moved && !buf[1 - cur] &&
			    !(buf[1 - cur] = big_array(n, rb)))
				goto out;
			to = moved ? 1 - cur : cur;
			s.to = buf[to];
			if (!touched[to])
				pool_run(&pool, populate_task, &s);
			touched[to] = true;
			pool_run(&pool, scatter, &s);
			if (!moved)	/* the records are all in buf[0] */
				let_go(job, g, &pool);
			else
				cur = 1 - cur;
			moved = true;
			one = (struct gvals_part){ buf[cur], n, n };
			s.seg = &one;
			s.nseg = 1;
		}
	}
	if (!moved) {
		s.to = buf[0];
		pool_run(&pool, copy_task, &s);
		let_go(job, g, &pool);
	}
	g->w = buf[cur];
	g->n = n;
	g->cap = n ? n : 1;
	buf[cur] = NULL;
	rc = 0;
out:
	for (int i = 0; i < 2; i++)
		if (buf[i]) {
			atomic_fetch_sub(&live, (n ? n : 1) * rb);
			free_big(&pool, buf[i], (n ? n : 1) * rb);
		}
	g->threads = nt;	/* to free g's array on */
	pool_release(&pool);
	free(seg);
	free(s.cnt);
	free(s.span);
	return rc;
}

union gs_scalar gvals_key(const struct gs_job *job, unsigned k, uint64_t key)
{
	enum gs_type t = job_col_dtype(job, job->group->key[k]).type;
	union gs_scalar s;

	if (type_is_float(t)) {
		s.f = key == UINT64_MAX ? NAN : ukey_to_f64(key);
	} else if (type_is_signed(t)) {
		s.i = (int64_t)(key ^ SIGN64);
	} else {
		s.u = key;
	}
	return s;
}
