/*
 * unit_fsum32.c - fsum32_add (cpu_fsum32.c), the AVX2 loop and the C one,
 * against xsum_add_f64 one value at a time, bit for bit: values in and
 * below a block's window, subnormals, zeros of both signs, the largest
 * finite values, cancelling pairs, infinities and NaNs, windows that reach
 * the subnormals, and lengths around the block size. Then the tiers: data
 * over 41 binades, values on every tier's top and floor with one tier
 * filled to the edge of exactness, more tiers than the block sums in
 * doubles, subnormals beside large values, zeros, infinities and NaNs
 * among them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "acc.h"
#include "cpu_fsum32.h"
#include "unit.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static float from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

/* A float of exponent field lo .. hi (inclusive), random sign and bits. */
static float rnd_exp(unsigned lo, unsigned hi)
{
	uint32_t e = lo + (uint32_t)(rnd() % (hi - lo + 1));

	return from_bits((uint32_t)(rnd() & 0x807fffffu) | e << 23);
}

static bool same(const struct xsum *a, const struct xsum *b)
{
	return !memcmp(a->limb, b->limb, sizeof a->limb) &&
	       a->nan == b->nan && a->pinf == b->pinf && a->ninf == b->ninf;
}

/* A float of exponent field e (clamped at 0), sign s, mantissa bits m. */
static float of_exp(int e, uint32_t s, uint32_t m)
{
	return from_bits(s << 31 | (uint32_t)(e < 0 ? 0 : e) << 23 |
			 (m & 0x7fffffu));
}

/* As bench_kernels --gen f32: (u - 0.5) * 2^k, k in -20..20. With clip,
 * |u - 0.5| >= 2^-10, so a block spans at most 50 binades: 3 tiers. */
static float wide(bool clip)
{
	double u = (double)(rnd() >> 11) * 0x1p-53 - 0.5;

	if (clip && fabs(u) < 0x1p-10)
		u = u < 0 ? -0x1p-10 : 0x1p-10;
	return (float)ldexp(u, (int)(rnd() % 41) - 20);
}

#define TIER 20		/* exponents a tier spans (FSUM32_WINDOW + 1) */

/*
 * Blocks of 1024 whose largest exponent is emax, with values on the top
 * and the floor of every tier down to the subnormals, and tier k (0 ..)
 * filled to the edge: 900 values at its top with every mantissa bit set,
 * one sign, sum to 2^52.8 of its unit. Then its floor's values with the
 * unit bit set, and those a binade below (the next tier's top), force a
 * rounding on any tier a binade wider than it should be.
 */
static void tier_blocks(float *v, size_t n, int emax, int k)
{
	int top = emax - TIER * k;

	for (size_t i = 0; i < n; i++) {
		size_t j = i % 1024;
		int t = (int)(rnd() % 14);
		int off = rnd() % 3 ? 0 : rnd() & 1 ? TIER - 1 : TIER;

		if (j == 0)
			v[i] = of_exp(emax, rnd() & 1, (uint32_t)rnd());
		else if (j <= 900)
			v[i] = of_exp(top, 0, 0x7fffff);
		else if (j <= 950)
			v[i] = of_exp(top - (TIER - 1), 0, (uint32_t)rnd() | 1);
		else if (j <= 1000)
			v[i] = of_exp(top - TIER, 0, (uint32_t)rnd() | 1);
		else	/* a tier's top, its floor or the binade below; a
			 * quarter of them powers of 2, the least of a binade */
			v[i] = of_exp(emax - TIER * t - off, rnd() & 1,
				      rnd() & 3 ? (uint32_t)rnd() : 0);
	}
}

static struct xbins bins;

/* Both loops against the reference; returns the additions they made (the
 * same in both: they choose the same tiers). */
static size_t check(const char *what, const float *v, size_t n)
{
	struct xsum want, got;
	size_t adds[2];

	xsum_init(&want);
	for (size_t i = 0; i < n; i++)
		xsum_add_f64(&want, v[i]);
	for (int portable = 0; portable < 2; portable++) {
		cpu_portable = portable;
		xbins_init(&bins);
		xsum_init(&got);
		adds[portable] = fsum32_add(&bins, v, n);
		xbins_flush(&bins, &got);
		CHECKF(same(&want, &got), "%s, n %zu, %s loop (sum %.17g, "
		       "want %.17g)", what, n, portable ? "C" : "AVX2",
		       xsum_to_f64(&got), xsum_to_f64(&want));
		CHECKF(adds[portable] <= n, "%s: %zu adds for %zu values",
		       what, adds[portable], n);
	}
	cpu_portable = false;
	CHECKF(adds[0] == adds[1], "%s, n %zu: %zu adds in AVX2, %zu in C",
	       what, n, adds[0], adds[1]);
	return adds[0];
}

