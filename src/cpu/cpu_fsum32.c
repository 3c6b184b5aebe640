/*
 * cpu_fsum32.c - the exact sum of f32 values in doubles, a block at a time.
 *
 * A finite f32 is m * 2^(E - 150) with m < 2^24 and E its biased exponent
 * (1 for subnormals). Take a run of FSUM32_WINDOW + 1 exponents whose top
 * is T, and its floor L = T - FSUM32_WINDOW, or 0 where that would reach
 * the subnormals. The values with L <= E <= T are whole multiples of
 * u = 2^(max(L, 1) - 150), each below 2^(24 + FSUM32_WINDOW) u = 2^43 u
 * (below 2^42 u when L is 0: then u is the smallest subnormal and T <= 19).
 * 1024 of them sum to less than 2^53 u, so every partial sum is a multiple
 * of u that a double holds exactly: they are summed in doubles, in any
 * order, with no rounding at all.
 *
 * A block of FSUM32_BLOCK values is cut into such runs, tiers, from its
 * largest exponent Emax down: tier 0 is [Emax - FSUM32_WINDOW, Emax], tier 1
 * the FSUM32_WINDOW + 1 exponents below that, and so on, as many as reach
 * the block's smallest nonzero value, at most FSUM32_TIERS. Each tier is
 * one pass over the block (in L1 by then) and one double into the exact
 * bins (struct xbins). Values below the last tier go into the bins one by
 * one, and so does a block with an infinity or NaN.
 *
 * The AVX2 loop does 8 values per step: mask, widen, add. Other machines
 * run the same steps in C.
 */
#include <stdint.h>
#include <string.h>
#include "acc.h"
#include "cpu_fsum32.h"

#define FSUM32_BLOCK 1024
#define FSUM32_WINDOW 19	/* 24 + 19 + log2(1024) = 53 */
/*
 * Each tier after the first rereads the block from L1: about 0.16 us a
 * block on one core of a 2-core Xeon, the cost of some 70 values sent one
 * by one. Data over 2^-20..2^20 (bench_kernels --gen f32) needs 3 tiers in
 * nearly every block. 8 cover 160 binades: data whose exponents spread
 * evenly over 100 binades summed 1.25x faster than with 4, and the worst
 * case measured, blocks with one value in each of 7 tiers, about as fast
 * (128 MiB in 0.053 s against 0.050 s, and 0.038 s before tiers: the
 * first pass, from memory, costs the most).
 */
#define FSUM32_TIERS 8
#define EXP_MASK 0x7f800000u
#define ABS_MASK 0x7fffffffu
#define BINADE (1u << 23)	/* one step of the exponent field */

/* The bins take anything, one value at a time. */
static void values_to_bins(struct xbins *b, const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		xbins_add_f64(b, v[i]);
}

/* The lowest exponent field of the tier whose highest is top (both as
 * fields, shifted in place). */
static inline uint32_t window_floor(uint32_t top)
{
	return top >= (FSUM32_WINDOW + 1u) << 23 ? top - (FSUM32_WINDOW << 23)
						 : 0;
}

/* The floors of the tiers of a block whose exponent fields run from emax
 * down to emin (its smallest nonzero value's): each tier starts a binade
 * below the last one's floor, until a floor reaches emin or there are
 * FSUM32_TIERS. Returns how many; lim[0] is the highest. */
static unsigned tier_floors(uint32_t emax, uint32_t emin,
			    uint32_t lim[FSUM32_TIERS])
{
	unsigned n = 1;

	lim[0] = window_floor(emax);
	/* lim > emin >= 0, so lim is a binade at least */
	while (lim[n - 1] > emin && n < FSUM32_TIERS) {
		lim[n] = window_floor(lim[n - 1] - BINADE);
		n++;
	}
	return n;
}

