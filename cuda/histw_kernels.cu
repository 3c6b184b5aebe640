/*
 * histw_kernels.cu - weighted histograms on the GPU: hist --weights
 * (CMD_HISTW) and hist2d --weights (CMD_HIST2DW), each bin the exact sum of
 * its records' weights, merged into the CPU's accumulators (cpu_hist_w.c:
 * a struct xsum or 128 bits a bin; cpu_hist2d_w.c: a struct ksum or 128
 * bits) so that --backend cuda prints the bytes of --backend cpu.
 *
 * A value's bin is the counts' arithmetic: hist_bin.cuh (1-D, cpu_hist.c's
 * operations) and hist2d_bin.h (2-D, the very functions the CPU calls).
 * Records are of one type (job->rec NULL): values and weight alike.
 *
 * Exactness: each bin is a fixed-point integer in signed 64-bit slots of
 * 32-bit digits, slot q weighing 2^(32 q + lsb), lsb the weight type's
 * lowest bit (xsum_core.h's slot form, with a window of the type's own
 * range in place of EXACT_EMIN's). A finite weight m * 2^e (exact_term)
 * is (m << r) at slot q, q * 32 + r = e - lsb, cut into three 32-bit pieces
 * (fewer where m is short): |piece| < 2^32. An integer weight is its low 32
 * bits (unsigned) in slot 0 and its high 32 bits (signed or not) in slot 1.
 *
 *   type      lsb     slots a weight reaches   slots a bin keeps
 *   f16       -24     0..1                     4
 *   bf16      -133    0..8                     11
 *   f32       -149    0..8                     11
 *   f64       -1074   0..65                    68
 *   integers  0       0..1                     5
 *
 * A bin keeps room above the weights for the carries of 2^64 of them. A
 * launch folds at most HW_PIECE = 2^29 records, so a slot gains less than
 * 2^61 in one; after each launch hw_carry_kernel brings every slot but a
 * bin's top one into [-2^31, 2^31) (exact_slots_carry), so the slots stay
 * below 2^62 whatever the stream's length. NaN and the infinities are flags
 * (ksum.h's KS_NAN, KS_PINF, KS_NINF), and so are "a weight was added"
 * (KS_TERM) and "one other than -0" (KS_NOTNEGZ), which a ksum keeps.
 *
 * Two ways to add, as the counts' kernels choose: where a block's copy of
 * the bins (the slots a weight reaches, and the flags) fits HW_SHARED_BYTES
 * of shared memory (f32 weights: 1000 bins in 76 KiB), shared 64-bit atomics
 * and, at the block's end, each non-zero slot spilled into the global bins
 * (exact_slot_spill: the low 32 bits there, the rest one slot up); else
 * 64-bit global atomics straight into the bins.
 *
 * merge_host adds a bin's slots, each an exact term s * 2^(32 q + lsb),
 * into the xsum, ksum or 128-bit integer of the CPU's accumulator.
 *
 * Device accumulator, 64-bit words:
 *   u64 misses[M]    1-D: below[V], above[V], nan[V] (V value columns);
 *                    2-D: nan, outside
 *   u32 flags[B]     (B = V * nbins, or NX * NY), padded to a word
 *   i64 slots[B][S]  S: the table's "slots a bin keeps"
 *   f64 edges        2-D only: x's NX + 1, y's NY + 1 (init_dev)
 */
#include <stdint.h>
#include <stdlib.h>
#include <type_traits>

#include "dtype.cuh"
#include "gpu.h"
#include "hist_bin.cuh"
#include "hist2d_bin.h"

#define HW_THREADS 256
#define HW_BLOCKS_PER_SM 4
/* a block's shared bins: 2 blocks an SM of an H100/H200 (228 KiB) */
#define HW_SHARED_BYTES (100u * 1024u)
/* records per launch: a slot gains < 2^29 * 2^32 = 2^61 in one */
#define HW_PIECE ((size_t)1 << 29)
/* device memory for one accumulator's slots, at most */
#define HW_MAX_BYTES ((size_t)8 << 30)
/* a shared-path block flushes its bins: give it records to amortise it */
#define HW_MIN_PER_BIN 8

