/*
 * unit_xsum_core.c - numerics/xsum_core.h under C, against references that
 * do not use it: a term's m * 2^e is the value (ldexp, the widening of
 * each format done here), a product's term is a * b + fma's error where
 * both are exact, its flags are what IEEE multiplication gives, and a sum
 * in slots (added, spilled as a block hands them on, carried) is the same
 * struct xsum as its terms added to 64-bit limbs one by one, and the one
 * reader of a fixed-point sum's limbs (exact_limbs_round) rounds as a slow
 * bit-at-a-time reference does, itself checked against the hardware's
 * conversions.
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

/* ---- the limb reader ------------------------------------------------------ */

#define RL_MAX 68		/* struct xsum's limbs, the most a sum has */

static bool bit_at(const unsigned long long *mag, int n, long i)
{
	return i >= 0 && i < 64L * n && (mag[i / 64] >> (i % 64) & 1);
}

/* A reference for exact_limbs_round that shares nothing with it: the
 * magnitude negated whole, then the result's bits, the guard bit and the
 * sticky bit taken one bit at a time, rounded to nearest even and encoded
 * from the format's p, bias and width. */
static unsigned long long slow_round(const unsigned long long *l, int n,
				     int lsb, int p, int bias, int width)
{
	unsigned long long mag[RL_MAX], q = 0;
	bool neg = l[n - 1] >> 63, guard, sticky = false;
	long t = -1, r, i;
	int c = 1;

	for (int j = 0; j < n; j++) {
		mag[j] = neg ? ~l[j] + c : l[j];
		c = neg && c && mag[j] == 0;
	}
	for (i = 0; i < 64L * n; i++)
		if (bit_at(mag, n, i))
			t = i;
	if (t < 0)
		return 0;
	/* the result's lsb, as a bit index of mag: p bits below the top, but
	 * not below the subnormals' lsb, 2^(1 - bias - (p - 1)) */
	r = t - (p - 1);
	if (r + lsb < 1 - bias - (p - 1))
		r = 1 - bias - (p - 1) - lsb;
	for (i = t; i >= r; i--)
		q = q << 1 | bit_at(mag, n, i);
	guard = bit_at(mag, n, r - 1);
	for (i = 0; i < r - 1; i++)
		sticky |= bit_at(mag, n, i);
	if (guard && (sticky || (q & 1)))
		q++;
	if (q >> p) {		/* rounded up past p bits */
		q >>= 1;
		r++;
	}
	unsigned long long sign = (unsigned long long)neg << (width - 1);
	long be = q >> (p - 1) ? r + lsb + (p - 1) + bias : 0;

	if (be >= 2L * bias + 1)	/* past the largest finite: inf */
		return sign | ((1ull << (width - p)) - 1) << (p - 1);
	return sign | (unsigned long long)be << (p - 1) |
	       (q & ((1ull << (p - 1)) - 1));
}

/* n limbs of a value made to hurt the rounding: a run of random bits below
 * a random top (p + 2 of them, so that the guard bit lands inside), then
 * nothing, one stray bit or random bits below; a tie, one bit above or
 * below it; limbs of all ones or zeros; whole random limbs; negated at
 * random (two's complement, so the reader has to make the magnitude). */
static void rl_value(unsigned long long *l, int n, int p)
{
	long top = (long)(rnd() % (64ull * n - 1));
	long run = p + 2, i;
	int style = (int)(rnd() % 8);

	memset(l, 0, sizeof(*l) * (size_t)n);
	if (style == 0) {
		for (int j = 0; j < n; j++)
			l[j] = rnd();
		return;
	}
	if (style == 1) {	/* -2^(64k), -1, and their neighbours */
		int k = (int)(rnd() % (unsigned)n);

		for (int j = k; j < n; j++)
			l[j] = ~0ull;
		if (rnd() & 1)
			l[0] += rnd() % 3;
		return;
	}
	for (i = top; i >= 0 && i > top - run; i--)
		if (i == top || rnd() & 1)
			l[i / 64] |= 1ull << (i % 64);
	i = top - run;		/* somewhere at or below the guard bit */
	if (i >= 0 && style == 3)
		l[i / 64] |= 1ull << (i % 64);		/* a tie, if it lands */
	if (i > 0 && style == 4)
		l[(i - 1) / 64] |= 1ull << ((i - 1) % 64);
	if (i > 0 && style == 5) {
		long s = (long)(rnd() % (unsigned long long)i);

		l[s / 64] |= 1ull << (s % 64);		/* one stray bit */
	}
	if (i > 0 && style == 6)
		for (long s = 0; s < i; s += 64)
			l[s / 64] |= rnd() & (s + 64 <= i ? ~0ull :
					      (1ull << (i - s)) - 1);
	if (rnd() & 1) {	/* negate: ~x + 1 */
		int c = 1;

		for (int j = 0; j < n; j++) {
			l[j] = ~l[j] + c;
			c = c && l[j] == 0;
		}
	}
}

