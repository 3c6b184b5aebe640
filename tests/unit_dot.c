/*
 * unit_dot.c - dot_kernels (dot A B and --pairs) against exact rational
 * results (tests/kernel_vectors.h, made by tests/gen_kernel_vectors.py with
 * fractions.Fraction), against integer arithmetic on long streams of
 * integer-valued floats (crossing the kernels' flush blocks), merged
 * accumulators of every split against one pass, and f32, bf16 and f16
 * (the stages of 256 pairs of cpu_dot.c) against a plain pair-by-pair
 * reference: stages with and without infinities and NaNs (inf * 0 too),
 * subnormals and zeros of both signs, dot A B and --pairs over several
 * columns, lengths that end in a short stage and runs that cross a
 * widening of the bins; integers of every type against __int128 products
 * (the narrow blocks of 8- and 16-bit ones at their extremes). Everything
 * runs twice: with cpu_portable false (the
 * AVX2 loops where the CPU has them) and true (the portable loops); it is
 * false at the end.
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

/* ---- f32, bf16, f16 against a pair-by-pair reference --------------------- */

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

/* A special of type t: NaN (with some payload), +inf, -inf, or a zero of
 * either sign (for inf * 0). */
static uint32_t special_bits(enum gs_type t, unsigned which)
{
	uint32_t expo = t == GS_F32 ? 0x7f800000u : t == GS_BF16 ? 0x7f80 : 0x7c00;
	uint32_t sign = t == GS_F32 ? 0x80000000u : 0x8000;
	uint32_t mant = t == GS_F32 ? 0x7fffff : t == GS_BF16 ? 0x7f : 0x3ff;

	switch (which % 6) {
	case 0: return expo | 1;			/* smallest payload */
	case 1: return expo;				/* +inf */
	case 2: return sign | expo;			/* -inf */
	case 3: return 0;
	case 4: return sign;
	default: return sign | expo | (mant & (uint32_t)rng()) | 1;
	}
}

/* A finite value of type t: mode 0 anything finite (subnormals and zeros
 * included), 1 one binade ([1, 2) and (-2, -1]), 2 subnormals and zeros,
 * 3 the largest magnitudes, positive (one bin of the products filled to
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

/* dot A B (two) or --pairs over nrec records of C columns of type t:
 * finite values of mode and, with some, a few specials (NaN, infinities
 * and zeros) in every third stage of 256 records, the others having none.
 * Checked against xsum_add_prod_f64 one pair at a time. */
static void check_ref(enum gs_type t, bool two, unsigned C, size_t nrec,
		      unsigned mode, bool some)
{
	struct gs_job job = {
		.cmd = CMD_DOT, .dtype = { t, false }, .columns = C, .two_inputs = two,
	};
	size_t sz = type_size(t), n = nrec * C;
	uint8_t *a = malloc(n * sz + 1), *b = malloc(n * sz + 1);
	unsigned nd = two ? C : C / 2;
	struct xsum *want = malloc(nd * sizeof *want);
	struct run r = { &job, dot_kernels.acc_size(&job), NULL, nd };
	struct dot_col *c;
	bool ok = true;

	for (size_t i = 0; i < n; i++) {
		uint32_t ha = finite_bits(t, mode), hb = finite_bits(t, mode);
		if (some && (i / C >> 8) % 3 == 1 && rng() % 30 == 0)
			ha = special_bits(t, (unsigned)rng());
		if (some && (i / C >> 8) % 3 == 1 && rng() % 30 == 0)
			hb = special_bits(t, (unsigned)rng());
		memcpy(a + i * sz, &ha, sz);	/* little-endian host */
		memcpy(b + i * sz, &hb, sz);
	}
	for (unsigned j = 0; j < nd; j++)
		xsum_init(&want[j]);
	for (size_t k = 0; k < nrec; k++) {
		for (unsigned j = 0; j < nd; j++) {
			uint32_t ha = 0, hb = 0;
			if (two) {
				memcpy(&ha, a + (k * C + j) * sz, sz);
				memcpy(&hb, b + (k * C + j) * sz, sz);
			} else {
				memcpy(&ha, a + (k * C + 2 * j) * sz, sz);
				memcpy(&hb, a + (k * C + 2 * j + 1) * sz, sz);
			}
			xsum_add_prod_f64(&want[j], half_val(t, ha), half_val(t, hb));
		}
	}
	r.scratch = malloc(dot_kernels.scratch_size(&job));
	c = run_dot(&r, a, two ? b : NULL, nrec);
	for (unsigned j = 0; j < nd; j++)
		ok &= c[j].count == nrec && xsum_same(&c[j].s, &want[j]);
	CHECKF(ok, "%s %s ref, %u columns, %zu records, mode %u%s%s",
	       type_name(t), two ? "A B" : "pairs", C, nrec, mode,
	       some ? ", specials" : "", cpu_portable ? " (portable)" : "");
	free(c);
	free(r.scratch);
	free(want);
	free(a);
	free(b);
}