#define HW_NONE UINT64_MAX	/* a lane past the end of the records */

/* ---- the weight types' fixed-point forms ---------------------------------- */

struct wform {
	int lsb;
	unsigned nsh;	/* slots a weight reaches (a block's shared copy) */
	unsigned ns;	/* slots a bin keeps */
};

template <typename T> static struct wform wform_of()
{
	struct wform f;

	if (std::is_same<T, f16_bits>::value) {
		f.lsb = -24; f.nsh = 2; f.ns = 4;
	} else if (std::is_same<T, bf16_bits>::value) {
		f.lsb = -133; f.nsh = 9; f.ns = 11;
	} else if (std::is_same<T, float>::value) {
		f.lsb = -149; f.nsh = 9; f.ns = 11;
	} else if (std::is_same<T, double>::value) {
		f.lsb = -1074; f.nsh = 66; f.ns = 68;
	} else {
		f.lsb = 0; f.nsh = 2; f.ns = 5;
	}
	return f;
}

static struct wform wform_type(enum gs_type t)
{
	switch (t) {
	case GS_F16: return wform_of<f16_bits>();
	case GS_BF16: return wform_of<bf16_bits>();
	case GS_F32: return wform_of<float>();
	case GS_F64: return wform_of<double>();
	default: return wform_of<int>();
	}
}

/* A weight as slot q's pieces pc[0..3) (slots q, q + 1, q + 2) and its
 * flags. */
struct wpieces {
	unsigned q, flags;
	long long pc[3];
};

template <typename T>
__host__ __device__ static inline struct wpieces
weight_pieces(typename hist_elem<T>::raw x, int lsb)
{
	struct wpieces w;
	const long long mask = 0xffffffff;

	w.q = 0;
	w.pc[0] = w.pc[1] = w.pc[2] = 0;
	if constexpr (dtype_is_float<T>::value) {
		struct exact_term t;
		bool negz;

		if constexpr (std::is_same<T, f16_bits>::value) {
			t = exact_f16(x);
			negz = x == 0x8000;
		} else if constexpr (std::is_same<T, bf16_bits>::value) {
			t = exact_bf16(x);
			negz = x == 0x8000;
		} else if constexpr (std::is_same<T, float>::value) {
			t = exact_f32(x);
			negz = exact_bits_f32(x) == 0x80000000u;
		} else {
			t = exact_f64(x);
			negz = exact_bits_f64(x) == 1ull << 63;
		}
		w.flags = t.flags | KS_TERM | (negz ? 0 : KS_NOTNEGZ);
		if (t.m != 0) {
			bool neg = t.m < 0;
			unsigned long long m = (unsigned long long)(neg ? -t.m : t.m);
			unsigned p = (unsigned)(t.e - lsb);
			unsigned __int128 s = (unsigned __int128)m << (p % 32);

			w.q = p / 32;
			for (int k = 0; k < 3; k++) {
				long long v = (long long)(s >> (32 * k)) & mask;

				w.pc[k] = neg ? -v : v;
			}
		}
	} else if constexpr (std::is_signed<T>::value) {
		long long v = (long long)x;

		w.flags = KS_TERM | KS_NOTNEGZ;
		w.pc[0] = v & mask;
		w.pc[1] = v >> 32;
	} else {
		unsigned long long v = (unsigned long long)x;

		w.flags = KS_TERM | KS_NOTNEGZ;
		w.pc[0] = (long long)(v & (unsigned long long)mask);
		w.pc[1] = (long long)(v >> 32);
	}
	return w;
}

/* ---- where a record's values go ------------------------------------------- */

/* What a launch needs: the bins (B of them, S slots each), the misses,
 * the record's width and its weight's column. */
