/*
 * unit_stats.c - stats_kernels against exact rational results
 * (tests/kernel_vectors.h, made by tests/gen_kernel_vectors.py with
 * fractions.Fraction), against integer arithmetic on long streams of
 * integer-valued floats (crossing the kernels' flush blocks), merged
 * accumulators of every split against one pass, and f32, bf16 and f16
 * (the stages of 256 values of cpu_stats.c) against a plain value-by-value
 * reference: stages with and without infinities and NaNs, all-NaN stages
 * and columns, subnormals and zeros of both signs, several columns, lengths
 * that end in a short stage and runs that cross a widening of the bins;
 * integers of every type against one value at a time (the narrow blocks
 * of 8- and 16-bit ones at their extremes).
 * Everything runs twice: with cpu_portable false (the AVX2 loops where the
 * CPU has them) and true (the portable loops); it is false at the end.
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

/* ---- f32, bf16, f16 against a value-by-value reference ------------------ */

static uint64_t rng_state = 1;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* The value of element bits h of type t (f32, bf16 or f16) as a double. */
static double half_val(enum gs_type t, uint32_t h)
{
	float f;

	if (t == GS_F16)
		return f16_to_f32((uint16_t)h);
	if (t == GS_BF16)
		h <<= 16;
	memcpy(&f, &h, sizeof f);
	return f;
}

/* A special of type t: NaN (with some payload), +inf or -inf. */
static uint32_t special_bits(enum gs_type t, unsigned which)
{
	uint32_t expo = t == GS_F32 ? 0x7f800000u : t == GS_BF16 ? 0x7f80 : 0x7c00;
	uint32_t sign = t == GS_F32 ? 0x80000000u : 0x8000;
	uint32_t mant = t == GS_F32 ? 0x7fffff : t == GS_BF16 ? 0x7f : 0x3ff;

	switch (which % 4) {
	case 0: return expo | 1;			/* smallest payload */
	case 1: return expo;				/* +inf */
	case 2: return sign | expo;			/* -inf */
	default: return sign | expo | (mant & (uint32_t)rng()) | 1;
	}
}

/* A finite value of type t: mode 0 anything finite (subnormals and zeros
 * included), 1 one binade ([1, 2) and (-2, -1]), 2 subnormals and zeros,
 * 3 the largest magnitudes, positive (one bin of the squares filled to
 * near its bound between widenings). */
static uint32_t finite_bits(enum gs_type t, unsigned mode)
{
	unsigned w = t == GS_F32 ? 32 : 16, mb = t == GS_F32 ? 23 : t == GS_BF16 ? 7 : 10;
	uint32_t emax = (1u << (w - 1 - mb)) - 1, bias = emax >> 1;
	uint32_t r = (uint32_t)rng(), sign = (r & 1) << (w - 1);
	uint32_t mant = (uint32_t)(rng() >> 11) & ((1u << mb) - 1), e;

	switch (mode) {
	case 1: e = bias; break;
	case 2: e = 0; if (r & 2) mant = 0; break;
	case 3: e = emax - 1; mant |= (1u << mb) - 2; sign = 0; break;
	default: e = (uint32_t)(rng() >> 20) % emax; break;
	}
	return sign | e << mb | mant;
}

static uint64_t dkey(double d)
{
	uint64_t b = dbits(d);

	return b >> 63 ? ~b : b | 1ull << 63;	/* unsigned order, -0 < +0 */
}

/* Flags of what a data set holds. */
enum { SP_SOME = 1, SP_NANSTAGE = 2, SP_NANCOL = 4 };

/* nrec records of C columns of type t: finite values of mode, and with
 * SP_SOME a few specials in every third stage of 256 records (the others
 * have none), SP_NANSTAGE records [256, 512) of column 0 all NaN,
 * SP_NANCOL column 1 all NaN. Checked against xsum_add_f64 and
 * xsum_add_prod_f64 one value at a time. */
