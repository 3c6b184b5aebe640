/*
 * dispatch_scan.cuh - the scan's launchers (CUB's dispatch layer): for a
 * monoid Op, the grid from the kernels' occupancy (scan_policy.cuh), the
 * kernels of a chunk in stream order, their loading at open, and the
 * binding of a job to them (scan_bind_elem). CL (classic) launches the
 * kernels of --algorithm hillis-steele and blelloch, whose block scans
 * work in the launch's dynamic shared memory (block_scan_classic.cuh); the
 * rest is the default's.
 *
 * Included only by the dispatch_scan_*.cu files, each of which
 * instantiates scan_bind_elem for its element types and so compiles
 * their kernels, in parallel with the others. A kernel is defined and
 * launched in one translation unit, so no relocatable device code is
 * needed; the one exception is scan_status_kernel, defined once in
 * dispatch_scan.cu and launched from here through its declaration
 * (agent_scan.cuh): a host launch calls the kernel's host stub, which the
 * linker resolves like any function, and the stub's translation unit
 * registers the kernel with the runtime.
 */
#ifndef DISPATCH_SCAN_CUH
#define DISPATCH_SCAN_CUH

#include "scan_handle.cuh"

template <class Op>
static void scan_ident_host(const scan_cfg &c, void *dst, unsigned n)
{
	typename Op::V *v = (typename Op::V *)dst;

	for (unsigned i = 0; i < n; i++)
		v[i] = Op::ident(c);
}

/* Resident blocks per SM of kernel KERN (SCAN_THREADS threads a block,
 * SMEM bytes of dynamic shared memory), at most SCAN_MAX_BLOCKS_PER_SM. */
template <auto KERN, size_t SMEM = 0>
static unsigned scan_resident(void)
{
	static int occ;		/* the same for every device of one kind */

	if (occ == 0 && (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
				 &occ, KERN, SCAN_THREADS, SMEM) != cudaSuccess ||
			 occ < 1)) {
		cudaGetLastError();
		occ = 1;
	}
	return occ < SCAN_MAX_BLOCKS_PER_SM ? (unsigned)occ : SCAN_MAX_BLOCKS_PER_SM;
}

/*
 * Load kernels KERNS now. CUDA loads a kernel at its first launch (lazy
 * loading, the default), and in a scan's first chunk those loads held the
 * pipeline up: on the H100, gpustat -v showed some 40 ms more of submit
 * and of the reader waiting for buffers than with CUDA_MODULE_LOADING=EAGER.
 * gpu_scan_open loads them instead, before any copy is under way.
 * (Querying a kernel's attributes loads it.)
 */
template <auto... KERNS>
static cudaError_t scan_load(void)
{
	cudaFuncAttributes at;
	cudaError_t e = cudaSuccess;

	((e = e != cudaSuccess ? e : cudaFuncGetAttributes(&at, KERNS)), ...);
	return e;
}

/* Let kernel KERN launch with the dynamic shared memory of a block scan
 * on values V: past the 48 KiB any launch may have, a kernel must ask.
 * The classic block scans of the wide f64 sum ask for 257 values of 280
 * bytes (block_scan_classic.cuh), which every GPU of sm_80 on allows (99
 * KiB a block at least). */
template <auto KERN, bool CL, class V>
static cudaError_t scan_allow(void)
{
	constexpr size_t bytes = scan_block_bytes<CL, V>();

	if (bytes <= (48 << 10))
		return cudaSuccess;
	return cudaFuncSetAttribute(KERN, cudaFuncAttributeMaxDynamicSharedMemorySize,
				    (int)bytes);
}

/* Blocks per SM the tile kernels of variant Op are given: as many of its
 * out kernel (the slowest phase) as fit at once. */
template <class Op, bool CL = false>
static unsigned scan_occupancy(void)
{
	return scan_resident<scan_out_kernel<Op, CL>,
			     scan_block_bytes<CL, typename Op::V>()>();
}

/* The arguments of variant Op's kernels for a chunk, cut as sp. */
template <class Op>
static scan_args<Op> scan_args_of(struct gpu_scan *g, const void *in,
				  void *out, size_t nrec, struct scan_split sp,
				  const struct scan_win *win)
{
	scan_args<Op> a;

	a.in = (const typename Op::elem *)in;
	a.out = out;
	a.nrec = nrec;
	a.ntiles = (nrec + SCAN_TILE - 1) / SCAN_TILE;
	a.columns = g->job.columns;
	a.sp = sp;
	a.cfg = g->cfg;
	a.carry = (typename Op::V *)g->carry;
	a.win = win;
	a.partv = (typename Op::V *)g->partv;
	a.bad = g->bad;
	a.st = g->st;
	return a;
}

