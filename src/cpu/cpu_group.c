/*
 * cpu_group.c - --by COLS: exact per-key states on the CPU (acc.h's
 * struct group_acc).
 *
 * Each record's key columns make its key (order keys, ktable.h: integers
 * by value, floats by value with -0 and +0 one key and every NaN one
 * key); the table gives the key's payload, a struct gcol per value
 * column, and the record's values fold into it as the ungrouped stats
 * folds a column: every element counted, NaNs counted apart, the others
 * into min, max and exact sums of the values and of their squares (struct
 * ksum: 32 bytes while the terms fit, a heap xsum for a key that needs
 * one). So a key's state is exactly the ungrouped state of that key's
 * records, and group_stats and group_sum hand it over in the ungrouped
 * command's own structs, for its own formatting.
 *
 * Each thread folds into its own table; merging walks one table's entries
 * into the other's (exact, so the bits do not depend on threads or
 * chunks). Every table's bytes, and the xsums of widened keys, count
 * against job->group->limit, all threads together: past it the
 * accumulator fails (acc_error) naming the keys and the memory.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "acc.h"
#include "cpu_keys.h"
#include "ksum.h"
#include "ktable.h"
#include "cpu_group.h"


/* The bytes every live table holds, all threads and passes together. */
static _Atomic uint64_t live;

size_t gcol_size(const struct gs_job *job)
{
	switch (job->group->what) {
	case GROUP_COUNT: return offsetof(struct gcol, min);
	case GROUP_MINMAX: return offsetof(struct gcol, s1);
	case GROUP_SUM: return offsetof(struct gcol, s2);
	default: return sizeof(struct gcol);
	}
}

static struct gcol *col_of(const struct gs_job *job, void *pay, unsigned j)
{
	return (struct gcol *)((char *)pay + j * gcol_size(job));
}

static size_t group_acc_size(const struct gs_job *job)
{
	(void)job;
	return sizeof(struct group_acc);
}

static void group_acc_init(const struct gs_job *job, void *acc)
{
	(void)job;
	memset(acc, 0, sizeof(struct group_acc));
}

static void fail(struct group_acc *g, int why, uint64_t bytes)
{
	if (g->failed)
		return;
	g->failed = why;
	g->fail_keys = g->t ? g->t->n : 0;
	g->fail_bytes = bytes;
}

/* Count bytes more (or fewer) held by g against the limit. */
void group_hold(const struct gs_job *job, struct group_acc *g,
		 int64_t bytes)
{
	uint64_t now;

	g->held += (uint64_t)bytes;
	now = atomic_fetch_add(&live, (uint64_t)bytes) + (uint64_t)bytes;
	if (bytes > 0 && now > job->group->limit)
		fail(g, FAIL_LIMIT, now);
}

bool group_table(const struct gs_job *job, struct group_acc *g)
{
	if (g->t)
		return true;
	g->t = malloc(sizeof(*g->t));
	if (!g->t || ktable_init(g->t, job->group->nkeys,
				 gcol_size(job) * job->group->nvals) < 0) {
		free(g->t);
		g->t = NULL;
		fail(g, FAIL_OOM, 0);
		return false;
	}
	group_hold(job, g, (int64_t)ktable_bytes(g->t));
	return true;
}

/* The payload of key, counting a grown table; NULL once g failed. */
void *group_payload(const struct gs_job *job, struct group_acc *g,
		     const uint64_t *key)
{
	size_t before = ktable_bytes(g->t);
	bool fresh;
	void *p = ktable_get(g->t, key, &fresh);

	if (!p) {
		fail(g, FAIL_OOM, 0);
		return NULL;
	}
	if (fresh && ktable_bytes(g->t) != before)
		group_hold(job, g, (int64_t)ktable_bytes(g->t) - (int64_t)before);
	return g->failed ? NULL : p;
}

/* A ksum's step, counting a key that widened to an xsum. */
static bool widened(const struct gs_job *job, struct group_acc *g,
		    const struct ksum *k, bool was_wide, bool ok)
{
	if (!ok) {
		fail(g, FAIL_OOM, 0);
		return false;
	}
	if (!was_wide && k->wide)
		group_hold(job, g, (int64_t)sizeof(struct xsum));
	return !g->failed;
}

static void group_acc_free(const struct gs_job *job, void *acc)
{
	struct group_acc *g = acc;

	if (!g->t)
		return;
	for (size_t i = 0; job->group->what >= GROUP_SUM && i < g->t->n; i++)
		for (unsigned j = 0; j < job->group->nvals; j++) {
			struct gcol *c = col_of(job, ktable_pay(g->t, i), j);

			ksum_free(&c->s1);
			if (job->group->what == GROUP_STATS)
				ksum_free(&c->s2);
		}
	ktable_free(g->t);
	free(g->t);
	g->t = NULL;
	group_hold(job, g, -(int64_t)g->held);
}