struct hw_params {
	unsigned long long *miss;
	unsigned *flags;
	long long *slots;
	uint64_t nbins;		/* B */
	unsigned nmiss, ns, nsh, C, wcol, V;
	int lsb;
};

/* 1-D, ranged: value column v (the record's columns but wcol) in its
 * bins v * n + i, or misses below, above, nan. */
template <typename T>
struct ranged_bins {
	struct hist_ranged r;

	__host__ __device__ uint64_t
	operator()(const typename hist_elem<T>::raw *rec, unsigned v,
		   const struct hw_params &k) const
	{
		typedef hist_elem<T> E;
		unsigned col = v + (v >= k.wcol);
		uint64_t i = hist_ranged_bin(&r, (enum hist_bt)E::bt, r.in_bt,
					     to_double<E::conv>(rec[col]));

		if (i < r.n)
			return v * r.n + i;
		return k.nbins + (i - r.n) * k.V + v;
	}
};

/* 1-D, one bin per value of an 8/16-bit integer (the value less the
 * type's minimum). */
template <typename T>
struct perval_bins {
	uint64_t n;
	unsigned flip;

	__host__ __device__ uint64_t operator()(const T *rec, unsigned v,
						const struct hw_params &k) const
	{
		typedef typename std::make_unsigned<T>::type U;
		unsigned col = v + (v >= k.wcol);

		return v * n + (((unsigned)(U)rec[col] ^ flip) & (unsigned)(n - 1));
	}
};

/* 2-D: the point (x, y) of columns xc and yc, hist2d_bin.h's code; misses
 * nan (0) and outside (1). */
template <typename T>
struct h2_bins {
	struct h2axis ax, ay;	/* edges in device memory */
	unsigned xc, yc;

	__host__ __device__ uint64_t
	operator()(const typename hist_elem<T>::raw *rec, unsigned,
		   const struct hw_params &k) const
	{
		typedef hist_elem<T> E;
		uint32_t c = hist2d_code(&ax, &ay, to_double<E::conv>(rec[xc]),
					 to_double<E::conv>(rec[yc]));

		if (c < k.nbins)
			return c;
		return k.nbins + (c == HIST2D_CODE_NAN ? 0 : 1);
	}
};

/* ---- the kernels ------------------------------------------------------------ */

/* flags |= f, an atomic only where it changes them (plainly on the host,
 * where tests/gpu/histw_host_check.cu replays the kernels). */
__host__ __device__ static inline void flag_or(unsigned *p, unsigned f)
{
	if ((*(volatile unsigned *)p & f) != f) {
#ifdef __CUDA_ARCH__
		atomicOr(p, f);
#else
		*p |= f;
#endif
	}
}

/* One record: its weight into the bin of each of its V values, the slots
 * of bin b at s0 + b * sstride and its flags at f0[b] (a block's shared
 * copy, or the accumulator's own); the misses into miss[m] (m < 4) or the
 * accumulator's. */
template <typename T, class Bins>
__host__ __device__ static inline void
hw_record(const typename hist_elem<T>::raw *rec, const struct hw_params &k,
	  const Bins &bins, long long *s0, unsigned sstride, unsigned *f0,
	  unsigned long long *miss)
{
	struct wpieces w = weight_pieces<T>(rec[k.wcol], k.lsb);

	for (unsigned v = 0; v < k.V; v++) {
		uint64_t b = bins(rec, v, k);

		if (b >= k.nbins) {
			uint64_t m = b - k.nbins;

			if (m < 4)
				miss[m]++;
			else
				exact_atomic_add((long long *)&k.miss[m], 1);
			continue;
		}
		long long *s = s0 + b * sstride;

		for (int j = 0; j < 3; j++)
			if (w.pc[j])
				exact_atomic_add(&s[w.q + j], w.pc[j]);
		flag_or(&f0[b], w.flags);
	}
}

/* A block's shared copy (slots sh, flags shf) into the accumulator: its
 * slots first, first + step, ... */
