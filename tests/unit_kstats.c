/*
 * unit_kstats.c - statistics from compact sums (kstats.c) against xsum's
 * (xsum_mean and xsum_var, themselves checked against Python's fractions
 * in unit_xsum.c): for sets of doubles of one scale, any exponent, tiny
 * and subnormal, huge, integer-valued, with -0 and the specials, and of
 * 64-bit integers at their extremes, each result must be xsum's bits
 * wherever ksum_stats takes the set, and ksum_to_dec xsum_to_dec's digits.
 * Most sets must take the compact way (a check that it is not skipped).
 */
#include <math.h>
#include <string.h>
#include "unit.h"
#include "kstats.h"

#define MAXN 3000

static uint64_t rng = 2463534242ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double dbl(uint64_t u)
{
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

static uint64_t bits(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

/* kind: 0 one scale, 1 any exponent, 2 tiny and subnormal, 3 huge,
 * 4 integer-valued, 5 zeros of both signs, 6 one scale with specials */
static double term(int kind)
{
	uint64_t s = rnd() & 1ull << 63, f = rnd() & 0xfffffffffffffull;

	switch (kind) {
	case 0:
		return dbl(s | (uint64_t)(1020 + rnd() % 8) << 52 | f);
	case 1:
		return dbl(s | (rnd() % 2047) << 52 | f);
	case 2:
		return dbl(s | (rnd() % 4) << 52 | f);
	case 3:
		return dbl(s | (uint64_t)(1500 + rnd() % 40) << 52 | f);
	case 4:
		return (double)(int64_t)(rnd() % 2001) - 1000.0;
	case 5:
		return rnd() % 2 ? -0.0 : 0.0;
	default:
		switch (rnd() % 40) {
		case 0: return NAN;
		case 1: return INFINITY;
		case 2: return -INFINITY;
		case 3: return -0.0;
		default: return dbl(s | (uint64_t)1023 << 52 | f);
		}
	}
}

static int taken, sets;

static void same(double a, double b, const char *what, int kind, int n)
{
	CHECKF(bits(a) == bits(b), "%s of kind %d, n %d: %a, xsum %a", what,
	       kind, n, a, b);
}

static void check_f64(int kind, int n)
{
	struct ksum k1, k2;
	struct xsum x1, x2;
	double m, pv, sv, pd, sd, ym, ypv, ysv, ypd, ysd;

	ksum_init(&k1);
	ksum_init(&k2);
	for (int i = 0; i < n; i++) {
		double v = term(kind);

		CHECK(ksum_add_f64(&k1, v) && ksum_add_square_f64(&k2, v));
	}
	sets++;
	if (ksum_stats(&k1, &k2, (uint64_t)n, &m, &pv, &sv, &pd, &sd)) {
		taken++;
		ksum_to_xsum(&k1, &x1);
		ksum_to_xsum(&k2, &x2);
		ym = xsum_mean(&x1, (uint64_t)n);
		xsum_var(&x1, &x2, (uint64_t)n, &ypv, &ysv, &ypd, &ysd);
		same(m, ym, "mean", kind, n);
		same(pv, ypv, "pvar", kind, n);
		same(sv, ysv, "svar", kind, n);
		same(pd, ypd, "pstdev", kind, n);
		same(sd, ysd, "sstdev", kind, n);
	}
	ksum_free(&k1);
	ksum_free(&k2);
}

/* 64-bit integers (kind 0: small, 1: at the extremes) and their squares,
 * as the group-by adds them; the sum's digits as well. */
static void check_i64(int kind, int n)
{
	struct ksum k1, k2;
	struct xsum x1, x2;
	double m, pv, sv, pd, sd, ym, ypv, ysv, ypd, ysd;
	char a[KSUM_DEC_MAX], b[XSUM_DEC_MAX];

	ksum_init(&k1);
	ksum_init(&k2);
	for (int i = 0; i < n; i++) {
		int64_t v = kind ? (rnd() % 2 ? INT64_MIN + (int64_t)(rnd() % 3)
				    : INT64_MAX - (int64_t)(rnd() % 3))
				 : (int64_t)(rnd() % 200001) - 100000;
		uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

		CHECK(ksum_add_i64(&k1, v) &&
		      ksum_add_u128(&k2, (unsigned __int128)u * u, 0, false));
	}
	sets++;
	ksum_to_xsum(&k1, &x1);
	ksum_to_xsum(&k2, &x2);
	if (ksum_to_dec(&k1, a)) {
		CHECK(xsum_to_dec(&x1, b));
		CHECKF(strcmp(a, b) == 0, "digits %s, xsum %s", a, b);
	}
	if (ksum_stats(&k1, &k2, (uint64_t)n, &m, &pv, &sv, &pd, &sd)) {
		taken++;
		ym = xsum_mean(&x1, (uint64_t)n);
		xsum_var(&x1, &x2, (uint64_t)n, &ypv, &ysv, &ypd, &ysd);
		same(m, ym, "mean", 10 + kind, n);
		same(pv, ypv, "pvar", 10 + kind, n);
		same(sv, ysv, "svar", 10 + kind, n);
		same(pd, ypd, "pstdev", 10 + kind, n);
		same(sd, ysd, "sstdev", 10 + kind, n);
	}
	ksum_free(&k1);
	ksum_free(&k2);
}

int main(void)
{
	for (int r = 0; r < 300; r++) {
		int n = 1 + (int)(rnd() % (r % 3 ? 12 : MAXN));

		for (int kind = 0; kind < 7; kind++)
			check_f64(kind, n);
		check_i64(0, n);
		check_i64(1, n);
	}
	/* the specials' sets and the huge or wide ones go xsum's way */
	CHECKF(taken > sets / 2, "%d of %d sets compact", taken, sets);
	UNIT_END();
}
