/*
 * unit_xsum_core.c - numerics/xsum_core.h under C, against references that
 * do not use it: a term's m * 2^e is the value (ldexp, the widening of
 * each format done here), a product's term is a * b + fma's error where
 * both are exact, its flags are what IEEE multiplication gives, and a sum
 * in slots (added, spilled as a block hands them on, carried) is the same
 * struct xsum as its terms added to 64-bit limbs one by one.
 */
#include <math.h>
#include <string.h>
#include "unit.h"
#include "xsum.h"

static unsigned long long rng = 0x243f6a8885a308d3ull;

static unsigned long long rnd(void)
{
	unsigned long long z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double f64_of(unsigned long long u)
{
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

/* Bit patterns with every exponent field likely: random, and each field's
 * ends (zero, subnormal, the top finite, inf, NaN) with random fractions. */
static unsigned long long pattern(int w, int fbits, unsigned i)
{
	unsigned long long u = rnd() & (w == 64 ? ~0ull : (1ull << w) - 1);
	unsigned long long fmask = (1ull << fbits) - 1, emax = (1ull << (w - 1 - fbits)) - 1;

	switch (i % 6) {
	case 0: return u & (1ull << (w - 1));			/* +-0 */
	case 1: return u & ~(emax << fbits);			/* subnormal */
	case 2: return (u & ~(emax << fbits)) | (emax - 1) << fbits;	/* top binade */
	case 3: return (u & ~fmask) | emax << fbits;		/* +-inf */
	default: return u;
	}
}

/* The value of a pattern of p significand bits and w bits in all, as a
 * double (every such format fits), worked out from its fields here. */
static double value_of(unsigned long long u, int w, int p)
{
	int fbits = p - 1, ebits = w - 1 - fbits, bias = (1 << (ebits - 1)) - 1;
	unsigned long long frac = u & ((1ull << fbits) - 1);
	int be = (int)(u >> fbits & ((1ull << ebits) - 1));
	double s = u >> (w - 1) ? -1.0 : 1.0;

	if (be == (1 << ebits) - 1)
		return frac ? NAN : s * INFINITY;
	if (be == 0)
		return s * ldexp((double)frac, 1 - bias - fbits);
	return s * ldexp((double)(frac | 1ull << fbits), be - bias - fbits);
}

static void check_term(struct exact_term t, double v)
{
	if (isnan(v)) {
		CHECK(t.flags == EXACT_NAN && t.m == 0);
	} else if (isinf(v)) {
		CHECK(t.flags == (v < 0 ? EXACT_NINF : EXACT_PINF) && t.m == 0);
	} else {
		CHECK(t.flags == 0);
		CHECKF(ldexp((double)t.m, t.e) == v, "%a: %lld * 2^%d", v,
		       (long long)t.m, t.e);
		CHECK(exact_nbits(t.m) <= 53);
	}
}

static void test_terms(void)
{
	for (unsigned i = 0; i < 6000; i++) {
		unsigned long long h = pattern(16, 10, i), b = pattern(16, 7, i);
		unsigned long long f = pattern(32, 23, i), d = pattern(64, 52, i);
		float fv;
		uint32_t f32 = (uint32_t)f;

		check_term(exact_f16((unsigned short)h), value_of(h, 16, 11));
		check_term(exact_bf16((unsigned short)b), value_of(b, 16, 8));
		memcpy(&fv, &f32, sizeof(fv));
		check_term(exact_f32(fv), value_of(f, 32, 24));
		check_term(exact_f64(f64_of(d)), value_of(d, 64, 53));
		CHECK(exact_is_zero(exact_f64(f64_of(d))) == (f64_of(d) == 0));
	}
	CHECK(exact_i64(-5).m == -5 && exact_i64(-5).e == 0);
	CHECK(exact_u64(~0ull).m == (__int128)~0ull);
}

/* a * b as a term: its flags are IEEE's for a special result of special
 * operands, and a finite product is p + err (p = a * b rounded, err from
 * fma) where both are exact: p normal and not near the top. */
static void check_prod(double a, double b)
{
	struct exact_term t = exact_prod_f64(a, b);
	double p = a * b;

	if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) {
		if (isnan(p))
			CHECK(t.flags == EXACT_NAN);
		else
			CHECK(t.flags == (signbit(p) ? EXACT_NINF : EXACT_PINF));
		return;
	}
	CHECK(t.flags == 0);
	if (p == 0 && a != 0 && b != 0)
		return;		/* underflowed: no double reference */
	if (p == 0 || (fabs(p) >= 0x1p-960 && fabs(p) < 0x1p1020)) {
		struct xsum x;

		xsum_init(&x);
		xsum_add_term(&x, t);
		xsum_add_f64(&x, -p);
		xsum_add_f64(&x, -fma(a, b, -p));
		CHECKF(xsum_is_zero(&x), "%a * %a", a, b);
	}
}

static void test_products(void)
{
	static const double edge[] = {
		0.0, -0.0, 1.0, -1.5, 0x1p-1074, -0x1p-1022, 0x1.fffffffffffffp1023,
		INFINITY, -INFINITY, NAN, 3.0, -0x1.8p-500,
	};
	const unsigned ne = sizeof(edge) / sizeof(edge[0]);

	for (unsigned i = 0; i < ne; i++)
		for (unsigned j = 0; j < ne; j++)
			check_prod(edge[i], edge[j]);
	for (unsigned i = 0; i < 20000; i++)
		check_prod(f64_of(pattern(64, 52, i)), f64_of(pattern(64, 52, i / 6)));
}

/* A random term within the slot form's range: |m| < 2^126, EXACT_EMIN <=
 * e < -EXACT_EMIN (struct xsum keeps the sum modulo 2^2176, as the
 * conversion of the slots does). */
static void random_term(__int128 *m, int *e)
{
	int bits = 1 + (int)(rnd() % 126);
	unsigned __int128 a = (unsigned __int128)rnd() << 64 | rnd();

	a >>= 128 - bits;
	*m = rnd() & 1 ? -(__int128)a : (__int128)a;
	*e = EXACT_EMIN + (int)(rnd() % (unsigned)(-2 * EXACT_EMIN));
}

static void test_slots(void)
{
	for (unsigned round = 0; round < 200; round++) {
		static struct exact_acc blk, acc;
		struct xsum want, got;
		unsigned n = 1 + (unsigned)(rnd() % 300);
		bool ok = true;

		memset(&blk, 0, sizeof(blk));
		memset(&acc, 0, sizeof(acc));
		xsum_init(&want);
		xsum_init(&got);
		for (unsigned k = 0; k < n; k++) {
			__int128 m;
			int e;

			random_term(&m, &e);
			if (round % 4 == 0)	/* all near one scale: carries */
				e = -64 + (int)(rnd() % 8);
			exact_slots_add(blk.slot, m, e);
			xsum_add_i128(&want, m, e);
		}
		/* a block's slots handed on into a global accumulator, as
		 * exact_block_flush does, then carried as after a kernel */
		for (unsigned q = 0; q < EXACT_SLOTS; q++)
			exact_slot_spill(acc.slot, q, blk.slot[q]);
		exact_slots_carry(acc.slot, EXACT_SLOTS);
		for (unsigned q = 0; q + 1 < EXACT_SLOTS; q++)
			ok &= acc.slot[q] >= -(1ll << 31) && acc.slot[q] < 1ll << 31;
		CHECK(ok);
		acc.flags = round % 3 == 0 ? EXACT_PINF : 0;
		xsum_add_slots(&got, &acc);
		/* the carried slots, as the host gets them, and the raw block's
		 * slots: the same value */
		xsum_add_slots(&got, &blk);
		xsum_add_slots(&want, &blk);
		CHECK(memcmp(got.limb, want.limb, sizeof(got.limb)) == 0);
		CHECK(got.pinf == (round % 3 == 0) && !got.nan && !got.ninf);
	}
}

int main(void)
{
	test_terms();
	test_products();
	test_slots();
	UNIT_END();
}