__host__ __device__ static inline void
hw_flush(const long long *sh, const unsigned *shf, const struct hw_params &k,
	 uint64_t first, uint64_t step)
{
	for (uint64_t i = first; i < k.nbins * k.nsh; i += step)
		if (sh[i])
			exact_slot_spill(k.slots + (i / k.nsh) * k.ns,
					 (unsigned)(i % k.nsh), sh[i]);
	for (uint64_t i = first; i < k.nbins; i += step)
		if (shf[i])
			flag_or(&k.flags[i], shf[i]);
}

/* Thread t of a grid takes records t, t + stride, ...; each record's weight
 * goes to the bin of each of its V values. SHARED: into the block's copy
 * (sh: B * nsh slots, then B flags), spilled at the end. */
template <typename T, class Bins, bool SHARED>
__global__ void __launch_bounds__(HW_THREADS)
hw_kernel(const typename hist_elem<T>::raw *__restrict__ p, size_t nrec,
	  struct hw_params k, Bins bins)
{
	extern __shared__ long long sh[];
	unsigned *shf = (unsigned *)(sh + (SHARED ? k.nbins * k.nsh : 0));
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned long long miss[4] = { 0, 0, 0, 0 };

	if (SHARED) {
		for (uint64_t i = threadIdx.x; i < k.nbins * k.nsh; i += blockDim.x)
			sh[i] = 0;
		for (uint64_t i = threadIdx.x; i < k.nbins; i += blockDim.x)
			shf[i] = 0;
		__syncthreads();
	}
	for (size_t r = t; r < nrec; r += stride)
		hw_record<T>(p + r * k.C, k, bins, SHARED ? sh : k.slots,
			     SHARED ? k.nsh : k.ns, SHARED ? shf : k.flags, miss);
	for (unsigned m = 0; m < 4 && m < k.nmiss; m++)
		if (miss[m])
			atomicAdd(&k.miss[m], miss[m]);
	if (!SHARED)
		return;
	__syncthreads();
	hw_flush(sh, shf, k, threadIdx.x, blockDim.x);
}

/* Every bin's slots but its top one into [-2^31, 2^31). */
__global__ void hw_carry_kernel(long long *slots, uint64_t nbins, unsigned ns)
{
	uint64_t b = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (b < nbins)
		exact_slots_carry(slots + b * ns, ns);
}

/* ---- the accumulator's layout ----------------------------------------------- */

struct hw_layout {
	uint64_t nbins;
	unsigned nmiss, V;
	struct wform f;
	size_t flags_at, slots_at, edges_at, bytes;	/* in bytes */
};

static uint64_t histw_bins1(const struct gs_job *job)
{
	if (job->ranged)
		return job->bins;
	return (uint64_t)1 << (8 * type_size(job->dtype.type));
}

static struct hw_layout hw_layout_of(const struct gs_job *job)
{
	struct hw_layout l;
	bool two = job->cmd == CMD_HIST2DW;

	l.V = two ? 1 : job->columns - 1;
	l.nbins = two ? job->bins * job->ybins : l.V * histw_bins1(job);
	l.nmiss = two ? 2 : 3 * l.V;
	l.f = wform_type(job->dtype.type);
	l.flags_at = l.nmiss * sizeof(uint64_t);
	l.slots_at = l.flags_at + (l.nbins + 1) / 2 * sizeof(uint64_t);
	l.edges_at = l.slots_at + l.nbins * l.f.ns * sizeof(long long);
	l.bytes = l.edges_at + (two ? (job->bins + 1 + job->ybins + 1) *
				      sizeof(double) : 0);
	return l;
}

