/*
 * unit_minmax.c - reduce --op min and max of one column (cpu_reduce.c's
 * vectorized blocks) against a plain loop, for every type, in the AVX2 and
 * the portable loops, on streams of every length around the block size,
 * fed whole and in pieces: floats with and without NaNs, infinities, both
 * zeros and subnormals; integers over their whole range.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acc.h"
#include "cpu_red.h"
#include "unit.h"

#define PLANT 1000000u

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A value of float type t as bits: mostly ordinary, with a special one
 * (NaN of either sign, an infinity, a zero, a subnormal) about once in
 * every `rare` values (never when rare is 0); special number `kind` (0 to
 * 7) when kind is not -1. */
static uint64_t float_bits(enum gs_type t, unsigned rare, int kind)
{
	static const uint64_t f32s[] = { 0x7fc00000, 0xff800001, 0x7f800000,
					 0xff800000, 0x00000000, 0x80000000,
					 0x00000001, 0x807fffff };
	static const uint64_t f64s[] = { 0x7ff8000000000000ull,
					 0xfff0000000000001ull,
					 0x7ff0000000000000ull,
					 0xfff0000000000000ull, 0,
					 0x8000000000000000ull, 1,
					 0x800fffffffffffffull };
	static const uint64_t h16s[] = { 0x7e00, 0xfc01, 0x7c00, 0xfc00, 0,
					 0x8000, 1, 0x83ff };
	static const uint64_t b16s[] = { 0x7fc0, 0xff81, 0x7f80, 0xff80, 0,
					 0x8000, 1, 0x807f };
	uint64_t r = next();
	bool special = kind >= 0 || (rare && r % rare == 0);
	unsigned k = kind >= 0 ? (unsigned)kind : (unsigned)(r >> 32) % 8;

	switch (t) {
	case GS_F32:
		if (special)
			return f32s[k];
		/* any finite exponent, either sign */
		return (r >> 40 & 0x807fffff) | (uint64_t)(r % 254 + 1) << 23;
	case GS_F64:
		if (special)
			return f64s[k];
		return (r & 0x800fffffffffffffull) |
		       (uint64_t)((r >> 20) % 2046 + 1) << 52;
	case GS_F16:
		if (special)
			return h16s[k];
		return (r >> 40 & 0x83ff) | (uint64_t)(r % 30 + 1) << 10;
	default:
		if (special)
			return b16s[k];
		return (r >> 40 & 0x807f) | (uint64_t)(r % 254 + 1) << 7;
	}
}

static double as_double(enum gs_type t, uint64_t b)
{
	float f;
	double d;
	uint32_t w = (uint32_t)b;

	switch (t) {
	case GS_F16: return f16_to_f32((uint16_t)b);
	case GS_BF16: return bf16_to_f32((uint16_t)b);
	case GS_F32:
		memcpy(&f, &w, sizeof f);
		return f;
	default:
		memcpy(&d, &b, sizeof d);
		return d;
	}
}

/* Value i of integer type t, sign-extended. */
static int64_t int_at(enum gs_type t, const uint8_t *p, size_t i)
{
	size_t sz = type_size(t);
	uint64_t u = 0;

	memcpy(&u, p + i * sz, sz);	/* little-endian host */
	if (type_is_signed(t) && sz < 8 && (u >> (8 * sz - 1) & 1))
		u |= ~0ull << (8 * sz);
	return (int64_t)u;
}

/* The plain loop: the same struct red_col the kernel fills. */
static void reference(const struct gs_job *job, const uint8_t *p, size_t n,
		      struct red_col *want)
{
	enum gs_type t = job->dtype.type;
	bool mn = job->op == OP_MIN;

