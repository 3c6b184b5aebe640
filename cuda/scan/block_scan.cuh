/*
 * block_scan.cuh - an exclusive scan of one monoid value per thread across
 * a block of SCAN_THREADS (CUB's BlockScan, warp-scan variant): warp
 * shuffles of every monoid's value, then warp 0 scans the warps' totals.
 */
#ifndef BLOCK_SCAN_CUH
#define BLOCK_SCAN_CUH

#include "scan_ops.cuh"

template <int K>
static __device__ __forceinline__ sum_val<K> scan_shfl_up(const sum_val<K> &v,
							  unsigned d)
{
	sum_val<K> r;

SCAN_UNROLL
	for (int j = 0; j < K; j++)
		r.l[j] = __shfl_up_sync(0xffffffffu, v.l[j], d);
	r.flags = __shfl_up_sync(0xffffffffu, v.flags, d);
	return r;
}

static __device__ __forceinline__ sum_hw_val scan_shfl_up(const sum_hw_val &v,
							unsigned d)
{
	return sum_hw_val{__shfl_up_sync(0xffffffffu, v.v, d)};
}

static __device__ __forceinline__ word_val scan_shfl_up(const word_val &v,
							unsigned d)
{
	word_val r;

	r.w = __shfl_up_sync(0xffffffffu, v.w, d);
	r.nan = __shfl_up_sync(0xffffffffu, v.nan, d);
	return r;
}

static __device__ __forceinline__ fprod scan_shfl_up(const fprod &v,
						     unsigned d)
{
	fprod r;

SCAN_UNROLL
	for (int j = 0; j < 2; j++) {
		r.lo[j] = __shfl_up_sync(0xffffffffu, v.lo[j], d);
		r.hi[j] = __shfl_up_sync(0xffffffffu, v.hi[j], d);
	}
	r.exp = __shfl_up_sync(0xffffffffu, v.exp, d);
	r.flags = __shfl_up_sync(0xffffffffu, v.flags, d);
	return r;
}

static __device__ __forceinline__ iprod scan_shfl_up(const iprod &v,
						     unsigned d)
{
	iprod r;

	r.mag[0] = __shfl_up_sync(0xffffffffu, v.mag[0], d);
	r.mag[1] = __shfl_up_sync(0xffffffffu, v.mag[1], d);
	r.flags = __shfl_up_sync(0xffffffffu, v.flags, d);
	return r;
}

/* Shared values a block scan needs: the warps' totals, their exclusive
 * prefixes and the block's total. */
#define SCAN_SHARED (2 * SCAN_WARPS + 1)

/* Exclusive scan of one value per thread across the block; *total gets
 * the block's total. Every thread must call it; sh holds SCAN_SHARED
 * values. Each warp scans its lanes (shuffles), warp 0 scans the warps'
 * totals the same way, and every thread adds its warp's prefix. Back to
 * back calls need no barrier between them: a call writes the totals
 * before its first barrier and the prefixes between its two, and every
 * thread reads the prefixes after the second. */
template <class Op>
static __device__ __forceinline__ typename Op::V
block_scan(typename Op::V in, typename Op::V *sh, typename Op::V *total,
	   const scan_cfg &c)
{
	typedef typename Op::V V;
	unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	V inc = in, ex, wp;

SCAN_UNROLL
	for (unsigned d = 1; d < 32; d <<= 1) {
		V o = scan_shfl_up(inc, d);

		if (lane >= d)
			inc = Op::add(o, inc, c);
	}
	if (lane == 31)
		sh[warp] = inc;
	ex = scan_shfl_up(inc, 1);
	__syncthreads();
	if (warp == 0) {
		V v = lane < SCAN_WARPS ? sh[lane] : Op::ident(c), e;

SCAN_UNROLL
		for (unsigned d = 1; d < SCAN_WARPS; d <<= 1) {
			V o = scan_shfl_up(v, d);

			if (lane >= d)
				v = Op::add(o, v, c);
		}
		e = scan_shfl_up(v, 1);
		if (lane < SCAN_WARPS)
			sh[SCAN_WARPS + lane] = lane ? e : Op::ident(c);
		if (lane == SCAN_WARPS - 1)
			sh[2 * SCAN_WARPS] = v;
	}
	__syncthreads();
	wp = sh[SCAN_WARPS + warp];
	*total = sh[2 * SCAN_WARPS];
	return lane ? Op::add(wp, ex, c) : wp;
}

#endif
