/*
 * agent_window.cuh - the two kernels that float sums of f32, bf16 and f64
 * run before their out kernel (scan_window.cuh says why): one reads the
 * chunk once for each part's exact total and the chunk's lowest and
 * highest value bits, one block then picks a 1-, 2- or 3-limb window
 * holding the carry and every prefix of the chunk (or the wide K limbs),
 * scans the parts and writes their prefixes in the window; every
 * variant's out kernel is launched and those not chosen return at once.
 * A one-limb window of a chunk with no NaN or infinity, into f32 or f64,
 * takes the hardware's conversions (scan_sum_hw: no bit fields per
 * element); the wide window takes scan_wide_out_kernel (agent_wide.cuh)
 * with the default block scan, scan_out_kernel on the K-limb values with
 * the classic ones. The wide carry is the one carry between chunks.
 */
#ifndef AGENT_WINDOW_CUH
#define AGENT_WINDOW_CUH

#include "agent_scan.cuh"

/* A part's exact total and bits, from scan_win_totals_kernel. */
struct scan_win_part {
	long long slot[EXACT_SLOTS];	/* exact.cuh's: slot q weighs
					 * 2^(32q + EXACT_EMIN) */
	unsigned flags;			/* EXACT_NAN | EXACT_PINF | EXACT_NINF */
	int lo, nhi;			/* as struct scan_win's */
};

/* The exact.cuh form of an element: f32 bits (bf16 widens exactly), or
 * f64 bits. */
static __device__ __forceinline__ unsigned scan_exact_bits(float x)
{
	return __float_as_uint(x);
}

static __device__ __forceinline__ unsigned scan_exact_bits(bf16_bits x)
{
	return (unsigned)x.v << 16;
}

static __device__ __forceinline__ u64 scan_exact_bits(double x)
{
	return (u64)__double_as_longlong(x);
}

/* A thread's records of a full tile (whole vectors) into w: eight f32
 * (bf16 widened) or four and four f64, through the windows' branch-free
 * paths. */
static __device__ __forceinline__ void scan_exact_add8(struct exact_w32 *w,
						  struct exact_thr *t,
						  const float *x, long long *slot)
{
	uint4 a = make_uint4(__float_as_uint(x[0]), __float_as_uint(x[1]),
			     __float_as_uint(x[2]), __float_as_uint(x[3]));
	uint4 c = make_uint4(__float_as_uint(x[4]), __float_as_uint(x[5]),
			     __float_as_uint(x[6]), __float_as_uint(x[7]));

	exact_w32_add8(w, t, a, c, slot);
}

static __device__ __forceinline__ void scan_exact_add8(struct exact_w32 *w,
						  struct exact_thr *t,
						  const bf16_bits *x,
						  long long *slot)
{
	uint4 a = make_uint4(scan_exact_bits(x[0]), scan_exact_bits(x[1]),
			     scan_exact_bits(x[2]), scan_exact_bits(x[3]));
	uint4 c = make_uint4(scan_exact_bits(x[4]), scan_exact_bits(x[5]),
			     scan_exact_bits(x[6]), scan_exact_bits(x[7]));

	exact_w32_add8(w, t, a, c, slot);
}

static __device__ __forceinline__ void scan_exact_add8(struct exact_w64 *w,
						  struct exact_thr *t,
						  const double *x, long long *slot)
{
	ulonglong2 v[4];

SCAN_UNROLL
	for (int i = 0; i < 4; i++)
		v[i] = make_ulonglong2(scan_exact_bits(x[2 * i]), scan_exact_bits(x[2 * i + 1]));
	exact_w64_add4(w, t, v[0], v[1], slot);
	exact_w64_add4(w, t, v[2], v[3], slot);
}

