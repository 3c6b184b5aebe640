/*
 * cpu_fsum32.c - the exact sum of f32 values in doubles, a block at a time.
 *
 * A finite f32 is m * 2^(E - 150) with m < 2^24 and E its biased exponent
 * (1 for subnormals). In a block of FSUM32_BLOCK values whose largest
 * exponent is Emax, the values with E >= Emax - FSUM32_WINDOW are whole
 * multiples of u = 2^(max(Emax - FSUM32_WINDOW, 1) - 150), each below
 * 2^(24 + FSUM32_WINDOW) u = 2^43 u. 1024 of them sum to less than 2^53 u,
 * so every partial sum is a multiple of u that a double holds exactly: the
 * block is summed in doubles, in any order, with no rounding at all, and
 * the block's one double goes into the exact bins (struct xbins). Values
 * below the window (rare: |x| < 2^-19 of the block's largest) go into the
 * bins one by one, and so does a block with an infinity or NaN.
 *
 * The AVX2 loop does 8 values per step: mask, widen, add. Other machines
 * run the same steps in C.
 */
#include <stdint.h>
#include <string.h>
#include "cpu_fsum32.h"

#define FSUM32_BLOCK 1024
#define FSUM32_WINDOW 19	/* 24 + 19 + log2(1024) = 53 */
#define EXP_MASK 0x7f800000u
#define ABS_MASK 0x7fffffffu

bool fsum32_portable;

/* The bins take anything, one value at a time. */
static void values_to_bins(struct xbins *b, const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		xbins_add_f64(b, v[i]);
}

/* The lowest exponent field in the window of a block whose largest is emax
 * (both as fields, shifted in place). */
static inline uint32_t window_floor(uint32_t emax)
{
	return emax >= (FSUM32_WINDOW + 1u) << 23 ? emax - (FSUM32_WINDOW << 23)
						  : 0;
}

/* The values of a block below its window, one by one; how many (fewer
 * than the block: its largest is in the window). */
static size_t below_to_bins(struct xbins *b, const float *v, uint32_t lim)
{
	const uint32_t *u = (const uint32_t *)v;
	size_t n = 0;

	for (size_t i = 0; i < FSUM32_BLOCK; i++)
		if ((u[i] & EXP_MASK) < lim && (u[i] & ABS_MASK)) {
			xbins_add_f64(b, v[i]);
			n++;
		}
	return n;
}

static size_t blocks_c(struct xbins *b, const float *v, size_t nblk)
{
	size_t adds = 0;

	for (size_t k = 0; k < nblk; k++, v += FSUM32_BLOCK) {
		const uint32_t *u = (const uint32_t *)v;
		uint32_t emax = 0, lim, lost = 0;
		double acc[8] = { 0 }, s = 0;

		for (size_t i = 0; i < FSUM32_BLOCK; i++) {
			uint32_t e = u[i] & EXP_MASK;
			emax = e > emax ? e : emax;
		}
		if (emax == EXP_MASK) {
			values_to_bins(b, v, FSUM32_BLOCK);
			adds += FSUM32_BLOCK;
			continue;
		}
		lim = window_floor(emax);
		for (size_t i = 0; i < FSUM32_BLOCK; i += 8)
			for (unsigned j = 0; j < 8; j++) {
				uint32_t x = u[i + j];
				uint32_t keep = (x & EXP_MASK) >= lim;

				acc[j] += keep ? (double)v[i + j] : 0.0;
				lost |= (x & ABS_MASK) & (keep - 1);
			}
		if (lost)
			adds += below_to_bins(b, v, lim);
		for (unsigned j = 0; j < 8; j++)
			s += acc[j];
		xbins_add_f64(b, s);
		adds++;
	}
	return adds;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2")))
static uint32_t emax_avx2(const float *v)
{
	const __m256i em = _mm256_set1_epi32((int)EXP_MASK);
	__m256i m0 = _mm256_setzero_si256(), m1 = m0;
	uint32_t l[8], r = 0;

	for (size_t i = 0; i < FSUM32_BLOCK; i += 16) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(v + i));
		__m256i c = _mm256_loadu_si256((const __m256i *)(v + i + 8));

		m0 = _mm256_max_epu32(m0, _mm256_and_si256(a, em));
		m1 = _mm256_max_epu32(m1, _mm256_and_si256(c, em));
	}
	_mm256_storeu_si256((__m256i *)l, _mm256_max_epu32(m0, m1));
	for (unsigned j = 0; j < 8; j++)
		r = l[j] > r ? l[j] : r;
	return r;
}

/* Eight values: those in the window, widened, into two accumulators of
 * four doubles; the others' bits into *lost. */
__attribute__((target("avx2")))
static inline void step_avx2(const float *v, __m256i limv, __m256d *a0,
			     __m256d *a1, __m256i *lost)
{
	const __m256i em = _mm256_set1_epi32((int)EXP_MASK);
	const __m256i am = _mm256_set1_epi32((int)ABS_MASK);
	__m256i x = _mm256_loadu_si256((const __m256i *)v);
	__m256i keep = _mm256_cmpgt_epi32(_mm256_and_si256(x, em), limv);
	__m256 f = _mm256_and_ps(_mm256_castsi256_ps(x),
				 _mm256_castsi256_ps(keep));

	*a0 = _mm256_add_pd(*a0, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
	*a1 = _mm256_add_pd(*a1, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
	*lost = _mm256_or_si256(*lost,
				_mm256_andnot_si256(keep, _mm256_and_si256(x, am)));
}

__attribute__((target("avx2")))
static size_t blocks_avx2(struct xbins *b, const float *v, size_t nblk)
{
	size_t adds = 0;

	for (size_t k = 0; k < nblk; k++, v += FSUM32_BLOCK) {
		uint32_t emax = emax_avx2(v), lim;
		__m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0;
		__m256i lost = _mm256_setzero_si256(), limv;
		double l[4];

		if (emax == EXP_MASK) {
			values_to_bins(b, v, FSUM32_BLOCK);
			adds += FSUM32_BLOCK;
			continue;
		}
		lim = window_floor(emax);
		/* keep is e > lim - 1, signed: lim 0 keeps every value */
		limv = _mm256_set1_epi32((int)lim - 1);
		for (size_t i = 0; i < FSUM32_BLOCK; i += 16) {
			step_avx2(v + i, limv, &a0, &a1, &lost);
			step_avx2(v + i + 8, limv, &a2, &a3, &lost);
		}
		if (!_mm256_testz_si256(lost, lost))
			adds += below_to_bins(b, v, lim);
		a0 = _mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3));
		_mm256_storeu_pd(l, a0);
		xbins_add_f64(b, (l[0] + l[1]) + (l[2] + l[3]));
		adds++;
	}
	return adds;
}

static bool have_avx2(void)
{
	static int have = -1;

	if (have < 0)
		have = __builtin_cpu_supports("avx2") ? 1 : 0;
	return have;
}
#else
static bool have_avx2(void)
{
	return false;
}
#define blocks_avx2 blocks_c
#endif

size_t fsum32_add(struct xbins *b, const float *v, size_t n)
{
	size_t nblk = n / FSUM32_BLOCK, tail = n % FSUM32_BLOCK, adds;

	if (have_avx2() && !fsum32_portable)
		adds = blocks_avx2(b, v, nblk);
	else
		adds = blocks_c(b, v, nblk);
	values_to_bins(b, v + nblk * FSUM32_BLOCK, tail);
	return adds + tail;
}
