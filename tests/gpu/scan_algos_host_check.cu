/*
 * scan_algos_host_check.cu - the block scans of scan --algorithm
 * hillis-steele and blelloch (cuda/scan/block_scan_classic.cuh) replayed
 * on the host with their own __host__ __device__ steps, no GPU needed:
 * for every monoid the scan kernels run them on (the wide sums of each
 * element type, the window sums of one to three limbs and the hardware
 * window's, min and max keys, float and integer products), blocks of
 * random values of every fill (one thread, partial and whole warps, a
 * partial last tile, the whole block, as the tile and carry kernels fill
 * them: threads past the records hold the empty prefix), each thread's
 * exclusive prefix and the block's total must equal those of the default
 * warp scan (block_scan.cuh, replayed in the device's grouping) and of a
 * fold from the left, bit for bit. A float product is a bracket that
 * follows the grouping, so its prefixes are compared as the outputs they
 * round to (scan_ops.cuh).
 *
 * Whole scans with these block scans, against cpu_scan, run on the GPU
 * (tests/gpu/run.sh's algos part).
 */
#include <stdio.h>
#include <string.h>
#include "scan_check_block.cuh"

static unsigned long long fails, checks, blocks;

#define EXPECT(cond, ...) do {                                            \
	checks++;                                                         \
	if (!(cond) && fails++ < 20) {                                    \
		printf("FAIL %s:%d: ", __FILE__, __LINE__);               \
		printf(__VA_ARGS__);                                      \
		printf("\n");                                             \
	}                                                                 \
} while (0)

static u64 rng = 0x6a09e667f3bcc909ull;