/* Window phase 1: each part's exact total and lowest and top bits, in one
 * read of the chunk (the split is the out kernel's). a: only in, nrec,
 * ntiles, sp and columns are used. A window holds at most 2^21 f64 terms
 * between folds and a block's slots 2^28 (EXACT_WIN_TERMS,
 * EXACT_BLOCK_TERMS): scan_split_of keeps a part under SCAN_MAX_TPP tiles,
 * so a thread has at most 2^19 records and a block 2^27, and one fold at
 * the end does. */
static_assert((size_t)SCAN_MAX_TPP * SCAN_ITEMS <= EXACT_WIN_TERMS,
	      "a thread's records of a part overflow an f64 window");
static_assert((unsigned long long)SCAN_MAX_TPP * SCAN_TILE <= EXACT_BLOCK_TERMS,
	      "a part's records overflow a block's exact slots");
template <typename T, class Op>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_win_totals_kernel(const scan_args<Op> a, struct scan_win_part *xp)
{
	typedef typename std::conditional<sizeof(T) == 8, struct exact_w64,
					  struct exact_w32>::type W;
	__shared__ long long slot[EXACT_SLOTS];
	__shared__ int sl[SCAN_WARPS], sn[SCAN_WARPS];
	__shared__ unsigned sf;
	T x[SCAN_ITEMS], nx[SCAN_ITEMS];
	int lo = SCAN_WIN_NONE, nhi = SCAN_WIN_NONE;
	unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, col;
	size_t t, end, r0;
	struct exact_thr th;
	scan_wbits<T> wb;
	W w;

	exact_block_zero(slot, EXACT_SLOTS);
	if (threadIdx.x == 0)
		sf = 0;
	__syncthreads();
	exact_thr_init(&th, EXACT_EMIN);
	exact_win_init(&w);
	scan_wbits_init(&wb);
	col = scan_part(a, &t, &end);
	r0 = t * SCAN_TILE + (size_t)threadIdx.x * SCAN_ITEMS;
	scan_fetch(a, col, r0, x);
	for (; t < end; t++, r0 += SCAN_TILE) {
		if (t + 1 < end)	/* the next tile loads meanwhile */
			scan_fetch(a, col, r0 + SCAN_TILE, nx);
		if (scan_vec_ok(a, r0)) {
			scan_exact_add8(&w, &th, x, slot);
SCAN_UNROLL
			for (int j = 0; j < SCAN_ITEMS; j++)
				scan_wbits_add(&wb, x[j]);
		} else {
			for (int j = 0; j < SCAN_ITEMS && r0 + j < a.nrec; j++) {
				exact_win_add(&w, &th, scan_exact_bits(x[j]),
					      slot);
				scan_wbits_add(&wb, x[j]);
			}
		}
SCAN_UNROLL
		for (int j = 0; j < SCAN_ITEMS; j++)
			x[j] = nx[j];
	}
	scan_wbits_done(&wb, &lo, &nhi);
	exact_win_fold(&w, &th, slot);
	exact_thr_flush(&th, slot);
	if (th.flags)
		atomicOr(&sf, th.flags);
SCAN_UNROLL
	for (unsigned d = 16; d; d >>= 1) {
		int o = __shfl_xor_sync(0xffffffffu, lo, d);
		int p = __shfl_xor_sync(0xffffffffu, nhi, d);

		lo = o < lo ? o : lo;
		nhi = p < nhi ? p : nhi;
	}
	if (lane == 0) {
		sl[warp] = lo;
		sn[warp] = nhi;
	}
	__syncthreads();
	for (unsigned i = threadIdx.x; i < EXACT_SLOTS; i += SCAN_THREADS)
		xp[blockIdx.x].slot[i] = slot[i];
	if (threadIdx.x == 0) {
		for (unsigned i = 1; i < SCAN_WARPS; i++) {
			lo = sl[i] < lo ? sl[i] : lo;
			nhi = sn[i] < nhi ? sn[i] : nhi;
		}
		xp[blockIdx.x].flags = sf;
		xp[blockIdx.x].lo = lo;
		xp[blockIdx.x].nhi = nhi;
	}
}

