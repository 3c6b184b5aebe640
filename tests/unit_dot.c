/*
 * unit_dot.c - dot_kernels (dot A B and --pairs) against exact rational
 * results (tests/kernel_vectors.h, made by tests/gen_kernel_vectors.py with
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

static bool xsum_same(const struct xsum *a, const struct xsum *b)
{
	return memcmp(a->limb, b->limb, sizeof a->limb) == 0 &&
	       a->nan == b->nan && a->pinf == b->pinf && a->ninf == b->ninf;
}

struct run {
	const struct gs_job *job;
	size_t size;
	void *scratch;
	unsigned ndot;
};

static struct dot_col *run_dot(struct run *r, const uint8_t *a,
			       const uint8_t *b, size_t nrec)
{
	struct dot_col *c = malloc(r->size);

	dot_kernels.acc_init(r->job, c);
	dot_kernels.cpu_add(r->job, c, r->scratch, a, b, nrec);
	return c;
}

static void check_splits(struct run *r, const uint8_t *a, const uint8_t *b,
			 size_t nrec, const struct dot_col *whole)
{
	size_t rs = job_record_size(r->job);

	for (size_t k = 0; k <= nrec; k++) {
		struct dot_col *x = run_dot(r, a, b, k);
		struct dot_col *y = run_dot(r, a + k * rs, b + k * rs, nrec - k);
		bool ok = true;
		dot_kernels.acc_merge(r->job, x, y);
		for (unsigned j = 0; j < r->ndot; j++)
			ok &= x[j].count == whole[j].count &&
			      xsum_same(&x[j].s, &whole[j].s);
		CHECKF(ok, "%s split at %zu of %zu", type_name(r->job->dtype.type),
		       k, nrec);
		free(x);
		free(y);
	}
}

static void check_vec(const struct dot_vec *v)
{
	struct gs_job job = {
		.cmd = CMD_DOT, .dtype = { v->type, false }, .columns = v->columns,
		.two_inputs = v->two_inputs,
	};
	size_t n = v->nrec * v->columns;
	uint8_t *a = pack(v->type, v->a, n), *b = pack(v->type, v->b, n);
	struct run r = { &job, dot_kernels.acc_size(&job), NULL,
			 v->two_inputs ? v->columns : v->columns / 2 };
	const char *t = type_name(v->type);
	char dec[XSUM_DEC_MAX];
	struct dot_col *c;

	r.scratch = malloc(dot_kernels.scratch_size(&job));
	c = run_dot(&r, a, b, v->nrec);
	CHECK(r.size == r.ndot * sizeof(struct dot_col));
	for (unsigned j = 0; j < r.ndot; j++) {
		CHECKF(c[j].count == v->nrec, "%s dot %u count", t, j);
		if (type_is_float(v->type))
			CHECKF(xsum_round(&c[j].s, XF_F64) == v->exp[j].f,
			       "%s %s dot %u: %g", t, v->two_inputs ? "A B" : "pairs",
			       j, xsum_to_f64(&c[j].s));
		else
			CHECKF(xsum_to_dec(&c[j].s, dec) &&
			       strcmp(dec, v->exp[j].dec) == 0,
			       "%s %s dot %u: %s", t, v->two_inputs ? "A B" : "pairs",
			       j, dec);
	}
	check_splits(&r, a, b, v->nrec, c);
	free(c);
	free(r.scratch);
	free(a);
	free(b);
}

/* --pairs over n records of integer multiples of 2^-8 in [0, 2^24) in
 * magnitude (exact in f32 and f64), checked with __int128 arithmetic; long
 * enough to cross the flush blocks (2^15 records for f32, 2^20 for f64)
 * with products that would overflow an int64 bin between flushes if the
 * blocks were longer. */
static void check_long(enum gs_type t, size_t n)
{
	struct gs_job job = { .cmd = CMD_DOT, .dtype = { t, false }, .columns = 2 };
	size_t sz = type_size(t);
	uint8_t *data = malloc(2 * n * sz);
	__int128 s = 0;
	struct xsum w;
	struct run r = { &job, dot_kernels.acc_size(&job), NULL, 1 };
	struct dot_col *c;
	int m[2], mmax = (1 << 24) - 1;

	srand(11);
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < 2; k++) {
			m[k] = rand() % (mmax + 1);	/* one sign: no cancelling */
			double d = ldexp(m[k], -8);
			float f = (float)d;
			memcpy(data + (2 * i + k) * sz, t == GS_F64 ? (void *)&d
								  : (void *)&f, sz);
		}
		s += (__int128)m[0] * m[1];
	}
	xsum_init(&w);
	xsum_add_i128(&w, s, -16);
	r.scratch = malloc(dot_kernels.scratch_size(&job));
	c = run_dot(&r, data, NULL, n);
	CHECKF(xsum_same(&c->s, &w), "%s long dot, n %zu", type_name(t), n);
	free(c);
	free(r.scratch);
	free(data);
}

int main(void)
{
	size_t nv = sizeof dot_vecs / sizeof dot_vecs[0];

	for (size_t i = 0; i < nv; i++)
		check_vec(&dot_vecs[i]);
	check_long(GS_F32, 300000);
	check_long(GS_F64, (1u << 20) + 5);
	UNIT_END();
}