/* exact_limbs_round, the reader of struct xsum and of the scan's sums,
 * against slow_round: every format, the widths the scan uses (1 to 3 limbs
 * of a window, 6 and 34 of its wide sums) and struct xsum's, at lsbs that
 * put the value anywhere from the subnormals to past the largest finite.
 * The specials: a NaN or both infinities are NaN, one is that infinity. */
static void test_limbs_round(void)
{
	static const int widths[] = { 1, 2, 3, 4, 6, 34, RL_MAX };
	static const int lsbs[] = { 0, -24, -149, -1074, -2176, -60, 900 };
	unsigned long long l[RL_MAX];

	for (int f = XF_F16; f <= XF_F64; f++) {
		struct ieee_fmt fmt = ieee_fmt_of((enum xfmt)f);

		for (unsigned i = 0; i < 14000; i++) {
			int n = widths[i % 7];
			int lsb = i % 3 ? lsbs[rnd() % 7] :
				  -(int)(rnd() % (64u * (unsigned)n + 1200));
			uint64_t got, want;

			rl_value(l, n, fmt.p);
			want = slow_round(l, n, lsb, fmt.p, fmt.emax, fmt.width);
			got = exact_limbs_round((const uint64_t *)l, n, 0, lsb,
						&fmt);
			CHECKF(got == want, "fmt %d n %d lsb %d: %llx, not %llx",
			       f, n, lsb, (unsigned long long)got,
			       (unsigned long long)want);
		}
		l[0] = 5;
		CHECK(exact_limbs_round((const uint64_t *)l, 1, EXACT_NAN, 0,
					&fmt) == fmt.nan);
		CHECK(exact_limbs_round((const uint64_t *)l, 1,
					EXACT_PINF | EXACT_NINF, 0, &fmt) ==
		      fmt.nan);
		CHECK(exact_limbs_round((const uint64_t *)l, 1, EXACT_NINF, 0,
					&fmt) ==
		      (fmt.inf | 1ull << (fmt.width - 1)));
		l[0] = 0;
		CHECK(exact_limbs_round((const uint64_t *)l, 1, 0, 0, &fmt) == 0);
	}
}

/* slow_round itself, where the hardware can say: a magnitude below 2^64
 * converts to float and double correctly rounded, and a power of two
 * scales it exactly while it stays normal. */
static void test_slow_round(void)
{
	for (unsigned i = 0; i < 20000; i++) {
		unsigned long long m = rnd() >> (rnd() % 64), l[1];
		int lsb = (int)(rnd() % 200) - 100;
		bool neg = rnd() & 1 && m >> 63 == 0;
		double d = ldexp((double)m, lsb) * (neg ? -1 : 1);
		float x = ldexpf((float)m, lsb) * (neg ? -1 : 1);
		unsigned long long db, xb = 0;
		unsigned xu;

		l[0] = neg ? 0 - m : m;
		if (m >> 63 && !neg)	/* one limb: the top bit is the sign */
			continue;
		memcpy(&db, &d, sizeof(db));
		memcpy(&xu, &x, sizeof(xu));
		xb = xu;
		CHECKF(slow_round(l, 1, lsb, 53, 1023, 64) == (m ? db : 0),
		       "f64 %llx lsb %d", m, lsb);
		CHECKF(slow_round(l, 1, lsb, 24, 127, 32) == (m ? xb : 0),
		       "f32 %llx lsb %d", m, lsb);
	}
}

int main(void)
{
	test_terms();
	test_products();
	test_slots();
	test_slow_round();
	test_limbs_round();
	UNIT_END();
}