static struct hw_params hw_params_make(const struct gs_job *job, void *dacc,
				       const struct hw_layout &l)
{
	struct hw_params k;
	char *a = (char *)dacc;

	k.miss = (unsigned long long *)a;
	k.flags = (unsigned *)(a + l.flags_at);
	k.slots = (long long *)(a + l.slots_at);
	k.nbins = l.nbins;
	k.nmiss = l.nmiss;
	k.ns = l.f.ns;
	k.nsh = l.f.nsh;
	k.C = job->columns;
	k.wcol = job->wcol;
	k.V = l.V;
	k.lsb = l.f.lsb;
	return k;
}

/* ---- launchers ----------------------------------------------------------------- */

template <typename T, class Bins>
static cudaError_t hw_run(const struct gs_job *job, void *dacc, const void *d,
			  size_t nrec, int nsm, cudaStream_t s, const Bins &bins)
{
	struct hw_layout l = hw_layout_of(job);
	struct hw_params k = hw_params_make(job, dacc, l);
	size_t tile = l.nbins * (l.f.nsh * sizeof(long long) + sizeof(unsigned));
	bool shared = tile <= HW_SHARED_BYTES;
	size_t most = (size_t)(nsm > 0 ? nsm : 1) * HW_BLOCKS_PER_SM;
	size_t per_block = shared ? l.nbins * HW_MIN_PER_BIN : HW_THREADS;
	typedef typename hist_elem<T>::raw R;

	if (per_block < HW_THREADS)
		per_block = HW_THREADS;
	if (shared && tile > 48 * 1024)
		CUDA_RET(cudaFuncSetAttribute(hw_kernel<T, Bins, true>,
				cudaFuncAttributeMaxDynamicSharedMemorySize,
				(int)tile));
	for (size_t r0 = 0; r0 < nrec; r0 += HW_PIECE) {
		const R *p = (const R *)d + r0 * job->columns;
		size_t m = nrec - r0 < HW_PIECE ? nrec - r0 : HW_PIECE;
		size_t b = (m + per_block - 1) / per_block;
		unsigned blocks = (unsigned)(b < 1 ? 1 : b > most ? most : b);

		if (shared)
			hw_kernel<T, Bins, true><<<blocks, HW_THREADS, tile, s>>>(
				p, m, k, bins);
		else
			hw_kernel<T, Bins, false><<<blocks, HW_THREADS, 0, s>>>(
				p, m, k, bins);
		CUDA_LAUNCHED();
		hw_carry_kernel<<<(unsigned)((l.nbins + 255) / 256), 256, 0, s>>>(
			k.slots, l.nbins, l.f.ns);
		CUDA_LAUNCHED();
	}
	return cudaSuccess;
}

/* hist --weights: one bin per value (8/16-bit) or ranged bins */
template <typename T>
static cudaError_t histw_launch_t(const struct gs_job *job, void *dacc,
				  const void *d, size_t nrec, int nsm,
				  cudaStream_t s)
{
	if constexpr (!dtype_is_float<T>::value && sizeof(T) <= 2) {
		if (!job->ranged) {
			struct perval_bins<T> b;

			b.n = histw_bins1(job);
			b.flip = std::is_signed<T>::value ?
				 (unsigned)(b.n / 2) : 0;
			return hw_run<T>(job, dacc, d, nrec, nsm, s, b);
		}
	}
	struct ranged_bins<T> b;

	b.r = hist_ranged_make(job);
	return hw_run<T>(job, dacc, d, nrec, nsm, s, b);
}

static cudaError_t histw_launch(const struct gs_job *job, void *dacc,
				const void *d, const void * /* d2 */,
				size_t nrec, int nsm, cudaStream_t s)
{
	return dtype_dispatch(job->dtype.type, [&](auto tag) {
		return histw_launch_t<DTYPE_OF(tag)>(job, dacc, d, nrec, nsm, s);
	});
}

/* hist2d --weights: the axes from the edges in the accumulator, lo and hi
 * taken from the host's copy of the same edges (hist2d_edges) */