template <class Op, bool CL>
static cudaError_t scan_run(struct gpu_scan *g, const void *in, void *out,
			    size_t nrec, cudaStream_t s)
{
	constexpr size_t sm = scan_block_bytes<CL, typename Op::V>();
	scan_args<Op> a = scan_args_of<Op>(g, in, out, nrec,
					   scan_split_at(g, nrec, scan_occupancy<Op, CL>()),
					   NULL);
	unsigned blocks = a.sp.parts * a.columns;

	scan_totals_kernel<Op><<<blocks, SCAN_THREADS, 0, s>>>(a);
	CUDA_LAUNCHED();
	scan_carry_kernel<Op, CL><<<a.columns, SCAN_THREADS, sm, s>>>(a);
	CUDA_LAUNCHED();
	scan_out_kernel<Op, CL><<<blocks, SCAN_THREADS, sm, s>>>(a);
	CUDA_LAUNCHED();
	if (a.cfg.can_fail) {
		scan_status_kernel<<<1, 1, 0, s>>>(a.st, a.bad, a.columns, a.sp);
		CUDA_LAUNCHED();
	}
	return cudaSuccess;
}

/* Variant Op's out kernel, which works only if the chunk's window is its. */
template <class Op, bool CL>
static cudaError_t scan_run_out(struct gpu_scan *g, const void *in, void *out,
				size_t nrec, struct scan_split sp, cudaStream_t s)
{
	scan_args<Op> a = scan_args_of<Op>(g, in, out, nrec, sp, g->win);

	scan_out_kernel<Op, CL><<<sp.parts * a.columns, SCAN_THREADS,
				  scan_block_bytes<CL, typename Op::V>(), s>>>(a);
	CUDA_LAUNCHED();
	return cudaSuccess;
}

/* The wide window's out kernel with the default block scan
 * (agent_wide.cuh), which works only if the chunk takes the wide window. */
template <typename T, int K, int L>
static cudaError_t scan_run_wide(struct gpu_scan *g, const void *in, void *out,
				 size_t nrec, struct scan_split sp, cudaStream_t s)
{
	scan_args<scan_sum_wide<T, K, L>> a =
		scan_args_of<scan_sum_wide<T, K, L>>(g, in, out, nrec, sp, g->win);

	scan_wide_out_kernel<T, K, L><<<sp.parts * a.columns, SCAN_THREADS,
					scan_wide_bytes<K>(), s>>>(a);
	CUDA_LAUNCHED();
	return cudaSuccess;
}

/*
 * A float sum: the parts' exact totals and bits in one read, then the
 * window, the parts' prefixes and the new carry in one block, all on the
 * device; then every variant's out kernel is launched (the wide one, one
 * to three limbs, and scan_sum_hw for an output of O, float or double; void:
 * none) and only the chosen one works (no host round trip). Every kernel
 * cuts the chunk alike.
 */
template <typename T, int K, int L, typename O, bool CL>
static cudaError_t scan_run_win(struct gpu_scan *g, const void *in, void *out,
				size_t nrec, cudaStream_t s)
{
	typedef scan_sum_window<T, 1> N1;
	unsigned bps = scan_occupancy<N1, CL>();
	int hlo = 1, hhi = 0;

	/* where scan_sum_hw may run, cut for it and the totals kernel (both
	 * fit more blocks per SM than the other out kernels, which then take
	 * more rounds) */
	if constexpr (!std::is_void<O>::value) {
		scan_sum_hw_range<T, O>(&hlo, &hhi);
		unsigned ho = scan_occupancy<scan_sum_hw<T, O>, CL>();
		unsigned xo = scan_resident<scan_win_totals_kernel<T, N1>>();

		bps = ho < xo ? ho : xo;
	}
	struct scan_split sp = scan_split_at(g, nrec, bps);
	scan_args<N1> a = scan_args_of<N1>(g, in, out, nrec, sp, NULL);
	unsigned blocks = sp.parts * a.columns;

	scan_win_totals_kernel<T, N1><<<blocks, SCAN_THREADS, 0, s>>>(a, g->win_parts);
	CUDA_LAUNCHED();
	scan_win_carry_kernel<T, K, L, CL><<<1, SCAN_THREADS,
					     scan_block_bytes<CL, sum_val<K>>(), s>>>(
		g->win_parts, (sum_val<K> *)g->carry, g->win, g->partv, a.columns,
		sp, nrec, hlo, hhi, g->cfg.block);
	CUDA_LAUNCHED();
	if constexpr (CL)
		CUDA_RET((scan_run_out<scan_sum_wide<T, K, L>, CL>(g, in, out, nrec, sp, s)));
	else
		CUDA_RET((scan_run_wide<T, K, L>(g, in, out, nrec, sp, s)));
	CUDA_RET((scan_run_out<N1, CL>(g, in, out, nrec, sp, s)));
	CUDA_RET((scan_run_out<scan_sum_window<T, 2>, CL>(g, in, out, nrec, sp, s)));
	CUDA_RET((scan_run_out<scan_sum_window<T, 3>, CL>(g, in, out, nrec, sp, s)));
	if constexpr (!std::is_void<O>::value)
		CUDA_RET((scan_run_out<scan_sum_hw<T, O>, CL>(g, in, out, nrec, sp, s)));
	return cudaSuccess;
}