/* ---- elements ------------------------------------------------------------ */

/* Where a column's elements are in a record and how to read them, made
 * once per call of group_cpu_add (in its scratch). */
struct colrd {
	size_t off, sz;
	enum gs_type t;
	bool swap, boolean;
};

static struct colrd colrd_of(const struct gs_job *job, unsigned k)
{
	struct gs_dtype d = job_col_dtype(job, k);
	size_t sz = type_size(d.type);

	return (struct colrd){
		.off = job->rec ? job->rec->off[k] : k * sz, .sz = sz,
		.t = d.type, .boolean = d.boolean,
		/* one type's records were swapped already (backend_cpu.c) */
		.swap = job->rec && d.big_endian && sz > 1,
	};
}

/* The column's element of the record at rec, in native order at out (a
 * bool as 0 or 1). */
static void element(const struct colrd *c, const unsigned char *rec,
		    unsigned char *out)
{
	if (c->boolean) {
		out[0] = rec[c->off] != 0;
		return;
	}
	memcpy(out, rec + c->off, c->sz);
	if (c->swap)
		swap_bytes(out, 1, c->sz);
}

static double as_f64(enum gs_type t, const unsigned char *p)
{
	uint16_t h;
	float f;
	double d;

	switch (t) {
	case GS_F16: memcpy(&h, p, 2); return f16_to_f32(h);
	case GS_BF16: memcpy(&h, p, 2); return bf16_to_f32(h);
	case GS_F32: memcpy(&f, p, 4); return f;
	default: memcpy(&d, p, 8); return d;
	}
}

static int64_t as_i64(enum gs_type t, const unsigned char *p)
{
	int8_t a; int16_t b; int32_t c; int64_t d;

	switch (t) {
	case GS_I8: memcpy(&a, p, 1); return a;
	case GS_I16: memcpy(&b, p, 2); return b;
	case GS_I32: memcpy(&c, p, 4); return c;
	default: memcpy(&d, p, 8); return d;
	}
}

static uint64_t as_u64(enum gs_type t, const unsigned char *p)
{
	uint8_t a; uint16_t b; uint32_t c; uint64_t d;

	switch (t) {
	case GS_U8: memcpy(&a, p, 1); return a;
	case GS_U16: memcpy(&b, p, 2); return b;
	case GS_U32: memcpy(&c, p, 4); return c;
	default: memcpy(&d, p, 8); return d;
	}
}

static int64_t f64_key(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof b);
	return key64(b);
}

/* v*v into s exactly: a double's significand squared, or an inf. */
static bool add_square_f64(struct ksum *s, double v)
{
	uint64_t u, m;
	unsigned be;

	memcpy(&u, &v, sizeof(u));
	be = (unsigned)(u >> 52) & 0x7ff;
	if (be == 0x7ff)
		return ksum_add_f64(s, v * v);
	m = (u & 0xfffffffffffffull) | (uint64_t)(be != 0) << 52;
	return ksum_add_u128(s, (unsigned __int128)m * m,
			     2 * ((int)(be + (be == 0)) - 1075), false);
}

/* The min and max of c's non-NaN values with v (first: its first one),
 * in t's order (floats: -0 below +0, as the ungrouped stats and reduce). */
static void minmax(struct gcol *c, enum gs_type t, union gs_scalar v,
		   bool first)
{
	if (first) {
		c->min = c->max = v;
	} else if (type_is_float(t)) {
		if (f64_key(v.f) < f64_key(c->min.f))
			c->min = v;
		if (f64_key(v.f) > f64_key(c->max.f))
			c->max = v;
	} else if (type_is_signed(t)) {
		if (v.i < c->min.i)
			c->min = v;
		if (v.i > c->max.i)
			c->max = v;
	} else {
		if (v.u < c->min.u)
			c->min = v;
		if (v.u > c->max.u)
			c->max = v;
	}
}

/* One value of type t at p into c. */
static bool fold(const struct gs_job *job, struct group_acc *g,
		 struct gcol *c, enum gs_type t, const unsigned char *p)
{
	enum gs_group_what what = job->group->what;
	bool first = c->count == c->nan, w1, w2, ok;
	union gs_scalar v;
	unsigned __int128 sq;

