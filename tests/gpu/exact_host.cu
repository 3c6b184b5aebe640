/*
 * exact_host.cu - the window fast paths of the exact GPU sums (cuda/exact.cuh,
 * used by reduce_kernels.cu and stats_kernels.cu through red_sum.cuh and
 * stats_fold.cuh), run on the host: each kernel's per-thread function is
 * __host__ __device__, so a loop over the "threads" of a grid, in order,
 * computes what the kernel would, and the result must equal struct xsum's
 * sum of the same values element by element (src/numerics/xsum.c, tested
 * against Fraction vectors in unit_xsum). No GPU needed.
 *
 * Build and run from the repository root, after make: sh
 * tests/gpu/exact_host.sh (nvcc, the kernels' headers red_sum.cuh and
 * stats_fold.cuh, the C objects); it prints "unit: P passed, F failed".
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "red_sum.cuh"
#include "stats_fold.cuh"
#include "../unit.h"

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;

static unsigned long long rnd(void)
{
	unsigned long long z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double unif(void)
{
	return (double)(rnd() >> 11) * 0x1p-53;
}

/* The kinds of data: each stresses another path of the window. */
enum kind {
	K_BENCH,	/* bench_gpu's: [-0.25, 0.75) in steps of 2^-24 */
	K_NORMAL,	/* roughly normal, both signs */
	K_BITS,		/* random bit patterns: every exponent, subnormals, NaN, inf */
	K_OUTLIERS,	/* mostly near 1, now and then 2^+-60 and 2^+-100 */
	K_SPARSE,	/* mostly zeros (+0 and -0), some subnormals */
	K_GROWING,	/* magnitudes growing with the index: many window moves */
	K_MAXMAG,	/* the largest finite magnitudes, mixed signs */
	K_ALLMAX,	/* the largest finite value only: the bound on the sums */
	K_NKINDS
};

static const char *kind_name[K_NKINDS] = {
	"bench", "normal", "bits", "outliers", "sparse", "growing", "maxmag",
	"allmax",
};

static double gen(enum kind k, size_t i, size_t n, bool f32)
{
	double v;

	switch (k) {
	case K_BENCH:
		return (double)(rnd() & 0xffffff) * 0x1p-24 - 0.25;
	case K_NORMAL:
		v = (unif() + unif() + unif() + unif() - 2) * 3;
		return f32 ? (float)v : v;
	case K_OUTLIERS: {
		unsigned r = (unsigned)(rnd() % 64);
		double big = f32 ? 0x1p60 : 0x1p100;

		v = 1 + unif();
		if (r == 0)
			v *= big;
		else if (r == 1)
			v /= big;
		else if (r == 2)
			v *= 0x1p-60;
		if (rnd() & 1)
			v = -v;
		return f32 ? (float)v : v;
	}
	case K_SPARSE:
		if (rnd() % 8)
			return rnd() & 1 ? 0.0 : -0.0;
		v = f32 ? (double)(rnd() % 8388608) * 0x1p-149 :
			  (double)(rnd() % (1ull << 52)) * 0x1p-1074;
		return rnd() & 1 ? -v : v;
	case K_GROWING:
		v = ldexp(1 + unif(), (int)(i * (f32 ? 250 : 2000) / (n + 1)) -
					(f32 ? 140 : 1060));
		v = f32 ? (float)v : v;
		return rnd() & 1 ? -v : v;
	case K_MAXMAG:
		v = f32 ? (double)FLT_MAX * (1 - unif() * 0x1p-3) :
			  DBL_MAX * (1 - unif() * 0x1p-3);
		v = f32 ? (float)v : v;
		return rnd() & 1 ? -v : v;
	case K_ALLMAX:
		return f32 ? (double)FLT_MAX : DBL_MAX;
	default:
		break;
	}
	return 0;
}

/* Random bits: K_BITS, as the raw pattern. */
static void fill(enum kind k, void *p, size_t n, bool f32)
{
	for (size_t i = 0; i < n; i++) {
		if (f32) {
			float f = (float)gen(k, i, n, true);
			unsigned u = (unsigned)rnd();

			if (k == K_BITS)
				memcpy(&f, &u, 4);
			((float *)p)[i] = f;
		} else {
			double d = gen(k, i, n, false);
			unsigned long long u = rnd();

			if (k == K_BITS)
				memcpy(&d, &u, 8);
			((double *)p)[i] = d;
		}
	}
}

static bool xsum_same(const struct xsum *a, const struct xsum *b)
{
	return !memcmp(a->limb, b->limb, sizeof a->limb) && a->nan == b->nan &&
	       a->pinf == b->pinf && a->ninf == b->ninf;
}

