/*
 * unit_fsum32.c - fsum32_add (cpu_fsum32.c), the AVX2 loop and the C one,
 * against xsum_add_f64 one value at a time, bit for bit: values in and
 * below a block's window, subnormals, zeros of both signs, the largest
 * finite values, cancelling pairs, infinities and NaNs, windows that reach
 * the subnormals, and lengths around the block size.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
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

static struct xbins bins;

static void check(const char *what, const float *v, size_t n)
{
	struct xsum want, got;

	xsum_init(&want);
	for (size_t i = 0; i < n; i++)
		xsum_add_f64(&want, v[i]);
	for (int portable = 0; portable < 2; portable++) {
		size_t adds;

		fsum32_portable = portable;
		xbins_init(&bins);
		xsum_init(&got);
		adds = fsum32_add(&bins, v, n);
		xbins_flush(&bins, &got);
		CHECKF(same(&want, &got), "%s, n %zu, %s loop (sum %.17g, "
		       "want %.17g)", what, n, portable ? "C" : "AVX2",
		       xsum_to_f64(&got), xsum_to_f64(&want));
		CHECKF(adds <= n || n == 0, "%s: %zu adds for %zu values",
		       what, adds, n);
	}
	fsum32_portable = false;
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
	UNIT_END();
}
