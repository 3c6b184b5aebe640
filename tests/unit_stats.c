/*
 * unit_stats.c - stats_kernels against exact rational results
 * (tests/kernel_vectors.h, made by tests/gen_kernel_vectors.py with
 * fractions.Fraction), against integer arithmetic on long streams of
 * integer-valued floats (crossing the kernels' flush blocks), and merged
 * accumulators of every split against one pass.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acc.h"
#include "kernel_vectors.h"
#include "unit.h"

static void *pack(enum gs_type t, const uint64_t *bits, size_t n)
{
	size_t sz = type_size(t);
	uint8_t *buf = malloc(n * sz + 1);

	for (size_t i = 0; i < n; i++)	/* little-endian host */
		memcpy(buf + i * sz, &bits[i], sz);
	return buf;
}

static uint64_t dbits(double d)
{
	uint64_t b;

	memcpy(&b, &d, sizeof b);
	return b;
}

static bool xsum_same(const struct xsum *a, const struct xsum *b)
{
	return memcmp(a->limb, b->limb, sizeof a->limb) == 0 &&
	       a->nan == b->nan && a->pinf == b->pinf && a->ninf == b->ninf;
}

static bool col_same(const struct stats_col *a, const struct stats_col *b)
{
	bool mm = a->count == a->nan ||
		  (a->min.u == b->min.u && a->max.u == b->max.u);

	return a->count == b->count && a->nan == b->nan && mm &&
	       xsum_same(&a->s1, &b->s1) && xsum_same(&a->s2, &b->s2);
}

struct run {
	const struct gs_job *job;
	size_t size;
	void *scratch;
};

static struct stats_col *run_stats(struct run *r, const uint8_t *data,
				   size_t nrec)
{
	struct stats_col *c = malloc(r->size);

	stats_kernels.acc_init(r->job, c);
	stats_kernels.cpu_add(r->job, c, r->scratch, data, NULL, nrec);
	return c;
}

static void check_splits(struct run *r, const uint8_t *data, size_t nrec,
			 const struct stats_col *whole)
{
	size_t rs = job_record_size(r->job);
	unsigned C = r->job->columns;

	for (size_t k = 0; k <= nrec; k++) {
		struct stats_col *a = run_stats(r, data, k);
		struct stats_col *b = run_stats(r, data + k * rs, nrec - k);
		bool ok = true;
		stats_kernels.acc_merge(r->job, a, b);
		for (unsigned c = 0; c < C; c++)
			ok &= col_same(&a[c], &whole[c]);
		CHECKF(ok, "%s split at %zu of %zu", type_name(r->job->dtype.type),
		       k, nrec);
		free(a);
		free(b);
	}
}

static void check_col(const struct gs_job *job, const struct stats_col *c,
		      const struct stats_exp *e, unsigned col)
{
	const char *t = type_name(job->dtype.type);
	char dec[XSUM_DEC_MAX];

	CHECKF(c->count == e->count && c->nan == e->nan, "%s col %u count", t, col);
	if (type_is_float(job->dtype.type)) {
		if (c->count > c->nan)
			CHECKF(dbits(c->min.f) == e->min && dbits(c->max.f) == e->max,
			       "%s col %u min %g max %g", t, col, c->min.f, c->max.f);
		CHECKF(xsum_round(&c->s1, XF_F64) == e->s1, "%s col %u sum %g", t,
		       col, xsum_to_f64(&c->s1));
		CHECKF(xsum_round(&c->s2, XF_F64) == e->s2, "%s col %u sum2 %g", t,
		       col, xsum_to_f64(&c->s2));
		return;
	}
	CHECKF(c->min.u == e->min && c->max.u == e->max, "%s col %u min/max", t,
	       col);
	CHECKF(xsum_to_dec(&c->s1, dec) && strcmp(dec, e->s1_dec) == 0,
	       "%s col %u sum %s", t, col, dec);
	CHECKF(xsum_to_dec(&c->s2, dec) && strcmp(dec, e->s2_dec) == 0,
	       "%s col %u sum2 %s", t, col, dec);
}

static void check_vec(const struct stats_vec *v)
{
	struct gs_job job = {
		.cmd = CMD_STATS, .dtype = { v->type, false }, .columns = v->columns,
	};
	uint8_t *data = pack(v->type, v->bits, v->nrec * v->columns);
	struct run r = { &job, stats_kernels.acc_size(&job), NULL };
	struct stats_col *c;

	r.scratch = malloc(stats_kernels.scratch_size(&job));
	c = run_stats(&r, data, v->nrec);
	for (unsigned j = 0; j < v->columns; j++)
		check_col(&job, &c[j], &v->exp[j], j);
	check_splits(&r, data, v->nrec, c);
	free(c);
	free(r.scratch);
	free(data);
}

/* n integer multiples of 2^-8 as floats of type t, |m| <= 2000 for f16 and
 * < 2^24 otherwise (all exact), whose sums are checked with __int128
 * arithmetic. Long enough to cross the kernels' flush blocks (2^16 records
 * for f32, 2^20 for f64) with squares large enough to overflow 64 bits
 * between flushes if the blocks were longer. */
static void check_long(enum gs_type t, size_t n)
{
	struct gs_job job = { .cmd = CMD_STATS, .dtype = { t, false }, .columns = 1 };
	size_t sz = type_size(t);
	uint8_t *data = malloc(n * sz);
	uint16_t half[4001];
	__int128 s1 = 0, s2 = 0;
	struct xsum w1, w2;
	struct run r = { &job, stats_kernels.acc_size(&job), NULL };
	struct stats_col *c;

	for (uint32_t h = 0xffff; h + 1 > 0; h--) {	/* +0 wins over -0 */
		double m = f16_to_f32((uint16_t)h) * 256;
		if (fabs(m) <= 2000 && m == floor(m))
			half[(int)m + 2000] = (uint16_t)h;
	}
	int mmax = t == GS_F16 ? 2000 : (1 << 24) - 1;

	srand(7);
	for (size_t i = 0; i < n; i++) {
		int m = rand() % (2 * mmax + 1) - mmax;
		double d = ldexp(m, -8);
		float f = (float)d;
		s1 += m;
		s2 += (__int128)m * m;
		if (t == GS_F64)
			memcpy(data + i * sz, &d, sz);
		else if (t == GS_F32)
			memcpy(data + i * sz, &f, sz);
		else
			memcpy(data + i * sz, &half[m + 2000], sz);
	}
	xsum_init(&w1);
	xsum_init(&w2);
	xsum_add_i128(&w1, s1, -8);
	xsum_add_i128(&w2, s2, -16);
	r.scratch = malloc(stats_kernels.scratch_size(&job));
	c = run_stats(&r, data, n);
	CHECKF(xsum_same(&c->s1, &w1) && xsum_same(&c->s2, &w2),
	       "%s long sums, n %zu", type_name(t), n);
	free(c);
	free(r.scratch);
	free(data);
}

int main(void)
{
	size_t nv = sizeof stats_vecs / sizeof stats_vecs[0];

	for (size_t i = 0; i < nv; i++)
		check_vec(&stats_vecs[i]);
	check_long(GS_F32, 500000);
	check_long(GS_F16, 70000);
	check_long(GS_F64, (1u << 20) + 3);
	UNIT_END();
}