template <typename T>
static cudaError_t h2w_launch_t(const struct gs_job *job, void *dacc,
				const void *d, size_t nrec, int nsm,
				cudaStream_t s)
{
	struct hw_layout l = hw_layout_of(job);
	uint64_t nx = job->bins, ny = job->ybins;
	double *e = (double *)malloc((nx + 1 + ny + 1) * sizeof(double));
	const double *de = (const double *)((char *)dacc + l.edges_at);
	struct h2_bins<T> b;

	if (!e)
		return cudaErrorMemoryAllocation;
	hist2d_edges(job, 0, e);
	hist2d_edges(job, 1, e + nx + 1);
	b.ax = h2axis_make(de, e[0], e[nx], nx);
	b.ay = h2axis_make(de + nx + 1, e[nx + 1], e[nx + 1 + ny], ny);
	free(e);
	hist2dw_xy(job, &b.xc, &b.yc);
	return hw_run<T>(job, dacc, d, nrec, nsm, s, b);
}

static cudaError_t h2w_launch(const struct gs_job *job, void *dacc,
			      const void *d, const void * /* d2 */,
			      size_t nrec, int nsm, cudaStream_t s)
{
	return dtype_dispatch(job->dtype.type, [&](auto tag) {
		return h2w_launch_t<DTYPE_OF(tag)>(job, dacc, d, nrec, nsm, s);
	});
}

/* ---- the host's side -------------------------------------------------------------- */

static bool hw_supports(const struct gs_job *job, const char **why)
{
	bool two = job->cmd == CMD_HIST2DW;

	if (job->rec || job->dtype.boolean) {
		*why = "weighted histogram: records of one type (not mixed, "
		       "not bool)";
		return false;
	}
	if (job->columns < (two ? 3u : 2u) || job->wcol >= job->columns) {
		*why = "weighted histogram: values and a weight column";
		return false;
	}
	if (!two && !job->ranged && type_size(job->dtype.type) > 2) {
		*why = "hist: one bin per value needs 8- or 16-bit data";
		return false;
	}
	if ((!two && job->ranged && job->bins == 0) ||
	    (two && (job->bins < 1 || job->ybins < 1 ||
		     job->bins > HIST2D_MAX_BINS / job->ybins))) {
		*why = "weighted histogram: no bins, or too many";
		return false;
	}
	if (hw_layout_of(job).bytes > HW_MAX_BYTES) {
		*why = "weighted histogram: the bins' exact sums need more than "
		       "8 GiB of device memory (f64 weights take 544 bytes a "
		       "bin)";
		return false;
	}
	return true;
}

static size_t hw_dev_acc_bytes(const struct gs_job *job)
{
	return hw_layout_of(job).bytes;
}

/* Zero the sums; for 2-D the edges after them (a pageable copy returns
 * once its bytes are staged, so e may go). */
static cudaError_t hw_init_dev(const struct gs_job *job, void *dacc,
			       cudaStream_t s)
{
	struct hw_layout l = hw_layout_of(job);
	uint64_t nx = job->bins, ny = job->ybins;
	size_t ne = nx + 1 + ny + 1;
	double *e;
	cudaError_t rc;

	CUDA_RET(cudaMemsetAsync(dacc, 0, l.edges_at, s));
	if (job->cmd != CMD_HIST2DW)
		return cudaSuccess;
	e = (double *)malloc(ne * sizeof(double));
	if (!e)
		return cudaErrorMemoryAllocation;
	hist2d_edges(job, 0, e);
	hist2d_edges(job, 1, e + nx + 1);
	rc = cudaMemcpyAsync((char *)dacc + l.edges_at, e, ne * sizeof(double),
			     cudaMemcpyHostToDevice, s);
	free(e);
	return rc;
}

/* Bin b's slots s[0..ns) as a 128-bit two's complement integer (the CPU's
 * integer sums wrap there too) added to w. */
