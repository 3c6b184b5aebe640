/*
 * scan_check_block.cuh - the GPU scan's block-wide scans replayed on the
 * host, each in its device's grouping, on the kernels' own monoids: the
 * warp scan (block_scan.cuh) and the classic scans of --algorithm
 * (block_scan_classic.cuh, whose __host__ __device__ steps are called
 * here in the device's order). Included by scan_algos_host_check.cu (the
 * block scans against each other).
 */
#ifndef SCAN_CHECK_BLOCK_CUH
#define SCAN_CHECK_BLOCK_CUH

#include <vector>
#include "scan_handle.cuh"

/* block_scan on the host, in the device's grouping (each warp's shuffle
 * steps, then warp 0's shuffle steps over the warps' totals), for the
 * first act threads, the others holding the empty prefix: ex[t] thread t's
 * exclusive prefix, *tot (when not NULL) the block's total. A product's
 * bracket depends on the grouping, so this is the device's, step for
 * step. Adding the empty prefix changes nothing in any monoid, so the
 * whole warps past act are left out. */
template <class Op>
static void emu_block_warp(const scan_cfg &c, const typename Op::V *in,
			   unsigned act, typename Op::V *ex, typename Op::V *tot)
{
	typedef typename Op::V V;
	unsigned nt = (act + 31) / 32 * 32, nw = nt / 32;
	std::vector<V> inc(in, in + nt), o;
	V v[SCAN_WARPS], ov[SCAN_WARPS], wp[SCAN_WARPS];

	for (unsigned d = 1; d < 32; d <<= 1) {
		o = inc;
		for (unsigned t = 0; t < nt; t++)
			if (t % 32 >= d)
				inc[t] = Op::add(o[t - d], o[t], c);
	}
	/* warp 0's scan of the warps' totals (those past nw are empty) */
	for (unsigned w = 0; w < nw; w++)
		v[w] = inc[w * 32 + 31];
	for (unsigned d = 1; d < SCAN_WARPS; d <<= 1) {
		for (unsigned w = 0; w < nw; w++)
			ov[w] = v[w];
		for (unsigned w = d; w < nw; w++)
			v[w] = Op::add(ov[w - d], ov[w], c);
	}
	for (unsigned w = 0; w < nw; w++)
		wp[w] = w ? v[w - 1] : Op::ident(c);
	for (unsigned t = 0; t < nt; t++)
		ex[t] = t % 32 ? Op::add(wp[t / 32], inc[t - 1], c) : wp[t / 32];
	if (tot)
		*tot = nw ? v[nw - 1] : Op::ident(c);
}

/* The classic scans' buffer at their start: the first act threads'
 * values (the threads of act's last warp past it hold the empty prefix,
 * as on the device), the empty prefix for the whole warps past act. */
template <class Op>
static std::vector<typename Op::V> emu_classic_in(const scan_cfg &c,
						   const typename Op::V *in,
						   unsigned act)
{
	unsigned nt = (act + 31) / 32 * 32;
	std::vector<typename Op::V> x(SCAN_CLASSIC_SLOTS, Op::ident(c));

	for (unsigned t = 0; t < nt && t < SCAN_THREADS; t++)
		x[t] = in[t];
	return x;
}

/* block_scan_hs on the host: each step's reads by every thread, then
 * their writes (the device's barrier between them). ex and tot as
 * emu_block_warp's. */
template <class Op>
static void emu_block_hs(const scan_cfg &c, const typename Op::V *in,
			 unsigned act, typename Op::V *ex, typename Op::V *tot)
{
	typedef typename Op::V V;
	std::vector<V> x = emu_classic_in<Op>(c, in, act), v(x);

	for (unsigned d = 1; d < SCAN_THREADS; d <<= 1) {
		for (unsigned i = 0; i < SCAN_THREADS; i++)
			v[i] = hs_step<Op>(x.data(), i, d, v[i], c);
		for (unsigned i = 0; i < SCAN_THREADS; i++)
			x[i] = v[i];
	}
	for (unsigned i = 0; i < SCAN_THREADS; i++)
		ex[i] = i ? x[i - 1] : Op::ident(c);
	if (tot)
		*tot = x[SCAN_THREADS - 1];
}

/* block_scan_blelloch on the host: the threads of a level touch disjoint
 * elements, so one after the other they do what they do at once. */
template <class Op>
static void emu_block_blelloch(const scan_cfg &c, const typename Op::V *in,
			       unsigned act, typename Op::V *ex,
			       typename Op::V *tot)
{
	std::vector<typename Op::V> x = emu_classic_in<Op>(c, in, act);

	for (unsigned d = 1; d < SCAN_THREADS; d <<= 1)
		for (unsigned k = 0; k < SCAN_THREADS / (2 * d); k++)
			blelloch_up<Op>(x.data(), k, d, c);
	blelloch_root<Op>(x.data(), c);
	for (unsigned d = SCAN_THREADS / 2; d; d >>= 1)
		for (unsigned k = 0; k < SCAN_THREADS / (2 * d); k++)
			blelloch_down<Op>(x.data(), k, d, c);
	for (unsigned i = 0; i < SCAN_THREADS; i++)
		ex[i] = x[i];
	if (tot)
		*tot = x[SCAN_THREADS];
}

/* The block scan of the kernels' scan_block: c.block's. ex holds
 * SCAN_THREADS values. */
template <class Op>
static void emu_block_scan(const scan_cfg &c, const typename Op::V *in,
			   unsigned act, typename Op::V *ex, typename Op::V *tot)
{
	if (c.block == SCAN_BLOCK_HS)
		emu_block_hs<Op>(c, in, act, ex, tot);
	else if (c.block == SCAN_BLOCK_BLELLOCH)
		emu_block_blelloch<Op>(c, in, act, ex, tot);
	else
		emu_block_warp<Op>(c, in, act, ex, tot);
}

#endif