/* A grid of T threads over p[0 .. n), as red_sum_win_kernel runs it. */
template <typename F>
static void red_emulate(const F *p, size_t n, size_t T, struct xsum *out)
{
	static struct exact_acc a;

	memset(&a, 0, sizeof a);
	for (size_t g = 0; g < T; g++) {
		struct exact_thr t;

		exact_thr_init(&t, EXACT_EMIN);
		red_win_thread(&t, p, n, g, T, a.slot);
		exact_thr_flush(&t, a.slot);
		a.flags |= t.flags;
	}
	xsum_init(out);
	exact_to_xsum(&a, out);
}

template <typename F>
static void check_sum(enum kind k, size_t n, size_t T)
{
	F *p = (F *)aligned_alloc(16, (n * sizeof(F) + 15) / 16 * 16 + 16);
	struct xsum want, got;

	fill(k, p, n, sizeof(F) == 4);
	xsum_init(&want);
	for (size_t i = 0; i < n; i++)
		xsum_add_f64(&want, (double)p[i]);
	red_emulate(p, n, T, &got);
	CHECKF(xsum_same(&want, &got), "sum %s %s n=%zu T=%zu",
	       sizeof(F) == 4 ? "f32" : "f64", kind_name[k], n, T);
	free(p);
}

/* What a grid of T threads of stats_kernel leaves for one f32 column:
 * through the window path (win) or the generic stats_fold. */
struct stats_out {
	struct xsum s1, s2;
	unsigned long long nan, kmax, nkmin;
};

static void stats_emulate(const float *p, size_t n, size_t T, bool win,
			  struct stats_out *o)
{
	static struct exact_acc a[2];

	memset(a, 0, sizeof a);
	o->nan = o->kmax = o->nkmin = 0;
	for (size_t g = 0; g < T; g++) {
		struct stats_thr r;
		long long sh[2 * EXACT_SLOTS] = { 0 };

		if (win)
			stats_fold_win(&r, p, n, g, T, sh);
		else if (!stats_fold(&r, p, n, 1, g, T, sh))
			continue;
		exact_thr_flush(&r.s1, sh);
		exact_thr_flush(&r.s2, sh + EXACT_SLOTS);
		for (int q = 0; q < EXACT_SLOTS; q++) {
			a[0].slot[q] += sh[q];
			a[1].slot[q] += sh[EXACT_SLOTS + q];
		}
		a[0].flags |= r.s1.flags;
		a[1].flags |= r.s2.flags;
		o->nan += r.nan;
		o->kmax = r.kmax > o->kmax ? r.kmax : o->kmax;
		o->nkmin = r.nkmin > o->nkmin ? r.nkmin : o->nkmin;
	}
	xsum_init(&o->s1);
	xsum_init(&o->s2);
	exact_to_xsum(&a[0], &o->s1);
	exact_to_xsum(&a[1], &o->s2);
}

static void check_stats(enum kind k, size_t n, size_t T)
{
	float *p = (float *)aligned_alloc(16, (n * 4 + 15) / 16 * 16 + 16);
	struct stats_out want, got;
	struct xsum s1, s2;

	fill(k, p, n, true);
	stats_emulate(p, n, T, false, &want);
	stats_emulate(p, n, T, true, &got);
	xsum_init(&s1);
	xsum_init(&s2);
	for (size_t i = 0; i < n; i++)
		if (p[i] == p[i]) {
			xsum_add_f64(&s1, p[i]);
			xsum_add_prod_f64(&s2, p[i], p[i]);
		}
	CHECKF(xsum_same(&want.s1, &s1) && xsum_same(&want.s2, &s2),
	       "generic stats %s n=%zu T=%zu", kind_name[k], n, T);
	CHECKF(xsum_same(&got.s1, &s1) && xsum_same(&got.s2, &s2) &&
	       got.nan == want.nan && got.kmax == want.kmax &&
	       got.nkmin == want.nkmin,
	       "window stats %s n=%zu T=%zu", kind_name[k], n, T);
	free(p);
}

static const size_t sizes[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31,
				63, 64, 65, 255, 1000, 4099, 65536 + 3 };
static const size_t grids[] = { 1, 2, 3, 7, 32, 257 };

int main(void)
{
	for (int k = 0; k < K_NKINDS; k++)
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
			for (size_t g = 0; g < sizeof grids / sizeof *grids; g++) {
				check_sum<float>((enum kind)k, sizes[s], grids[g]);
				check_sum<double>((enum kind)k, sizes[s], grids[g]);
				check_stats((enum kind)k, sizes[s], grids[g]);
			}
	/* the bounds: one thread takes 2^21 of the largest values (f64: the
	 * most EXACT_WIN_TERMS allows; f32's int64 per iteration and 128-bit
	 * window are far from full) */
	check_sum<double>(K_ALLMAX, EXACT_WIN_TERMS, 1);
	check_sum<float>(K_ALLMAX, EXACT_WIN_TERMS, 1);
	check_sum<double>(K_MAXMAG, 1 << 18, 1);
	check_sum<float>(K_MAXMAG, 1 << 18, 1);
	check_stats(K_ALLMAX, EXACT_WIN_TERMS, 1);
	check_stats(K_MAXMAG, 1 << 18, 1);
	UNIT_END();
}