#define N 9000

int main(void)
{
	static float v[N];
	static const size_t lens[] = { 0, 1, 7, 1023, 1024, 1025, 2048, 4097,
				       N };

	for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		size_t n = lens[k];

		for (size_t i = 0; i < n; i++)
			v[i] = rnd_exp(120, 130);
		check("a narrow range", v, n);
		for (size_t i = 0; i < n; i++)
			v[i] = rnd_exp(0, 254);
		check("every exponent", v, n);
		for (size_t i = 0; i < n; i++)
			v[i] = rnd_exp(100, 130);
		check("the window's edge", v, n);
	}
	for (unsigned top = 1; top < 30; top++) {
		for (size_t i = 0; i < 3000; i++)
			v[i] = rnd_exp(0, top);
		check("windows that reach the subnormals", v, 3000);
	}
	for (size_t i = 0; i < N; i++)
		v[i] = rnd_exp(0, 0);
	check("subnormals", v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = rnd_exp(254, 254);
	check("the largest finite values", v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = from_bits(rnd() & 1 ? 0x80000000u : 0);
	check("zeros", v, N);
	for (size_t i = 0; i < N; i += 2) {
		v[i] = rnd_exp(140, 150);
		v[i + 1] = -v[i];
	}
	v[5000] = from_bits(1);			/* the smallest subnormal */
	v[6001] = rnd_exp(1, 10);
	check("cancelling pairs and tiny remainders", v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = rnd_exp(125, 129);
	v[3] = 1e-30f;
	v[2050] = -2e-38f;
	check("a few values below the window", v, N);
	v[1500] = INFINITY;
	check("an infinity", v, N);
	v[7000] = -INFINITY;
	check("both infinities", v, N);
	v[20] = NAN;
	check("a NaN", v, N);

	for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		size_t n = lens[k], adds;

		for (size_t i = 0; i < n; i++)
			v[i] = wide(false);
		check("41 binades", v, n);
		/* in tier sums, not one by one: 3 tiers a block at most */
		for (size_t i = 0; i < n; i++)
			v[i] = wide(true);
		adds = check("41 binades, 3 tiers", v, n);
		CHECKF(adds <= 3 * (n / 1024) + n % 1024, "41 binades, 3 "
		       "tiers, n %zu: %zu adds", n, adds);
		for (size_t i = 0; i < n; i++)
			v[i] = rnd() % 3 ? wide(false)
					 : from_bits((uint32_t)(rnd() & 1) << 31);
		check("41 binades and zeros of both signs", v, n);
	}
	/* every tier's edges, from the largest exponent down and from ones
	 * whose tiers reach the subnormals (0 .. 60) or end just above them */
	for (int emax = 254; emax >= 0; emax -= emax > 61 ? 13 : 1)
		for (int k = 0; k * TIER <= emax; k++) {
			tier_blocks(v, 2048, emax, k);
			check("the tiers' edges", v, 2048);
		}
	tier_blocks(v, N, 254, 3);
	check("the tiers' edges, with a tail", v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = rnd() % 8 ? rnd_exp(0, 1) : rnd_exp(20, 60);
	check("subnormals beside values up to 2^-66", v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = rnd() % 8 ? rnd_exp(0, 0) : rnd_exp(100, 254);
	check("subnormals beside large values", v, N);
	/* a block of zeros but one value: its smallest nonzero is that one */
	for (size_t i = 0; i < N; i++)
		v[i] = from_bits((uint32_t)(rnd() & 1) << 31);
	v[10] = from_bits(1);
	v[1030] = rnd_exp(1, 1);
	v[2100] = rnd_exp(254, 254);
	v[2101] = rnd_exp(40, 40);
	v[3100] = rnd_exp(140, 140);
	v[3101] = from_bits(0x80000003u);
	check("zeros and a few values far apart", v, N);
	for (size_t i = 0; i < N; i++)
		v[i] = wide(false);
	v[100] = INFINITY;
	v[5000] = NAN;
	check("41 binades, an infinity and a NaN", v, N);
	v[100] = wide(false);
	v[5000] = -INFINITY;
	v[N - 1] = INFINITY;		/* in the tail */
	check("41 binades, both infinities", v, N);
	UNIT_END();
}