	c->count++;
	if (type_is_float(t)) {
		v.f = as_f64(t, p);
		if (v.f != v.f) {
			c->nan++;
			return true;
		}
	} else if (type_is_signed(t)) {
		v.i = as_i64(t, p);
	} else {
		v.u = as_u64(t, p);
	}
	if (what == GROUP_COUNT)
		return true;
	minmax(c, t, v, first);
	if (what == GROUP_MINMAX)
		return true;
	w1 = c->s1.wide;
	ok = type_is_float(t) ? ksum_add_f64(&c->s1, v.f) :
	     type_is_signed(t) ? ksum_add_i64(&c->s1, v.i) :
	     ksum_add_u64(&c->s1, v.u);
	if (!widened(job, g, &c->s1, w1, ok) || what != GROUP_STATS)
		return !g->failed;
	w2 = c->s2.wide;
	if (type_is_float(t)) {
		ok = add_square_f64(&c->s2, v.f);
	} else {
		uint64_t m = !type_is_signed(t) ? v.u : v.i < 0 ?
			     -(uint64_t)v.i : (uint64_t)v.i;

		sq = (unsigned __int128)m * m;
		ok = ksum_add_u128(&c->s2, sq, 0, false);
	}
	return widened(job, g, &c->s2, w2, ok);
}

static void group_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			  const void *data, const void *data2, size_t nrec)
{
	const struct gs_group *gr = job->group;
	struct group_acc *g = acc;
	const unsigned char *d = data;
	size_t rs = job_record_size(job), cs = gcol_size(job);
	uint64_t *key = scratch;
	struct colrd *kc = (struct colrd *)(key + gr->nkeys), *vc = kc + gr->nkeys;
	unsigned char e[8];

	(void)data2;
	if (g->failed || !group_table(job, g))
		return;
	for (unsigned k = 0; k < gr->nkeys; k++)
		kc[k] = colrd_of(job, gr->key[k]);
	for (unsigned j = 0; j < gr->nvals; j++)
		vc[j] = colrd_of(job, gr->val[j]);
	for (size_t r = 0; r < nrec; r++, d += rs) {
		unsigned char *pay;

		for (unsigned k = 0; k < gr->nkeys; k++) {
			element(&kc[k], d, e);
			key[k] = gkey_of(kc[k].t, e);
		}
		if (!(pay = group_payload(job, g, key)))
			return;
		for (unsigned j = 0; j < gr->nvals; j++, pay += cs) {
			element(&vc[j], d, e);
			if (!fold(job, g, (struct gcol *)pay, vc[j].t, e))
				return;
		}
	}
}

static size_t group_scratch_size(const struct gs_job *job)
{
	return job->group->nkeys * sizeof(uint64_t) +
	       (job->group->nkeys + job->group->nvals) * sizeof(struct colrd);
}

/* ---- merging -------------------------------------------------------------- */

static bool merge_col(const struct gs_job *job, struct group_acc *g,
		      struct gcol *c, const struct gcol *s, enum gs_type t)
{
	enum gs_group_what what = job->group->what;
	bool mine = c->count > c->nan, w1, w2, ok;

	c->count += s->count;
	c->nan += s->nan;
	if (what == GROUP_COUNT || s->count == s->nan)
		return true;	/* nothing more in s */
	minmax(c, t, s->min, !mine);
	minmax(c, t, s->max, false);
	if (what == GROUP_MINMAX)
		return true;
	w1 = c->s1.wide;
	ok = ksum_merge(&c->s1, &s->s1);
	if (!widened(job, g, &c->s1, w1, ok) || what != GROUP_STATS)
		return !g->failed;
	w2 = c->s2.wide;
	ok = ksum_merge(&c->s2, &s->s2);
	return widened(job, g, &c->s2, w2, ok);
}

static void group_acc_merge(const struct gs_job *job, void *acc,
			    const void *src)
{
	struct group_acc *g = acc;
	const struct group_acc *s = src;

	if (s->failed && !g->failed) {
		g->failed = s->failed;
		g->fail_keys = s->fail_keys;
		g->fail_bytes = s->fail_bytes;
	}
	if (g->failed || !s->t || !s->t->n || !group_table(job, g))
		return;
	for (size_t i = 0; i < s->t->n; i++) {
		void *pay = group_payload(job, g, ktable_key(s->t, i));
		const void *from = ktable_pay(s->t, i);

		if (!pay)
			return;
		for (unsigned j = 0; j < job->group->nvals; j++) {
			enum gs_type t = job_col_dtype(job,
						       job->group->val[j]).type;

			if (!merge_col(job, g, col_of(job, pay, j),
				       col_of(job, (void *)from, j), t))
				return;
		}
	}
}

bool group_absorb(const struct gs_job *job, struct group_acc *g,
		  const void *keys, const void *payloads, size_t n)
{
	const uint64_t *k = keys;
	const char *from = payloads;
	size_t step = gcol_size(job) * job->group->nvals;

	if (g->failed || !n || !group_table(job, g))
		return !g->failed;
	for (size_t i = 0; i < n; i++, k += job->group->nkeys, from += step) {
		void *pay = group_payload(job, g, k);

		if (!pay)
			return false;
		for (unsigned j = 0; j < job->group->nvals; j++) {
			enum gs_type t = job_col_dtype(job,
						       job->group->val[j]).type;

			if (!merge_col(job, g, col_of(job, pay, j),
				       col_of(job, (void *)from, j), t))
				return false;
		}
	}
	return !g->failed;
}