static void check_ref(enum gs_type t, unsigned C, size_t nrec, unsigned mode,
		      unsigned flags)
{
	struct gs_job job = { .cmd = CMD_STATS, .dtype = { t, false }, .columns = C };
	size_t sz = type_size(t), n = nrec * C;
	uint8_t *data = malloc(n * sz + 1);
	struct stats_col *want = calloc(C, sizeof *want);
	uint64_t *kmin = malloc(C * sizeof *kmin), *kmax = malloc(C * sizeof *kmax);
	struct run r = { &job, stats_kernels.acc_size(&job), NULL };
	struct stats_col *c;
	bool ok = true;

	for (unsigned j = 0; j < C; j++) {
		xsum_init(&want[j].s1);
		xsum_init(&want[j].s2);
		want[j].count = nrec;
		kmin[j] = UINT64_MAX;
		kmax[j] = 0;
	}
	for (size_t k = 0; k < nrec; k++) {
		for (unsigned j = 0; j < C; j++) {
			uint32_t h = finite_bits(t, mode);
			if ((flags & SP_SOME) && (k >> 8) % 3 == 1 && rng() % 40 == 0)
				h = special_bits(t, (unsigned)rng());
			if ((flags & SP_NANSTAGE) && j == 0 && k >= 256 && k < 512)
				h = special_bits(t, 0);
			if ((flags & SP_NANCOL) && j == 1)
				h = special_bits(t, 3);
			memcpy(data + (k * C + j) * sz, &h, sz);	/* little-endian */
			double v = half_val(t, h);
			if (isnan(v)) {
				want[j].nan++;
				continue;
			}
			xsum_add_f64(&want[j].s1, v);
			xsum_add_prod_f64(&want[j].s2, v, v);
			if (dkey(v) < kmin[j]) {
				kmin[j] = dkey(v);
				want[j].min.f = v;
			}
			if (dkey(v) > kmax[j]) {
				kmax[j] = dkey(v);
				want[j].max.f = v;
			}
		}
	}
	r.scratch = malloc(stats_kernels.scratch_size(&job));
	c = run_stats(&r, data, nrec);
	for (unsigned j = 0; j < C; j++)
		ok &= col_same(&c[j], &want[j]);
	CHECKF(ok, "%s ref, %u columns, %zu records, mode %u, flags %u%s",
	       type_name(t), C, nrec, mode, flags,
	       cpu_portable ? " (portable)" : "");
	free(c);
	free(r.scratch);
	free(kmin);
	free(kmax);
	free(want);
	free(data);
}

static void check_refs(void)
{
	static const enum gs_type ts[] = { GS_F32, GS_BF16, GS_F16 };
	static const size_t lens[] = { 1, 7, 255, 256, 257, 511, 512, 777, 1000, 2048 + 9 };
	static const unsigned cols[] = { 1, 2, 3, 8, 9 };

	rng_state = 0x9e3779b97f4a7c15ull;
	for (size_t ti = 0; ti < 3; ti++) {
		for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
			for (size_t ci = 0; ci < sizeof cols / sizeof cols[0]; ci++) {
				for (unsigned f = 0; f < 8; f++)
					check_ref(ts[ti], cols[ci], lens[li], f % 4, f);
			}
		}
		/* a widening of the bins (every 2^19 records) and a short end */
		check_ref(ts[ti], 1, (1u << 19) + 300, 3, 0);	/* lanes filled past 2^16 if runs were longer */
		check_ref(ts[ti], 1, (1u << 19) + 300, 3, SP_SOME);
		check_ref(ts[ti], 3, (1u << 19) + 1, 0, SP_SOME | SP_NANCOL);
	}
}

/* Integers against one value at a time into xsums: every type, one column
 * (8- and 16-bit ones through cpu_stats.c's narrow blocks of 1024) and
 * several (2, 3, 4 and 8 through its 48 lanes, 5 not), at lengths around
 * the blocks, filled with the type's greatest value, its
 * least, both in turn, and random ones, whole and split in three. */