/* The nonzero values of a block below its last tier, one by one; how many
 * (fewer than the block: its largest is in tier 0). They are gathered
 * first with no branch: in data of many magnitudes whether a value lies
 * below is a coin toss, and a mispredicted branch per value cost more than
 * the additions. */
static size_t below_to_bins(struct xbins *b, const float *v, uint32_t lim)
{
	const uint32_t *u = (const uint32_t *)v;
	float below[FSUM32_BLOCK];
	size_t n = 0;

	/* 0 < |x| < lim, as bits; lim is a binade at least */
	for (size_t i = 0; i < FSUM32_BLOCK; i++) {
		below[n] = v[i];
		n += (u[i] & ABS_MASK) - 1 < lim - 1;
	}
	for (size_t i = 0; i < n; i++)
		xbins_add_f64(b, below[i]);
	return n;
}

/* The two kernels a block runs on: the largest exponent field of the block
 * and the smallest of its nonzero values (into *emin; 0 when all are
 * zeros), and the sum of its values whose field e has lo <= e < hi. */
struct fsum32_kernels {
	uint32_t (*range)(const float *v, uint32_t *emin);
	double (*tier_sum)(const float *v, uint32_t lo, uint32_t hi);
};

/* One block into the bins; how many additions. Only nonzero tier sums go
 * in, so the additions are at most the block's nonzero values: never more
 * than its length, as fsum32_add promises. */
static size_t block_to_bins(struct xbins *b, const float *v,
			    const struct fsum32_kernels *k)
{
	uint32_t emin, emax = k->range(v, &emin), hi = EXP_MASK;
	uint32_t lim[FSUM32_TIERS];
	unsigned ntier;
	size_t adds = 0;

	if (emax == EXP_MASK) {
		values_to_bins(b, v, FSUM32_BLOCK);
		return FSUM32_BLOCK;
	}
	ntier = tier_floors(emax, emin, lim);
	for (unsigned t = 0; t < ntier; hi = lim[t++]) {
		double s = k->tier_sum(v, lim[t], hi);

		if (s != 0) {
			xbins_add_f64(b, s);
			adds++;
		}
	}
	if (emin < lim[ntier - 1])
		adds += below_to_bins(b, v, lim[ntier - 1]);
	return adds;
}

static uint32_t range_c(const float *v, uint32_t *emin)
{
	const uint32_t *u = (const uint32_t *)v;
	uint32_t emax = 0, m = UINT32_MAX;

	for (size_t i = 0; i < FSUM32_BLOCK; i++) {
		uint32_t e = u[i] & EXP_MASK, a = (u[i] & ABS_MASK) - 1;

		emax = e > emax ? e : emax;
		m = a < m ? a : m;	/* zeros wrap to the top */
	}
	*emin = (m + 1) & EXP_MASK;
	return emax;
}

static double tier_sum_c(const float *v, uint32_t lo, uint32_t hi)
{
	const uint32_t *u = (const uint32_t *)v;
	double acc[8] = { 0 }, s = 0;

	for (size_t i = 0; i < FSUM32_BLOCK; i += 8)
		for (unsigned j = 0; j < 8; j++) {
			/* lo <= e < hi in one compare; the others' bits are
			 * masked to +0, with no branch to mispredict */
			uint32_t x = u[i + j], e = x & EXP_MASK;
			uint32_t keep = e - lo < hi - lo;
			float f;

			x &= -keep;
			memcpy(&f, &x, sizeof f);
			acc[j] += f;
		}
	for (unsigned j = 0; j < 8; j++)
		s += acc[j];
	return s;
}

static const struct fsum32_kernels kernels_c = { range_c, tier_sum_c };