static void add_slots_i128(uint64_t *w, const long long *s, unsigned ns)
{
	unsigned __int128 v = ((unsigned __int128)w[1] << 64) | w[0];

	for (unsigned q = 0; q < ns && q < 4; q++)
		v += (unsigned __int128)(__int128)s[q] << (32 * q);
	w[0] = (uint64_t)v;
	w[1] = (uint64_t)(v >> 64);
}

/* k += the slots s (of form f): one term where the non-zero slots are
 * three at most, each below 2^31 (a bin the carry left so: nearly every
 * one), else a term a slot. false: out of memory. */
static bool ksum_add_slots(struct ksum *k, const long long *s,
			   struct wform f)
{
	int lo = -1, hi = -1;
	bool small = true;

	for (unsigned q = 0; q < f.ns; q++)
		if (s[q]) {
			lo = lo < 0 ? (int)q : lo;
			hi = (int)q;
			small &= s[q] >= -(1ll << 31) && s[q] < (1ll << 31);
		}
	if (lo < 0)
		return true;
	if (small && hi - lo < 3) {	/* |v| < 2^127 */
		__int128 v = 0;

		for (int q = hi; q >= lo; q--)
			v = v * ((__int128)1 << 32) + s[q];
		return v == 0 || ksum_add_u128(k, v < 0 ? -(unsigned __int128)v :
						   (unsigned __int128)v,
					     32 * lo + f.lsb, v < 0);
	}
	for (int q = lo; q <= hi; q++) {
		unsigned long long m = s[q] < 0 ? -(unsigned long long)s[q] :
				       (unsigned long long)s[q];

		if (s[q] && !ksum_add_u128(k, m, 32 * q + f.lsb, s[q] < 0))
			return false;
	}
	return true;
}

static void hw_merge_host(const struct gs_job *job, void *acc,
			  const void *hacc)
{
	struct hw_layout l = hw_layout_of(job);
	const char *a = (const char *)hacc;
	const uint64_t *miss = (const uint64_t *)a;
	const unsigned *flags = (const unsigned *)(a + l.flags_at);
	const long long *slots = (const long long *)(a + l.slots_at);
	bool flt = type_is_float(job->dtype.type);

	if (job->cmd == CMD_HIST2DW) {
		struct hist2d_acc *h = (struct hist2d_acc *)acc;

		h->nan += miss[0];
		h->outside += miss[1];
		for (uint64_t b = 0; b < l.nbins; b++) {
			const long long *s = slots + b * l.f.ns;

			if (!flt) {
				add_slots_i128(hist2dw_isum(h) + 2 * b, s, l.f.ns);
				continue;
			}
			if (!ksum_add_slots(&hist2dw_ksum(h)[b], s, l.f))
				*hist2dw_failed(h) = 1;
			hist2dw_ksum(h)[b].flags |= flags[b];
		}
		return;
	}
	struct hist_acc *h = (struct hist_acc *)acc;

	for (unsigned i = 0; i < l.nmiss; i++)
		h->v[i] += miss[i];
	for (uint64_t b = 0; b < l.nbins; b++) {
		const long long *s = slots + b * l.f.ns;

		if (!flt) {
			add_slots_i128(histw_isum(h, 0) + 2 * b, s, l.f.ns);
			continue;
		}
		struct xsum *x = &histw_xsum(h, 0)[b];

		for (unsigned q = 0; q < l.f.ns; q++)
			if (s[q])
				xsum_add_i128(x, s[q], 32 * (int)q + l.f.lsb);
		x->nan |= (flags[b] & KS_NAN) != 0;
		x->pinf |= (flags[b] & KS_PINF) != 0;
		x->ninf |= (flags[b] & KS_NINF) != 0;
	}
}

const struct gpu_ops gpu_histw_ops = {
	hw_supports,
	hw_dev_acc_bytes,
	histw_launch,
	hw_merge_host,
	hw_init_dev,
};

const struct gpu_ops gpu_hist2dw_ops = {
	hw_supports,
	hw_dev_acc_bytes,
	h2w_launch,
	hw_merge_host,
	hw_init_dev,
};