static void check_ints(void)
{
	static const size_t lens[] = { 1, 1023, 1024, 1025, 3 * 1024 + 5, 20000 };

	static const unsigned cols[] = { 1, 2, 3, 4, 5, 8 };

	for (enum gs_type t = GS_U8; t <= GS_I64; t++)
		for (size_t ci = 0; ci < sizeof cols / sizeof cols[0]; ci++)
			for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
				for (unsigned fill = 0; fill < 4; fill++) {
					unsigned C = cols[ci];
					struct gs_job job = { .cmd = CMD_STATS, .dtype = { t, false }, .columns = C };
					size_t sz = type_size(t), nrec = lens[li], n = nrec * C;
					unsigned bits = 8 * (unsigned)sz;
					bool sgn = type_is_signed(t);
					uint64_t hi = sgn ? (1ull << (bits - 1)) - 1 : bits == 64 ? ~0ull : (1ull << bits) - 1;
					uint64_t lo = sgn ? ~hi : 0;	/* sign-extended */
					uint64_t *v = malloc(n * sizeof *v);
					struct stats_col *want = calloc(C, sizeof *want);
					struct run r = { &job, stats_kernels.acc_size(&job), NULL };
					struct stats_col *c, *a, *b;
					uint8_t *data;
					bool ok = true;

					for (size_t i = 0; i < n; i++) {
						uint64_t x = fill == 0 ? hi : fill == 1 ? lo
							     : fill == 2 ? (i & 1 ? lo : hi) : rng();
						unsigned sh = 64 - bits;
						v[i] = sgn ? (uint64_t)((int64_t)(x << sh) >> sh)
							   : x << sh >> sh;
					}
					for (unsigned j = 0; j < C; j++) {
						xsum_init(&want[j].s1);
						xsum_init(&want[j].s2);
						want[j].count = nrec;
					}
					for (size_t i = 0; i < n; i++) {
						struct stats_col *w = &want[i % C];
						int64_t x = (int64_t)v[i];
						uint64_t m = sgn && x < 0 ? -v[i] : v[i];

						if (sgn)
							xsum_add_i128(&w->s1, x, 0);
						else
							xsum_add_u128(&w->s1, v[i], 0, false);
						xsum_add_u128(&w->s2, (unsigned __int128)m * m, 0, false);
						if (i < C || (sgn ? x < w->min.i : v[i] < w->min.u))
							w->min.u = v[i];
						if (i < C || (sgn ? x > w->max.i : v[i] > w->max.u))
							w->max.u = v[i];
					}
					data = pack(t, v, n);
					r.scratch = malloc(stats_kernels.scratch_size(&job));
					c = run_stats(&r, data, nrec);
					for (unsigned j = 0; j < C; j++)
						ok &= col_same(&c[j], &want[j]);
					for (size_t k = 0; k <= nrec; k += nrec / 3 + 1) {
						size_t k2 = k + (nrec - k) / 2;

						a = run_stats(&r, data, k);
						b = run_stats(&r, data + k * sz * C, k2 - k);
						stats_kernels.acc_merge(&job, a, b);
						free(b);
						b = run_stats(&r, data + k2 * sz * C, nrec - k2);
						stats_kernels.acc_merge(&job, a, b);
						for (unsigned j = 0; j < C; j++)
							ok &= col_same(&a[j], &want[j]);
						free(a);
						free(b);
					}
					CHECKF(ok, "%s ints, %u columns, %zu records, fill %u%s",
					       type_name(t), C, nrec, fill,
					       cpu_portable ? " (portable)" : "");
					free(c);
					free(r.scratch);
					free(data);
					free(want);
					free(v);
				}
}

int main(void)
{
	size_t nv = sizeof stats_vecs / sizeof stats_vecs[0];

	for (int portable = 0; portable < 2; portable++) {
		cpu_portable = portable;	/* the AVX2 loops, then the others */
		for (size_t i = 0; i < nv; i++)
			check_vec(&stats_vecs[i]);
		check_long(GS_F32, 500000);
		check_long(GS_F32, (1u << 19) + 1000);	/* past a widening */
		check_long(GS_F16, 70000);
		check_refs();
		check_ints();
	}
	cpu_portable = false;
	check_long(GS_F64, (1u << 20) + 3);
	UNIT_END();
}
