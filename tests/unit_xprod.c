/*
 * unit_xprod.c - the product core that the CPU and the CUDA kernels share
 * (numerics/xprod_core.h: prod_factor, the bracket's steps and merge,
 * fprod_round_fmt; iprod_factor_flags and the integer product) and ieee.h's
 * f16 roundings, against references that do not use them: products of
 * doubles rounded by fractions.Fraction into every format
 * (xprod_vectors.h, which make writes from tests/gen_xprod_vectors.py), a factor's
 * m * 2^e against ldexp, integer products against __builtin_mul_overflow.
 */
#include <math.h>
#include <string.h>
#include "unit.h"
#include "acc.h"
#include "xprod.h"
#include "xprod_vectors.h"

#define NCASES (sizeof(xp_cases) / sizeof(xp_cases[0]))
#define NHALF (sizeof(xp_half) / sizeof(xp_half[0]))

static const enum xfmt fmts[4] = { XF_F64, XF_F32, XF_F16, XF_BF16 };

static unsigned long long rng = 0x452821e638d01377ull;

static unsigned long long rnd(void)
{
	unsigned long long z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double dbl(uint64_t u)
{
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

/* A factor as the scan's kernels take it: a bracket of one exact limb from
 * prod_factor, or only flags; all zero is the empty product. */
static struct fprod one_factor(uint64_t u)
{
	struct fprod v;
	uint64_t m;
	int e;

	memset(&v, 0, sizeof(v));
	if (prod_factor(u, 53, 64, &m, &e, &v.flags)) {
		int z = __builtin_clzll(m);

		v.lo[1] = v.hi[1] = m << z;
		v.exp = (int64_t)e - z - 64;
	}
	return v;
}

/* Checks p's rounding into every format against the case's; counts the
 * roundings where the bracket's ends agree. A product of two factors (106
 * bits) or fewer is exact, so its ends always agree. */
static void check_round(const struct fprod *p, const struct xp_case *c,
			const char *how, unsigned *agreed)
{
	for (int f = 0; f < 4; f++) {
		uint64_t bits;
		bool ok = fprod_round(p, fmts[f], &bits);

		CHECKF(!ok || bits == c->want[f], "%s case %u fmt %d: %llx, want %llx",
		       how, c->off, f, (unsigned long long)bits,
		       (unsigned long long)c->want[f]);
		CHECKF(ok || c->n > 2, "%s case %u fmt %d: ends apart", how, c->off, f);
		*agreed += ok;
	}
}

typedef unsigned __int128 u128;

static u128 u128_of(const uint64_t l[2])
{
	return (u128)l[1] << 64 | l[0];
}

/* p's bracket holds the exact product (fl <= q <= ce at 2^e: its ends are
 * rounded outward) and is tight, a few units of its last limb per factor
 * (hi at 2^128 is 2^127 one exponent up, with lo shifted along). */
static void check_bracket(const struct fprod *p, const struct xp_case *c,
			  const char *how)
{
	u128 lo = u128_of(p->lo), hi = u128_of(p->hi);
	u128 fl = u128_of(c->fl), ce = u128_of(c->ce);

	if (fl == 0 || c->n == 0)	/* not finite and nonzero; 1 */
		return;
	if (p->exp == c->e + 1 && hi == (u128)1 << 127 && lo < hi) {
		CHECKF(lo << 1 <= fl && fl - (lo << 1) <= 4u * c->n,
		       "%s case %u: bracket past 2^128", how, c->off);
		return;
	}
	CHECKF(p->exp == c->e && lo <= fl && hi >= ce && hi - lo <= 4u * c->n,
	       "%s case %u: exp %lld, want %d; lo %s, hi %s, width %llu", how,
	       c->off, (long long)p->exp, c->e, lo <= fl ? "ok" : "above",
	       hi >= ce ? "ok" : "below", (unsigned long long)(hi - lo));
}

/* Element steps from 1 (the CPU's), and the same factors cut in two, each
 * part from the empty product in one-limb brackets (the kernels'), then
 * merged. */
static void test_products(void)
{
	unsigned agreed = 0, total = 0;

	for (size_t i = 0; i < NCASES; i++) {
		const struct xp_case *c = &xp_cases[i];
		const uint64_t *x = xp_factors + c->off;
		struct fprod p;

		fprod_one(&p);
		for (unsigned j = 0; j < c->n; j++)
			fprod_mul_f64(&p, dbl(x[j]));
		check_round(&p, c, "steps", &agreed);
		check_bracket(&p, c, "steps");
		total += 4;
		for (unsigned cut = 0; cut <= c->n; cut++) {
			struct fprod a, b;

			memset(&a, 0, sizeof(a));
			memset(&b, 0, sizeof(b));
			for (unsigned j = 0; j < c->n; j++) {
				struct fprod f = one_factor(x[j]);

				fprod_merge(j < cut ? &a : &b, &f);
			}
			fprod_merge(&a, &b);
			check_round(&a, c, "merged", &agreed);
			check_bracket(&a, c, "merged");
			total += 4;
		}
	}
	/* ends apart only where the exact product lies within the bracket's
	 * width of a rounding boundary: rare */
	CHECKF(agreed >= total - total / 100, "%u of %u agree", agreed, total);
}

/* fprod_round_fmt on brackets around a point halfway between two doubles
 * M * 2^e and (M + 1) * 2^e: both ends below it give M, both above M + 1
 * (ldexp's bits), ends on either side no answer. */
static void test_round_ends(void)
{
	struct ieee_fmt d = ieee_fmt_of(XF_F64);

	for (int i = 0; i < 100000; i++) {
		uint64_t m = 1ull << 52 | rnd() >> 12, b, want;
		int e = (int)(rnd() % 1900) - 1000, k = (int)(rnd() % 3);
		u128 x = (u128)(2 * m + 1) << 74;	/* top bit at 127 */
		struct fprod p = { { 0, 0 }, { 0, 0 }, e - 75, rnd() & PROD_NEG };
		u128 lo = x - 3 + 2 * (u128)k, hi = lo + 2;
		double v = ldexp((double)(m + (k == 2)), e);

		if (p.flags)
			v = -v;
		memcpy(&want, &v, 8);
		p.lo[0] = (uint64_t)lo, p.lo[1] = (uint64_t)(lo >> 64);
		p.hi[0] = (uint64_t)hi, p.hi[1] = (uint64_t)(hi >> 64);
		bool ok = fprod_round_fmt(&p, &d, &b);

		CHECKF(k == 1 ? !ok : ok && b == want, "m %llx e %d k %d: %d %llx",
		       (unsigned long long)m, e, k, ok, (unsigned long long)b);
	}
}

/* prod_factor for each format: m * 2^e is the value, flags as IEEE. */
static void test_factors(void)
{
	static const int p[4] = { 53, 24, 11, 8 }, w[4] = { 64, 32, 16, 16 };

	for (int i = 0; i < 400000; i++) {
		int f = i % 4;
		uint64_t u = rnd() >> (64 - w[f]), m = 0, flags = 0;
		unsigned ebits = (unsigned)(w[f] - p[f]);
		int e = 0;
		double v;
		float s;

		if (rnd() % 4 == 0)	/* the exponent field's ends */
			u = (u & ~((((1ull << ebits) - 1)) << (p[f] - 1))) |
			    (rnd() & 1 ? ((1ull << ebits) - 1) << (p[f] - 1) : 0);
		if (rnd() % 8 == 0)
			u &= ~((1ull << (p[f] - 1)) - 1) | (rnd() & 1);
		switch (f) {
		case 0: v = dbl(u); break;
		case 1: { uint32_t b = (uint32_t)u; memcpy(&s, &b, 4); v = s; break; }
		case 2: v = ieee_f16_to_f32((uint16_t)u); break;
		default: v = ieee_bf16_to_f32((uint16_t)u); break;
		}
		bool fin = prod_factor(u, p[f], w[f], &m, &e, &flags);
		uint64_t want = (signbit(v) ? PROD_NEG : 0) |
				(isnan(v) ? PROD_NAN : isinf(v) ? PROD_INF :
				 v == 0 ? PROD_ZERO : 0);

		CHECKF(flags == want && fin == !(want & ~(uint64_t)PROD_NEG),
		       "fmt %d %llx: flags %llx", f, (unsigned long long)u,
		       (unsigned long long)flags);
		if (fin)
			CHECKF(m >> p[f] == 0 && ldexp((double)m, e) == fabs(v),
			       "fmt %d %llx: m %llx e %d", f, (unsigned long long)u,
			       (unsigned long long)m, e);
	}
}

/* Integer products: the magnitude until it passes 2^128, then the low
 * 128 bits of the product that passed; zeros and signs as flags. */
static void test_iprod(void)
{
	for (int i = 0; i < 20000; i++) {
		struct iprod p = { { 1, 0 }, 0 }, q = { { 0, 0 }, 0 };
		unsigned __int128 ref = 1;
		bool over = false, zero = false, neg = false;
		int n = 1 + (int)(rnd() % 6);

		for (int j = 0; j < n; j++) {
			__int128 v = (__int128)(rnd() >> (rnd() % 64));
			struct iprod f = { { 0, 0 }, 0 };
			uint64_t a;

			v = rnd() % 12 == 0 ? 0 : rnd() % 2 ? -v : v;
			a = (uint64_t)(v < 0 ? -v : v);
			iprod_mul(&p, v);
			f.mag[0] = a;
			f.flags = iprod_factor_flags(a, v < 0);
			iprod_merge(&q, &f);
			zero |= v == 0;
			neg ^= v < 0;
			if (v != 0 && !over)
				over = __builtin_mul_overflow(ref, (unsigned __int128)a, &ref);
		}
		uint64_t want = (zero ? PROD_ZERO : 0) | (neg ? PROD_NEG : 0) |
				(over ? PROD_OVER : 0);
		unsigned __int128 mag = (unsigned __int128)p.mag[1] << 64 | p.mag[0];

		CHECKF(p.flags == want && mag == ref, "iprod_mul %d: flags %llx",
		       i, (unsigned long long)p.flags);
		CHECKF(q.flags == want && (over || zero ||
		       ((unsigned __int128)q.mag[1] << 64 | q.mag[0]) == ref),
		       "iprod_merge %d", i);
	}
}

/* A double into f16: as bits (ieee_round_f64, hist_half_bits) and as the
 * double of that value (ieee_f64_round_f16, the histograms' loops). */
static void test_half(void)
{
	struct ieee_fmt h = ieee_fmt_of(XF_F16);

	for (size_t i = 0; i < NHALF; i++) {
		double x = dbl(xp_half[i][0]), r = ieee_f64_round_f16(x);
		uint16_t want = (uint16_t)xp_half[i][1];
		double wv = ieee_f16_to_f32(want);
		uint64_t rb, wb;

		memcpy(&rb, &r, 8);
		memcpy(&wb, &wv, 8);
		CHECKF(ieee_round_f64(x, &h) == want && hist_half_bits(x) == want,
		       "%a: %llx, want %x", x,
		       (unsigned long long)ieee_round_f64(x, &h), want);
		CHECKF(rb == wb, "ieee_f64_round_f16(%a) = %a, want %a", x, r, wv);
	}
	CHECK(isnan(ieee_f64_round_f16(NAN)) && signbit(ieee_f64_round_f16(-NAN)));
	CHECK(hist_half_bits(NAN) == 0x7e00 && hist_half_bits(-NAN) == 0xfe00);
}

int main(void)
{
	test_products();
	test_round_ends();
	test_factors();
	test_iprod();
	test_half();
	UNIT_END();
}