static u64 rnd(void)
{
	u64 z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ---- random values of each monoid --------------------------------------- */

/* Sums are integers of K limbs (any bits: their adds wrap alike in every
 * grouping) with now and then a NaN or infinity flag. */
template <int K>
static void rnd_val(sum_val<K> *v)
{
	for (int j = 0; j < K; j++)
		v->l[j] = rnd();
	v->flags = rnd() % 16 ? 0 : (unsigned)(rnd() % 8);
}

static void rnd_val(sum_hw_val *v)
{
	v->v = (long long)rnd();
}

/* An element of a product, a min or a max: near 1 mostly (a long product
 * stays in range), else any bits (zeros, NaN, inf, huge and tiny values,
 * the extremes of integers). */
static void rnd_elem(float *x)
{
	unsigned u = rnd() % 8 ? 0x3f800000u ^ (unsigned)(rnd() & 0x807fffff)
			       : (unsigned)rnd();

	memcpy(x, &u, 4);
}

static void rnd_elem(double *x)
{
	u64 u = rnd() % 8 ? 0x3ff0000000000000ull ^ (rnd() & 0x800fffffffffffffull)
			  : rnd();

	memcpy(x, &u, 8);
}

static void rnd_elem(f16_bits *x)
{
	x->v = (unsigned short)(rnd() % 8 ? 0x3c00 ^ (rnd() & 0x83ff) : rnd());
}

static void rnd_elem(int *x)
{
	*x = rnd() % 8 ? (int)(rnd() % 7) - 3 : (int)rnd();
}

static void rnd_elem(unsigned long long *x)
{
	*x = rnd() % 8 ? rnd() % 5 : rnd();
}

static void rnd_elem(unsigned char *x)
{
	*x = (unsigned char)rnd();
}

/* A thread's value: random bits of a sum, or the fold of up to SCAN_ITEMS
 * random elements, as a thread folds its records (a key of min or max
 * lies in its type's range, within the empty prefix's). */
template <class Op>
static typename Op::V rnd_value(const scan_cfg &c)
{
	typename Op::V v;

	if constexpr (std::is_same<typename Op::V, fprod>::value ||
		      std::is_same<typename Op::V, iprod>::value ||
		      std::is_same<typename Op::V, word_val>::value) {
		v = Op::ident(c);
		for (int j = 1 + (int)(rnd() % SCAN_ITEMS); j > 0; j--) {
			typename Op::elem x;

			rnd_elem(&x);
			v = Op::add(v, Op::of(x, c), c);
		}
	} else {
		rnd_val(&v);
	}
	return v;
}

/* ---- equality ----------------------------------------------------------- */

template <int K>
static bool same(const sum_val<K> &a, const sum_val<K> &b, const scan_cfg &)
{
	return !memcmp(a.l, b.l, sizeof(a.l)) && a.flags == b.flags;
}

static bool same(const sum_hw_val &a, const sum_hw_val &b, const scan_cfg &)
{
	return a.v == b.v;
}

static bool same(const word_val &a, const word_val &b, const scan_cfg &)
{
	return a.w == b.w && a.nan == b.nan;
}

/* An integer product's magnitude counts where it is below 2^128 and no
 * factor is zero (a zero's output is 0, an overflow's a failure). */
static bool same(const iprod &a, const iprod &b, const scan_cfg &)
{
	return a.flags == b.flags &&
	       ((a.flags & (PROD_OVER | PROD_ZERO)) ||
		(a.mag[0] == b.mag[0] && a.mag[1] == b.mag[1]));
}

/* Two prefixes of monoid Op alike. A float product's brackets of one
 * exact product: the same output, or neither can round it (random values
 * are never that near a tie). */
template <class Op>
static bool same_v(const typename Op::V &a, const typename Op::V &b,
		   const scan_cfg &c)
{
	if constexpr (std::is_same<typename Op::V, fprod>::value) {
		struct scan_bad why;
		u64 x = 0, y = 0;
		bool ra = Op::out(a, c, &x, &why), rb = Op::out(b, c, &y, &why);

		return ra == rb && x == y;
	} else {
		return same(a, b, c);
	}
}

/* ---- the check ---------------------------------------------------------- */

/* One block of act threads with values (those past act the empty prefix):
 * both classic scans against the warp scan and a fold from the left. */
template <class Op>
static void check_block(const char *name, const scan_cfg &c, unsigned act)
{
	typedef typename Op::V V;
	std::vector<V> in(SCAN_THREADS), ref(SCAN_THREADS), warp(SCAN_THREADS),
		ex(SCAN_THREADS);
	V run = Op::ident(c), wtot, tot;

	for (unsigned t = 0; t < SCAN_THREADS; t++)
		in[t] = t < act ? rnd_value<Op>(c) : Op::ident(c);
	for (unsigned t = 0; t < SCAN_THREADS; t++) {
		ref[t] = run;
		run = Op::add(run, in[t], c);
	}
	emu_block_warp<Op>(c, in.data(), act, warp.data(), &wtot);
	EXPECT(same_v<Op>(wtot, run, c), "%s, %u threads: the warp scan's total is "
	       "not the fold's", name, act);
	for (int b : { SCAN_BLOCK_HS, SCAN_BLOCK_BLELLOCH }) {
		scan_cfg cb = c;
		const char *bn = b == SCAN_BLOCK_HS ? "hillis-steele" : "blelloch";
		unsigned t = 0;

		cb.block = b;
		emu_block_scan<Op>(cb, in.data(), act, ex.data(), &tot);
		while (t < act && same_v<Op>(ex[t], warp[t], c) &&
		       same_v<Op>(ex[t], ref[t], c))
			t++;
		EXPECT(t == act, "%s, %u threads, %s: thread %u's prefix differs "
		       "from the warp scan's or the fold's", name, act, bn, t);
		EXPECT(same_v<Op>(tot, wtot, c), "%s, %u threads, %s: the block's total "
		       "differs from the warp scan's", name, act, bn);
	}
	blocks++;
}

/* Every fill of a block, and random ones. */
template <class Op>
static void check_op(const char *name, const scan_cfg &c)
{
	static const unsigned fills[] = { 1, 2, 31, 32, 33, 63, 64, 65, 128,
					  200, 255, 256 };

	for (unsigned f : fills)
		check_block<Op>(name, c, f);
	for (int i = 0; i < 20; i++)
		check_block<Op>(name, c, 1 + (unsigned)(rnd() % SCAN_THREADS));
}

/* The configuration of a job as scan_cfg_of makes it, for what these
 * monoids read: min/max's empty prefix, a product's output format. */
static scan_cfg cfg_of(enum gs_type t, enum gs_op op, enum xfmt out)
{
	scan_cfg c;

	memset(&c, 0, sizeof(c));
	c.op = op;
	c.fmt = ieee_fmt_of(out);
	if (op >= OP_MIN)
		c.ident = scan_word_ident(t, op);
	return c;
}

int main(void)
{
	scan_cfg s = cfg_of(GS_F32, OP_SUM, XF_F32);

	check_op<scan_sum_wide<int, 2, 0>>("sum of i32 (2 limbs)", s);
	check_op<scan_sum_wide<f16_bits, 2, -24>>("sum of f16 (2 limbs)", s);
	check_op<scan_sum_wide<float, 6, -149>>("sum of f32 (6 limbs)", s);
	check_op<scan_sum_wide<double, 34, -1074>>("sum of f64 (34 limbs)", s);
	check_op<scan_sum_window<float, 1>>("f32 sum, 1-limb window", s);
	check_op<scan_sum_window<bf16_bits, 2>>("bf16 sum, 2-limb window", s);
	check_op<scan_sum_window<double, 3>>("f64 sum, 3-limb window", s);
	check_op<scan_sum_hw<double, double>>("f64 sum, hardware window", s);
	check_op<scan_word<int, OP_MIN>>("min of i32",
					 cfg_of(GS_I32, OP_MIN, XF_F64));
	check_op<scan_word<unsigned char, OP_MAX>>("max of u8",
						   cfg_of(GS_U8, OP_MAX, XF_F64));
	check_op<scan_word<float, OP_MIN>>("min of f32",
					   cfg_of(GS_F32, OP_MIN, XF_F32));
	check_op<scan_word<double, OP_MAX>>("max of f64",
					    cfg_of(GS_F64, OP_MAX, XF_F64));
	for (enum xfmt f : { XF_F16, XF_F32, XF_F64 }) {
		scan_cfg p = cfg_of(GS_F32, OP_PROD, f);

		check_op<scan_fprod<float>>("prod of f32", p);
		check_op<scan_fprod<double>>("prod of f64", p);
		check_op<scan_fprod<f16_bits>>("prod of f16", p);
	}
	check_op<scan_iprod<int>>("prod of i32", cfg_of(GS_I32, OP_PROD, XF_F64));
	check_op<scan_iprod<unsigned long long>>("prod of u64",
						 cfg_of(GS_U64, OP_PROD, XF_F64));
	printf("scan_algos_host_check: %llu blocks of every monoid, %llu checks, "
	       "%llu failed\n", blocks, checks, fails);
	return fails != 0;
}