void group_fail_spill(struct group_acc *g, uint64_t records, uint64_t keys)
{
	if (g->failed)
		return;
	g->failed = records ? FAIL_SPILL : FAIL_OOM;
	g->fail_keys = keys;
	g->fail_bytes = records;
}

static double mib(uint64_t n)
{
	return (double)n / (double)((uint64_t)1 << 20);
}

static int group_acc_error(const struct gs_job *job, const void *acc,
			   struct gs_err *err)
{
	const struct group_acc *g = acc;

	if (g->failed == FAIL_LIMIT)
		return gs_fail(err, GS_ERUNTIME, "--by", "%llu keys (and "
			       "counting) need %.2f MiB of accumulators, over "
			       "the limit of %.2f MiB (spilling to $TMPDIR is "
			       "not supported yet)",
			       (unsigned long long)g->fail_keys,
			       mib(g->fail_bytes), mib(job->group->limit));
	if (g->failed == FAIL_SPILL)
		return gs_fail(err, GS_ERUNTIME, "--by", "%llu records did not "
			       "fit the GPU's table (%llu keys, f64 values "
			       "from 2^-320 to 2^128) nor its spill area: "
			       "--backend cpu computes them",
			       (unsigned long long)g->fail_bytes,
			       (unsigned long long)g->fail_keys);
	if (g->failed)
		return gs_fail(err, GS_ERUNTIME, "--by", "out of memory after "
			       "%llu keys", (unsigned long long)g->fail_keys);
	return 0;
}

const struct acc_kernels group_kernels = {
	.acc_size = group_acc_size,
	.acc_init = group_acc_init,
	.acc_merge = group_acc_merge,
	.scratch_size = group_scratch_size,
	.cpu_add = group_cpu_add,
	.acc_free = group_acc_free,
	.acc_error = group_acc_error,
};

/* ---- results ------------------------------------------------------------- */

size_t *group_sorted(const struct group_acc *acc, size_t *n, bool *oom)
{
	size_t *idx;

	*n = 0;
	*oom = false;
	if (!acc->t || !acc->t->n)
		return NULL;
	idx = ktable_sorted(acc->t);
	*oom = !idx;
	*n = idx ? acc->t->n : 0;
	return idx;
}

union gs_scalar group_key(const struct gs_job *job,
			  const struct group_acc *acc, size_t i, unsigned k)
{
	enum gs_type t = job_col_dtype(job, job->group->key[k]).type;
	unsigned char v[8] = { 0 };
	union gs_scalar s;

	gkey_value(t, ktable_key(acc->t, i)[k], v);
	if (type_is_float(t))
		s.f = as_f64(t, v);
	else if (type_is_signed(t))
		s.i = as_i64(t, v);
	else
		s.u = as_u64(t, v);
	return s;
}

void group_stats(const struct gs_job *job, const struct group_acc *acc,
		 size_t i, unsigned j, struct stats_col *s)
{
	const struct gcol *c = col_of(job, ktable_pay(acc->t, i), j);

	memset(s, 0, sizeof(*s));
	s->count = c->count;
	s->nan = c->nan;
	if (job->group->what == GROUP_COUNT)
		return;
	s->min = c->min;
	s->max = c->max;
	if (job->group->what < GROUP_SUM)
		return;
	ksum_to_xsum(&c->s1, &s->s1);
	if (job->group->what == GROUP_STATS)
		ksum_to_xsum(&c->s2, &s->s2);
}

void group_reduce(const struct gs_job *job, const struct group_acc *acc,
		  size_t i, unsigned j, enum gs_op op, struct red_col *r)
{
	const struct gcol *c = col_of(job, ktable_pay(acc->t, i), j);

	memset(r, 0, sizeof(*r));
	r->count = c->count;
	if (op == OP_SUM) {
		ksum_to_xsum(&c->s1, &r->u.sum);
		/* a NaN term makes the sum NaN, as the ungrouped sum's */
		r->u.sum.nan = r->u.sum.nan || c->nan;
		return;
	}
	/* min, max: NaN propagates, as numpy's and the ungrouped reduce's */
	r->u.mm.nan = c->nan > 0;
	r->u.mm.v = op == OP_MIN ? c->min : c->max;
}

uint64_t group_count(const struct gs_job *job, const struct group_acc *acc,
		     size_t i)
{
	return col_of(job, ktable_pay(acc->t, i), 0)->count;
}
