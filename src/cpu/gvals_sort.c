/*
 * gvals_sort.c - the radix sorts that order the collected records of
 * quantile, median and mode with --by by key (gvals.h): on one thread
 * (gvals_sort, also the spill's and ktable.c's), and on the threads, the
 * threads' arrays read in place by the first pass.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "gvals.h"
#include "pool.h"

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
	long sz = sysconf(_SC_PAGESIZE);
	uintptr_t page = sz > 0 ? (uintptr_t)sz : 4096, a, e;
	size_t lo, hi;

	slice(s, i, nt, &lo, &hi);
	a = ((uintptr_t)(s->to + lo * s->w) + page - 1) / page * page;
	e = (uintptr_t)(s->to + hi * s->w) / page * page;
#ifdef MADV_POPULATE_WRITE	/* Linux 5.14; elsewhere the scatter's faults */
	if (a < e)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
	(void)a;
	(void)e;
#endif
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
	if (!seg || !s.cnt || !s.span || !(buf[0] = gvals_array(n, rb)))
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
			    !(buf[1 - cur] = gvals_array(n, rb)))
				goto out;
			to = moved ? 1 - cur : cur;
			s.to = buf[to];
			if (!touched[to])
				pool_run(&pool, populate_task, &s);
			touched[to] = true;
			pool_run(&pool, scatter, &s);
			if (!moved)	/* the records are all in buf[0] */
				gvals_let_go(job, g, &pool);
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
		gvals_let_go(job, g, &pool);
	}
	g->w = buf[cur];
	g->n = n;
	g->cap = n ? n : 1;
	buf[cur] = NULL;
	rc = 0;
out:
	for (int i = 0; i < 2; i++)
		if (buf[i])
			gvals_array_free(&pool, buf[i], (n ? n : 1) * rb);
	g->threads = nt;	/* to free g's array on */
	pool_release(&pool);
	free(seg);
	free(s.cnt);
	free(s.span);
	return rc;
}

