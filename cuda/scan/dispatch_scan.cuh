/*
 * dispatch_scan.cuh - the scan's launchers (CUB's dispatch layer): for a
 * monoid Op, the grid from the kernels' occupancy (scan_policy.cuh), the
 * kernels of a chunk in stream order, their loading at open, and the
 * binding of a job to them (scan_bind_elem).
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

/* Resident blocks per SM of kernel KERN (SCAN_THREADS threads a block),
 * at most SCAN_MAX_BLOCKS_PER_SM. */
template <auto KERN>
static unsigned scan_resident(void)
{
	static int occ;		/* the same for every device of one kind */

	if (occ == 0 && (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
				 &occ, KERN, SCAN_THREADS, 0) != cudaSuccess ||
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

/* Blocks per SM the tile kernels of variant Op are given: as many of its
 * out kernel (the slowest phase) as fit at once. */
template <class Op>
static unsigned scan_occupancy(void)
{
	return scan_resident<scan_out_kernel<Op>>();
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

template <class Op>
static cudaError_t scan_run(struct gpu_scan *g, const void *in, void *out,
			    size_t nrec, cudaStream_t s)
{
	scan_args<Op> a = scan_args_of<Op>(g, in, out, nrec,
					   scan_split_at(g, nrec, scan_occupancy<Op>()),
					   NULL);
	unsigned blocks = a.sp.parts * a.columns;

	scan_totals_kernel<Op><<<blocks, SCAN_THREADS, 0, s>>>(a);
	CUDA_LAUNCHED();
	scan_carry_kernel<Op><<<a.columns, SCAN_THREADS, 0, s>>>(a);
	CUDA_LAUNCHED();
	scan_out_kernel<Op><<<blocks, SCAN_THREADS, 0, s>>>(a);
	CUDA_LAUNCHED();
	if (a.cfg.can_fail) {
		scan_status_kernel<<<1, 1, 0, s>>>(a.st, a.bad, a.columns, a.sp);
		CUDA_LAUNCHED();
	}
	return cudaSuccess;
}

/* Variant Op's out kernel, which works only if the chunk's window is its. */
template <class Op>
static cudaError_t scan_run_out(struct gpu_scan *g, const void *in, void *out,
				size_t nrec, struct scan_split sp, cudaStream_t s)
{
	scan_args<Op> a = scan_args_of<Op>(g, in, out, nrec, sp, g->win);

	scan_out_kernel<Op><<<sp.parts * a.columns, SCAN_THREADS, 0, s>>>(a);
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
template <typename T, int K, int L, typename O>
static cudaError_t scan_run_win(struct gpu_scan *g, const void *in, void *out,
				size_t nrec, cudaStream_t s)
{
	typedef scan_sum_window<T, 1> N1;
	unsigned bps = scan_occupancy<N1>();
	int hlo = 1, hhi = 0;

	/* where scan_sum_hw may run, cut for it and the totals kernel (both
	 * fit more blocks per SM than the other out kernels, which then take
	 * more rounds) */
	if constexpr (!std::is_void<O>::value) {
		scan_sum_hw_range<T, O>(&hlo, &hhi);
		unsigned ho = scan_occupancy<scan_sum_hw<T, O>>();
		unsigned xo = scan_resident<scan_win_totals_kernel<T, N1>>();

		bps = ho < xo ? ho : xo;
	}
	struct scan_split sp = scan_split_at(g, nrec, bps);
	scan_args<N1> a = scan_args_of<N1>(g, in, out, nrec, sp, NULL);
	unsigned blocks = sp.parts * a.columns;

	scan_win_totals_kernel<T, N1><<<blocks, SCAN_THREADS, 0, s>>>(a, g->win_parts);
	CUDA_LAUNCHED();
	scan_win_carry_kernel<T, K, L><<<1, SCAN_THREADS, 0, s>>>(
		g->win_parts, (sum_val<K> *)g->carry, g->win, g->partv, a.columns,
		sp, nrec, hlo, hhi);
	CUDA_LAUNCHED();
	CUDA_RET((scan_run_out<scan_sum_wide<T, K, L>>(g, in, out, nrec, sp, s)));
	CUDA_RET((scan_run_out<N1>(g, in, out, nrec, sp, s)));
	CUDA_RET((scan_run_out<scan_sum_window<T, 2>>(g, in, out, nrec, sp, s)));
	CUDA_RET((scan_run_out<scan_sum_window<T, 3>>(g, in, out, nrec, sp, s)));
	if constexpr (!std::is_void<O>::value)
		CUDA_RET((scan_run_out<scan_sum_hw<T, O>>(g, in, out, nrec, sp, s)));
	return cudaSuccess;
}

/* scan_run_win's kernels (scan_load). */
template <typename T, int K, int L, typename O>
static cudaError_t scan_load_win(void)
{
	typedef scan_sum_window<T, 1> N1;

	CUDA_RET((scan_load<scan_win_totals_kernel<T, N1>, scan_win_carry_kernel<T, K, L>,
			    scan_out_kernel<scan_sum_wide<T, K, L>>, scan_out_kernel<N1>,
			    scan_out_kernel<scan_sum_window<T, 2>>,
			    scan_out_kernel<scan_sum_window<T, 3>>>()));
	if constexpr (!std::is_void<O>::value)
		CUDA_RET((scan_load<scan_out_kernel<scan_sum_hw<T, O>>>()));
	return cudaSuccess;
}

template <class Op>
static void scan_bind(struct gpu_scan *g)
{
	g->run = scan_run<Op>;
	g->load = scan_load<scan_totals_kernel<Op>, scan_carry_kernel<Op>,
			    scan_out_kernel<Op>, scan_status_kernel>;
	g->ident = scan_ident_host<Op>;
	g->vsize = sizeof(typename Op::V);
}

/* The monoid of the job's op over element type T (scan_handle.cuh). */
template <typename T>
void scan_bind_elem(struct gpu_scan *g)
{
	constexpr int K = scan_wide<T>::K, L = scan_wide<T>::L;

	if (g->job.op == OP_PROD) {
		if constexpr (dtype_is_float<T>::value)
			scan_bind<scan_fprod<T>>(g);
		else
			scan_bind<scan_iprod<T>>(g);
		return;
	}
	if (g->job.op != OP_SUM) {
		scan_word_op<T>(g->job.op, [g](auto w) {
			scan_bind<decltype(w)>(g);
		});
		return;
	}
	scan_bind<scan_sum_wide<T, K, L>>(g);
	/* f16 and the integers are 2 limbs already; f32 and f64 outputs
	 * also have scan_sum_hw */
	if constexpr (K > 2) {
		g->run = g->cfg.fmt.width == 32 ? scan_run_win<T, K, L, float>
		       : g->cfg.fmt.width == 64 ? scan_run_win<T, K, L, double>
		       : scan_run_win<T, K, L, void>;
		g->load = g->cfg.fmt.width == 32 ? scan_load_win<T, K, L, float>
			: g->cfg.fmt.width == 64 ? scan_load_win<T, K, L, double>
			: scan_load_win<T, K, L, void>;
		g->windowed = true;
	}
}

#endif