static size_t blocks(struct xbins *b, const float *v, size_t nblk,
		     const struct fsum32_kernels *k)
{
	size_t adds = 0;

	for (size_t i = 0; i < nblk; i++, v += FSUM32_BLOCK)
		adds += block_to_bins(b, v, k);
	return adds;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2")))
static uint32_t range_avx2(const float *v, uint32_t *emin)
{
	const __m256i em = _mm256_set1_epi32((int)EXP_MASK);
	const __m256i am = _mm256_set1_epi32((int)ABS_MASK);
	const __m256i one = _mm256_set1_epi32(1);
	__m256i m0 = _mm256_setzero_si256(), m1 = m0;
	__m256i n0 = _mm256_set1_epi32(-1), n1 = n0;
	uint32_t l[8], s[8], r = 0, m = UINT32_MAX;

	for (size_t i = 0; i < FSUM32_BLOCK; i += 16) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(v + i));
		__m256i c = _mm256_loadu_si256((const __m256i *)(v + i + 8));

		m0 = _mm256_max_epu32(m0, _mm256_and_si256(a, em));
		m1 = _mm256_max_epu32(m1, _mm256_and_si256(c, em));
		/* |x| - 1, unsigned: zeros wrap to the top */
		n0 = _mm256_min_epu32(n0, _mm256_sub_epi32(
					      _mm256_and_si256(a, am), one));
		n1 = _mm256_min_epu32(n1, _mm256_sub_epi32(
					      _mm256_and_si256(c, am), one));
	}
	_mm256_storeu_si256((__m256i *)l, _mm256_max_epu32(m0, m1));
	_mm256_storeu_si256((__m256i *)s, _mm256_min_epu32(n0, n1));
	for (unsigned j = 0; j < 8; j++) {
		r = l[j] > r ? l[j] : r;
		m = s[j] < m ? s[j] : m;
	}
	*emin = (m + 1) & EXP_MASK;
	return r;
}

/* Eight values: those whose exponent field e has lov < e < hiv, as signed
 * ints (fields are below 2^31), widened, into two accumulators of four
 * doubles. */
__attribute__((target("avx2")))
static inline void step_avx2(const float *v, __m256i lov, __m256i hiv,
			     __m256d *a0, __m256d *a1)
{
	const __m256i em = _mm256_set1_epi32((int)EXP_MASK);
	__m256i x = _mm256_loadu_si256((const __m256i *)v);
	__m256i e = _mm256_and_si256(x, em);
	__m256i keep = _mm256_and_si256(_mm256_cmpgt_epi32(e, lov),
					_mm256_cmpgt_epi32(hiv, e));
	__m256 f = _mm256_and_ps(_mm256_castsi256_ps(x),
				 _mm256_castsi256_ps(keep));

	*a0 = _mm256_add_pd(*a0, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
	*a1 = _mm256_add_pd(*a1, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
}

__attribute__((target("avx2")))
static double tier_sum_avx2(const float *v, uint32_t lo, uint32_t hi)
{
	/* lo - 1 is -1 for a floor of 0: every field is above it */
	__m256i lov = _mm256_set1_epi32((int)lo - 1);
	__m256i hiv = _mm256_set1_epi32((int)hi);
	__m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
	double l[4];

	for (size_t i = 0; i < FSUM32_BLOCK; i += 16) {
		step_avx2(v + i, lov, hiv, &a0, &a1);
		step_avx2(v + i + 8, lov, hiv, &a2, &a3);
	}
	a0 = _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3));
	_mm256_storeu_pd(l, a0);
	return (l[0] + l[1]) + (l[2] + l[3]);
}

static const struct fsum32_kernels kernels_avx2 = { range_avx2,
						    tier_sum_avx2 };
#else
#define kernels_avx2 kernels_c
#endif

size_t fsum32_add(struct xbins *b, const float *v, size_t n)
{
	size_t nblk = n / FSUM32_BLOCK, tail = n % FSUM32_BLOCK, adds;
	bool avx2 = cpu_avx2();

	adds = blocks(b, v, nblk, avx2 ? &kernels_avx2 : &kernels_c);
	values_to_bins(b, v + nblk * FSUM32_BLOCK, tail);
	return adds + tail;
}
