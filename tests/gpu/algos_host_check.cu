/*
 * algos_host_check.cu - --algorithm atomic and block-tree (cuda/algos/
 * exact_algos.cuh) replayed on the host, no GPU needed: sums (reduce's
 * red_sum_piece) and dot products (dot_piece) of random data of several
 * types, column counts, grid sizes and lengths, grouped as the kernels
 * group them (every thread's fold; atomic: flushes into one slot array,
 * then exact_drain_slot; block-tree: each block's exact_tree_pair steps,
 * its row of slots, then exact_slots_add_wide of the rows), must give the
 * same struct xsum as the CPU's plain sum of every element, bit for bit.
 * The kernels' own arithmetic is what runs here (__host__ __device__);
 * only the thread scheduling is the host's.
 */
#include <stdlib.h>
#include <string.h>
#include "dot_kernels.cu"
#include "algos/reduce_algos.cu"
#include "../unit.h"
extern "C" {
#include "algorithm.h"
}

static unsigned long long rng = 0x2545f4914f6cdd1dull;

static unsigned long long rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static bool xsum_same(const struct xsum *a, const struct xsum *b)
{
	return !memcmp(a->limb, b->limb, sizeof a->limb) && a->nan == b->nan &&
	       a->pinf == b->pinf && a->ninf == b->ninf;
}

/* n values of T: random bits (wide: every binade, NaN and inf among the
 * floats), or small ones (values near each other: few flushes). */
template <typename T>
static void fill(T *p, size_t n, bool wide)
{
	for (size_t i = 0; i < n; i++) {
		unsigned long long r = rnd();

		if (!wide)
			r &= 0x3f;
		if constexpr (std::is_same<T, float>::value) {
			float f = wide ? 0 : (float)r / 64;
			unsigned u = (unsigned)r;

			if (wide)
				memcpy(&f, &u, 4);
			p[i] = f;
		} else if constexpr (std::is_same<T, double>::value) {
			double d = (double)r / 64;

			if (wide)
				memcpy(&d, &r, 8);
			p[i] = d;
		} else {
			memcpy(&p[i], &r, sizeof(T));
		}
	}
}

template <typename T>
static void xadd(struct xsum *x, T v)
{
	if constexpr (std::is_floating_point<T>::value)
		xsum_add_f64(x, (double)v);
	else if constexpr (std::is_signed<T>::value)
		xsum_add_i64(x, (int64_t)v);
	else
		xsum_add_u64(x, (uint64_t)v);
}

template <typename T>
static void xadd_prod(struct xsum *x, T a, T b)
{
	if constexpr (std::is_floating_point<T>::value)
		xsum_add_prod_f64(x, (double)a, (double)b);
	else if constexpr (std::is_signed<T>::value)
		xsum_add_i128(x, (__int128)(long long)a * (long long)b, 0);
	else
		xsum_add_u128(x, (unsigned __int128)(unsigned long long)a *
			      (unsigned long long)b, 0, false);
}

/* The grid of `blocks` blocks of ALGO_THREADS over fold f into ncol sums,
 * as algorithm a groups it; the result as struct xsum per column. */