	reduce_kernels.acc_init(job, want);
	for (size_t i = 0; i < n; i++) {
		if (type_is_float(t)) {
			uint64_t b = 0;
			double v;

			memcpy(&b, p + i * type_size(t), type_size(t));
			v = as_double(t, b);
			if (isnan(v)) {
				want->u.mm.nan = true;
				continue;
			}
			if (mn ? f64_key(v) < f64_key(want->u.mm.v.f)
			       : f64_key(v) > f64_key(want->u.mm.v.f))
				want->u.mm.v.f = v;
		} else if (type_is_signed(t)) {
			int64_t v = int_at(t, p, i);

			if (mn ? v < want->u.mm.v.i : v > want->u.mm.v.i)
				want->u.mm.v.i = v;
		} else {
			uint64_t v = (uint64_t)int_at(t, p, i);

			if (mn ? v < want->u.mm.v.u : v > want->u.mm.v.u)
				want->u.mm.v.u = v;
		}
	}
	want->count = n;
}

static bool same(const struct red_col *a, const struct red_col *b)
{
	return a->count == b->count && a->u.mm.nan == b->u.mm.nan &&
	       memcmp(&a->u.mm.v, &b->u.mm.v, sizeof a->u.mm.v) == 0;
}

static void *scratch;

/* The kernel over p[0..n), in one call or in pieces of random lengths. */
static void kernel(const struct gs_job *job, const uint8_t *p, size_t n,
		   bool pieces, struct red_col *got)
{
	size_t sz = type_size(job->dtype.type);

	reduce_kernels.acc_init(job, got);
	if (!pieces) {
		reduce_kernels.cpu_add(job, got, scratch, p, NULL, n);
		return;
	}
	for (size_t at = 0; at < n;) {
		size_t k = next() % 3000 + 1;

		k = k < n - at ? k : n - at;
		reduce_kernels.cpu_add(job, got, scratch, p + at * sz, NULL, k);
		at += k;
	}
}

int main(void)
{
	static const size_t lens[] = { 0, 1, 7, 1023, 1024, 1025, 2048,
				       3071, 5000, 20000 };
	/* how often specials come; PLANT + k: special k once, mid-stream */
	static const unsigned rares[] = { 0, 50000, 3000, 10, PLANT + 0,
					  PLANT + 1, PLANT + 2, PLANT + 3,
					  PLANT + 4, PLANT + 5, PLANT + 6,
					  PLANT + 7 };
	struct gs_job job = { .cmd = CMD_REDUCE, .columns = 1 };
	size_t maxn = 20000;
	uint8_t *p = malloc(maxn * 8);
	struct red_col *want = malloc(sizeof *want), *got = malloc(sizeof *got);

	job.dtype.type = GS_F64;
	scratch = malloc(reduce_kernels.scratch_size(&job));
	for (int t = 0; t < GS_NTYPES; t++) {
		size_t sz = type_size((enum gs_type)t);

		job.dtype.type = (enum gs_type)t;
		for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
			for (size_t r = 0; r < sizeof rares / sizeof *rares; r++) {
				size_t n = lens[l];

				for (size_t i = 0; i < n; i++) {
					uint64_t b = type_is_float(job.dtype.type)
						? float_bits(job.dtype.type,
						     rares[r] >= PLANT ? 0 : rares[r], -1)
						: next();
					memcpy(p + i * sz, &b, sz);
				}
				if (rares[r] >= PLANT && n &&
				    type_is_float(job.dtype.type)) {
					uint64_t b = float_bits(job.dtype.type, 0,
								(int)(rares[r] - PLANT));

					memcpy(p + n / 2 * sz, &b, sz);
				}
				for (int op = OP_MIN; op <= OP_MAX; op++) {
					job.op = (enum gs_op)op;
					reference(&job, p, n, want);
					for (int k = 0; k < 4; k++) {
						cpu_portable = k & 1;
						kernel(&job, p, n, k >> 1, got);
						CHECKF(same(want, got),
						       "%s %s, %zu values, "
						       "specials %u, %s%s",
						       type_name(job.dtype.type),
						       op == OP_MIN ? "min" : "max",
						       n, rares[r],
						       k & 1 ? "C" : "AVX2",
						       k >> 1 ? ", in pieces" : "");
					}
					cpu_portable = false;
				}
			}
		}
	}
	free(p);
	free(want);
	free(got);
	free(scratch);
	UNIT_END();
}