/* scan_run_win's kernels (scan_load), allowed their shared memory. */
template <typename T, int K, int L, typename O, bool CL>
static cudaError_t scan_load_win(void)
{
	typedef scan_sum_window<T, 1> N1;
	typedef scan_sum_wide<T, K, L> W;

	CUDA_RET((scan_allow<scan_win_carry_kernel<T, K, L, CL>, CL, sum_val<K>>()));
	if constexpr (CL) {
		CUDA_RET((scan_allow<scan_out_kernel<W, CL>, CL, sum_val<K>>()));
		CUDA_RET((scan_load<scan_out_kernel<W, CL>>()));
	} else {
		if (scan_wide_bytes<K>() > (48 << 10))
			CUDA_RET(cudaFuncSetAttribute(scan_wide_out_kernel<T, K, L>,
						      cudaFuncAttributeMaxDynamicSharedMemorySize,
						      (int)scan_wide_bytes<K>()));
		CUDA_RET((scan_load<scan_wide_out_kernel<T, K, L>>()));
	}
	CUDA_RET((scan_load<scan_win_totals_kernel<T, N1>, scan_win_carry_kernel<T, K, L, CL>,
			    scan_out_kernel<N1, CL>,
			    scan_out_kernel<scan_sum_window<T, 2>, CL>,
			    scan_out_kernel<scan_sum_window<T, 3>, CL>>()));
	if constexpr (!std::is_void<O>::value)
		CUDA_RET((scan_load<scan_out_kernel<scan_sum_hw<T, O>, CL>>()));
	return cudaSuccess;
}

/* scan_run's kernels (scan_load), allowed their shared memory. */
template <class Op, bool CL>
static cudaError_t scan_load_tiles(void)
{
	typedef typename Op::V V;

	CUDA_RET((scan_allow<scan_carry_kernel<Op, CL>, CL, V>()));
	CUDA_RET((scan_allow<scan_out_kernel<Op, CL>, CL, V>()));
	return scan_load<scan_totals_kernel<Op>, scan_carry_kernel<Op, CL>,
			 scan_out_kernel<Op, CL>, scan_status_kernel>();
}

template <class Op, bool CL>
static void scan_bind(struct gpu_scan *g)
{
	g->run = scan_run<Op, CL>;
	g->load = scan_load_tiles<Op, CL>;
	g->ident = scan_ident_host<Op>;
	g->vsize = sizeof(typename Op::V);
}

/* A float sum's kernels (scan_run_win), into f32 or f64 (which have
 * scan_sum_hw too) or another float type; the carry is the wide sum's. */
template <typename T, int K, int L, bool CL>
static void scan_bind_win(struct gpu_scan *g)
{
	g->run = g->cfg.fmt.width == 32 ? scan_run_win<T, K, L, float, CL>
	       : g->cfg.fmt.width == 64 ? scan_run_win<T, K, L, double, CL>
	       : scan_run_win<T, K, L, void, CL>;
	g->load = g->cfg.fmt.width == 32 ? scan_load_win<T, K, L, float, CL>
		: g->cfg.fmt.width == 64 ? scan_load_win<T, K, L, double, CL>
		: scan_load_win<T, K, L, void, CL>;
	g->ident = scan_ident_host<scan_sum_wide<T, K, L>>;
	g->vsize = sizeof(sum_val<K>);
	g->windowed = true;
}

/* The monoid of the job's op over element type T, and its kernels with
 * the warp block scan or (CL) the classic ones. The classic kernels are
 * compiled for the ops a scan takes (sum, prod, min, max; and, or and xor
 * are the carries' only): g->run stays NULL for the others. */
template <typename T, bool CL>
static void scan_bind_op(struct gpu_scan *g)
{
	constexpr int K = scan_wide<T>::K, L = scan_wide<T>::L;

	if (g->job.op == OP_PROD) {
		if constexpr (dtype_is_float<T>::value)
			scan_bind<scan_fprod<T>, CL>(g);
		else
			scan_bind<scan_iprod<T>, CL>(g);
	} else if (g->job.op == OP_SUM) {
		/* f16 and the integers are 2 limbs already */
		if constexpr (K > 2)
			scan_bind_win<T, K, L, CL>(g);
		else
			scan_bind<scan_sum_wide<T, K, L>, CL>(g);
	} else if (CL && g->job.op == OP_MIN) {
		scan_bind<scan_word<T, OP_MIN>, CL>(g);
	} else if (CL && g->job.op == OP_MAX) {
		scan_bind<scan_word<T, OP_MAX>, CL>(g);
	} else if constexpr (!CL) {
		scan_word_op<T>(g->job.op, [g](auto w) {
			scan_bind<decltype(w), false>(g);
		});
	}
}

/* The job's kernels for element type T (scan_handle.cuh). */
template <typename T>
void scan_bind_elem(struct gpu_scan *g)
{
	if (g->cfg.block == SCAN_BLOCK_WARP)
		scan_bind_op<T, false>(g);
	else
		scan_bind_op<T, true>(g);
}

#endif