template <class Fold>
static void emulate(enum gs_algo a, const Fold &f, unsigned ncol,
		    unsigned blocks, struct xsum *out)
{
	unsigned u = exact_algo_used(ALGO_THREADS, ncol), n = ncol * EXACT_SLOTS;
	size_t nthr = (size_t)blocks * u;
	struct exact_acc *acc = (struct exact_acc *)calloc(ncol, sizeof(*acc));
	long long *B = (long long *)calloc((size_t)blocks * n, sizeof(long long));
	static struct exact_thr st[ALGO_THREADS];

	for (unsigned b = 0; b < blocks; b++) {
		long long *sh = a == ALGO_ATOMIC ? B : B + (size_t)b * n;

		for (unsigned tid = 0; tid < ALGO_THREADS; tid++) {
			size_t t = (size_t)b * u + tid;

			if (tid >= u || !f(&st[tid], t, nthr, sh))
				exact_thr_init(&st[tid], 0);
		}
		if (a == ALGO_BLOCK_TREE)
			for (unsigned h = exact_pow2_above(u / ncol) / 2; h > 0; h /= 2)
				for (unsigned tid = 0; tid < ALGO_THREADS; tid++)
					exact_tree_pair(st, tid, h, u, ncol, sh);
		/* atomic: every thread flushes; the tree: lane 0 of each */
		for (unsigned tid = 0; tid < (a == ALGO_ATOMIC ? u : ncol); tid++) {
			exact_thr_flush(&st[tid], sh + (tid % ncol) * EXACT_SLOTS);
			acc[tid % ncol].flags |= st[tid].flags;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		if (a == ALGO_ATOMIC) {
			exact_drain_slot(B, acc, i);
			continue;
		}
		__int128 v = 0;

		for (unsigned b = 0; b < blocks; b++)
			v += B[(size_t)b * n + i];
		exact_slots_add_wide(acc[i / EXACT_SLOTS].slot, i % EXACT_SLOTS, v);
	}
	for (unsigned c = 0; c < ncol; c++) {
		xsum_init(&out[c]);
		exact_to_xsum(&acc[c], &out[c]);
	}
	free(acc);
	free(B);
}

static const enum gs_algo algos[] = { ALGO_ATOMIC, ALGO_BLOCK_TREE };
static const size_t lens[] = { 0, 1, 7, 256, 1001, 40000 };
static const unsigned cols[] = { 1, 3, 64 };
static const unsigned grids[] = { 1, 2, 5 };

template <typename T>
static void check_type(const char *name)
{
	for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++)
	for (unsigned ci = 0; ci < 3; ci++)
	for (int wide = 0; wide < 2; wide++) {
		unsigned C = cols[ci];
		size_t nrec = lens[li], n = nrec * C;
		T *p = (T *)malloc((n ? n : 1) * sizeof(T));
		T *q = (T *)malloc((n ? n : 1) * sizeof(T));
		struct xsum want[64], got[64], dwant[64];

		fill(p, n, wide);
		fill(q, n, wide);
		for (unsigned c = 0; c < C; c++) {
			xsum_init(&want[c]);
			xsum_init(&dwant[c]);
		}
		for (size_t i = 0; i < n; i++) {
			xadd(&want[i % C], p[i]);
			xadd_prod(&dwant[i % C], p[i], q[i]);
		}
		struct red_sum_piece<T> rf = { p, n, C };
		struct dot_map m = { C, C, 1, 0, 0 };	/* dot A B, C columns */
		struct dot_piece<T> df = { p, q, nrec, m };

		for (int ai = 0; ai < 2; ai++)
		for (unsigned gi = 0; gi < 3; gi++) {
			emulate(algos[ai], rf, C, grids[gi], got);
			for (unsigned c = 0; c < C; c++)
				CHECKF(xsum_same(&want[c], &got[c]), "sum %s %s n=%zu "
				       "C=%u blocks=%u wide=%d col %u", name,
				       algo_name(algos[ai]), nrec, C, grids[gi],
				       wide, c);
			emulate(algos[ai], df, C, grids[gi], got);
			for (unsigned c = 0; c < C; c++)
				CHECKF(xsum_same(&dwant[c], &got[c]), "dot %s %s n=%zu "
				       "C=%u blocks=%u wide=%d col %u", name,
				       algo_name(algos[ai]), nrec, C, grids[gi],
				       wide, c);
		}
		free(p);
		free(q);
	}
}

int main(void)
{
	check_type<float>("f32");
	check_type<double>("f64");
	check_type<int32_t>("i32");
	check_type<uint64_t>("u64");
	check_type<int64_t>("i64");
	check_type<uint8_t>("u8");
	UNIT_END();
}