static void check_refs(void)
{
	static const enum gs_type ts[] = { GS_F32, GS_BF16, GS_F16 };
	static const size_t lens[] = { 1, 7, 255, 256, 257, 511, 512, 777, 1000, 2048 + 9 };
	static const unsigned cols[] = { 1, 2, 3, 8, 9, 18 };

	rng_state = 0x9e3779b97f4a7c15ull;
	for (size_t ti = 0; ti < 3; ti++) {
		for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
			for (size_t ci = 0; ci < sizeof cols / sizeof cols[0]; ci++) {
				for (unsigned f = 0; f < 8; f++) {
					check_ref(ts[ti], true, cols[ci], lens[li], f % 4, f & 4);
					if (cols[ci] % 2 == 0)
						check_ref(ts[ti], false, cols[ci], lens[li],
							  f % 4, f & 4);
				}
			}
		}
		/* a widening of the bins (every 2^17 records) and a short end */
		check_ref(ts[ti], true, 1, (1u << 17) + 300, 3, false);	/* past 2^15 a lane if runs were longer */
		check_ref(ts[ti], true, 1, (1u << 17) + 300, 3, true);
		check_ref(ts[ti], false, 2, (1u << 17) + 1, 3, false);
		check_ref(ts[ti], true, 3, (1u << 18) + 77, 0, true);
	}
}

/* Integers against __int128 products added one at a time: every type,
 * dot A B of one and two columns and --pairs of two and four (one dot
 * product of 8- or 16-bit values goes through cpu_dot.c's narrow blocks of
 * 1024), at lengths around the block, with both factors at the type's
 * greatest value, at its least, the two apart, and random, whole and split
 * in three. */
static void check_ints(void)
{
	static const size_t lens[] = { 1, 1023, 1024, 1025, 3 * 1024 + 5, 9000 };
	static const struct { bool two; unsigned C; } shapes[] = {
		{ true, 1 }, { true, 2 }, { false, 2 }, { false, 4 },
	};

	for (enum gs_type t = GS_U8; t <= GS_I64; t++)
		for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
			for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
				for (unsigned fill = 0; fill < 4; fill++) {
					bool two = shapes[si].two, sgn = type_is_signed(t);
					unsigned C = shapes[si].C, nd = two ? C : C / 2;
					struct gs_job job = { .cmd = CMD_DOT, .dtype = { t, false },
							      .columns = C, .two_inputs = two };
					size_t sz = type_size(t), nrec = lens[li], n = nrec * C;
					unsigned bits = 8 * (unsigned)sz, sh = 64 - bits;
					uint64_t hi = sgn ? (1ull << (bits - 1)) - 1 : ~0ull >> sh;
					uint64_t lo = sgn ? ~hi : 0;
					uint64_t *va = malloc(n * 8), *vb = malloc(n * 8);
					struct run r = { &job, dot_kernels.acc_size(&job), NULL, nd };
					struct dot_col *c, *x, *y;
					struct xsum want[4];
					uint8_t *a, *b;
					bool ok = true;

					for (size_t i = 0; i < n; i++) {
						uint64_t u = fill == 0 ? hi : fill == 1 ? lo : rng();
						uint64_t w = fill == 0 ? hi : fill == 1 ? lo
							     : fill == 2 ? hi : rng();

						if (fill == 2)
							u = lo;
						va[i] = sgn ? (uint64_t)((int64_t)(u << sh) >> sh) : u << sh >> sh;
						vb[i] = sgn ? (uint64_t)((int64_t)(w << sh) >> sh) : w << sh >> sh;
					}
					for (unsigned j = 0; j < nd; j++)
						xsum_init(&want[j]);
					for (size_t k = 0; k < nrec; k++)
						for (unsigned j = 0; j < nd; j++) {
							uint64_t p = two ? va[k * C + j] : va[k * C + 2 * j];
							uint64_t q = two ? vb[k * C + j] : va[k * C + 2 * j + 1];

							if (sgn)
								xsum_add_i128(&want[j], (__int128)(int64_t)p * (int64_t)q, 0);
							else
								xsum_add_u128(&want[j], (unsigned __int128)p * q, 0, false);
						}
					a = pack(t, va, n);
					b = pack(t, vb, n);
					r.scratch = malloc(dot_kernels.scratch_size(&job));
					c = run_dot(&r, a, b, nrec);
					for (unsigned j = 0; j < nd; j++)
						ok &= c[j].count == nrec && xsum_same(&c[j].s, &want[j]);
					for (size_t k = 0; k <= nrec; k += nrec / 3 + 1) {
						size_t k2 = k + (nrec - k) / 2, rs = C * sz;

						x = run_dot(&r, a, b, k);
						y = run_dot(&r, a + k * rs, b + k * rs, k2 - k);
						dot_kernels.acc_merge(&job, x, y);
						free(y);
						y = run_dot(&r, a + k2 * rs, b + k2 * rs, nrec - k2);
						dot_kernels.acc_merge(&job, x, y);
						for (unsigned j = 0; j < nd; j++)
							ok &= xsum_same(&x[j].s, &want[j]);
						free(x);
						free(y);
					}
					CHECKF(ok, "%s ints, %s, %u columns, %zu records, fill %u%s",
					       type_name(t), two ? "A B" : "--pairs", C, nrec, fill,
					       cpu_portable ? " (portable)" : "");
					free(c);
					free(r.scratch);
					free(a);
					free(b);
					free(va);
					free(vb);
				}
}

int main(void)
{
	size_t nv = sizeof dot_vecs / sizeof dot_vecs[0];

	for (int portable = 0; portable < 2; portable++) {
		cpu_portable = portable;	/* the AVX2 loops, then the others */
		for (size_t i = 0; i < nv; i++)
			check_vec(&dot_vecs[i]);
		check_long(GS_F32, 300000);
		check_refs();
		check_ints();
	}
	cpu_portable = false;
	check_long(GS_F64, (1u << 20) + 5);
	UNIT_END();
}