/* Window phase 2 (one block): the chunk's window from every part's bits
 * and the wide carries; then per column the parts' totals as wide values,
 * scanned from the carry: each part's prefix, narrowed to the window, into
 * partv (as the chosen variant's values), and the carry advanced. block:
 * the job's cfg.block (the scan of the parts, with CLASSIC). */
template <typename T, int K, int L, bool CLASSIC = false>
__global__ void __launch_bounds__(SCAN_THREADS)
scan_win_carry_kernel(const struct scan_win_part *xp, sum_val<K> *carry,
		   struct scan_win *win, void *partv, unsigned columns,
		   struct scan_split sp, size_t nrec, int hlo, int hhi,
		   int block)
{
	typedef scan_sum_wide<T, K, L> Op;
	typedef sum_val<K> V;
	V *sh = scan_block_mem<CLASSIC, V>();
	__shared__ int sl[SCAN_WARPS], sn[SCAN_WARPS];
	__shared__ unsigned sf[SCAN_WARPS];
	__shared__ struct scan_win pick;
	unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	unsigned n = sp.parts * columns, fl = 0;
	int lo = SCAN_WIN_NONE, nhi = SCAN_WIN_NONE, d;
	scan_cfg c;

	memset(&c, 0, sizeof(c));	/* sums' add and ident need none */
	c.block = block;
	for (unsigned i = threadIdx.x; i < n; i += SCAN_THREADS) {
		lo = xp[i].lo < lo ? xp[i].lo : lo;
		nhi = xp[i].nhi < nhi ? xp[i].nhi : nhi;
		fl |= xp[i].flags;
	}
SCAN_UNROLL
	for (unsigned s = 16; s; s >>= 1) {
		int o = __shfl_xor_sync(0xffffffffu, lo, s);
		int p = __shfl_xor_sync(0xffffffffu, nhi, s);

		lo = o < lo ? o : lo;
		nhi = p < nhi ? p : nhi;
		fl |= __shfl_xor_sync(0xffffffffu, fl, s);
	}
	if (lane == 0) {
		sl[warp] = lo;
		sn[warp] = nhi;
		sf[warp] = fl;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		for (unsigned i = 1; i < SCAN_WARPS; i++) {
			lo = sl[i] < lo ? sl[i] : lo;
			nhi = sn[i] < nhi ? sn[i] : nhi;
			fl |= sf[i];
		}
		pick.lo = lo;
		pick.nhi = nhi;
		scan_window_pick<K, L>(&pick, carry, columns, nrec);
		for (unsigned col = 0; col < columns; col++)
			fl |= carry[col].flags;
		scan_sum_hw_pick(&pick, fl, hlo, hhi);
		*win = pick;
	}
	__syncthreads();
	d = pick.w - L;
	for (unsigned col = 0; col < columns; col++) {
		V cy = carry[col];

		for (unsigned p0 = 0; p0 < sp.parts; p0 += SCAN_THREADS) {
			unsigned p = p0 + threadIdx.x;
			size_t i = (size_t)col * sp.parts + p;
			V v = p < sp.parts ? scan_slots_wide<K, L>(xp[i].slot, xp[i].flags)
					   : Op::ident(c), tot, pre;

			pre = Op::add(cy, scan_block<CLASSIC, Op>(v, sh, &tot, c), c);
			cy = Op::add(cy, tot, c);
			if (p >= sp.parts)
				continue;
			switch (pick.mode) {
			case 1: ((sum_val<1> *)partv)[i] = sum_narrow<K, 1>(pre, d); break;
			case 2: ((sum_val<2> *)partv)[i] = sum_narrow<K, 2>(pre, d); break;
			case 3: ((sum_val<3> *)partv)[i] = sum_narrow<K, 3>(pre, d); break;
			case 4: ((sum_hw_val *)partv)[i].v =
					(long long)sum_narrow<K, 1>(pre, d).l[0];
				break;
			default: ((V *)partv)[i] = pre; break;
			}
		}
		if (threadIdx.x == 0)
			carry[col] = cy;
	}
}

#endif
