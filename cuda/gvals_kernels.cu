/*
 * gvals_kernels.cu - --by of quantile, median and mode on the GPU: every
 * record kept in the device's memory as cpu/gvals.h's packed word (an
 * integer key of 32 bits at most, a value of 32 bits at most), sorted
 * there at the end, and read back only as each key's run and the words at
 * the ranks the host picks (struct gvals_dev, whose ops are here).
 *
 * A chunk's records become words by the CPU's own arithmetic (pk_key,
 * pk_val: cpu_gvals.c's collect_packed and select.h's keys), appended at
 * the next free place of one array on the device that all streams share
 * (each launch its own range, so no atomics). The array grows by doubling
 * while the device keeps room for it and for the sort's second copy;
 * where it cannot, its words are read back into the host's collection
 * (the CPU's path from then on, for those words) and it starts over. At
 * the result (gvals_out.c) the words are sorted whole (CUB's radix sort:
 * by key, then value, over only the bits the keys span) and each key's
 * run found on the device; the host computes each run's ranks and reads
 * back those words alone. The sorted multiset is the same whatever the
 * chunks, streams or devices, so the result is the CPU's to the byte.
 *
 * The per-stream accumulator of gpu_ops is unused (8 bytes): the array
 * belongs to the backend's host part (gpu_hooks.launch_part), which the
 * finish merges into the result's accumulator.
 */
#include <stdint.h>
#include <cub/cub.cuh>

#include "fkeys.h"
#include "gpu.h"
extern "C" {
#include "gvals.h"
}

#define GV_THREADS 256
#define GV_ITEMS 8		/* words per thread in the run search */
#define GV_TILE (GV_THREADS * GV_ITEMS)
#define GV_MIN_WORDS ((uint64_t)1 << 22)	/* the array's first size */
#define GV_RUN_BATCH ((size_t)1 << 22)		/* runs read back at a time */
#define GV_SPARE ((size_t)512 << 20)	/* bytes left free on the device */

/* One column as the pack reads it. */
struct pk_col {
	uint32_t off, size;
	uint32_t type;		/* enum gs_type */
	bool boolean, sign;
};

struct pk_spec {
	pk_col k, v;
	uint32_t rs;
};

struct gvdev {
	struct gvals_dev pub;	/* first: the host's handle */
	int device;
	uint64_t *w;		/* cap words, pub.n of them held */
	uint64_t cap;
};

static int gv_err(struct gs_err *err, cudaError_t e, const char *what)
{
	cudaGetLastError();
	return gs_fail(err, GS_ERUNTIME, "cuda", "%s: %s", what,
		       cudaGetErrorString(e));
}

/* ---- packing ------------------------------------------------------------- */

__device__ static uint64_t pk_load(const unsigned char *rec,
				   const pk_col &c)
{
	uint64_t u = 0;

	for (uint32_t i = 0; i < c.size; i++)
		u |= (uint64_t)rec[c.off + i] << (8 * i);
	return c.boolean ? u != 0 : u;
}

/* The key's order key less its type's least (gvals_form.kbias). */
__device__ static uint32_t pk_key(const unsigned char *rec, const pk_col &c)
{
	uint64_t u = pk_load(rec, c);
	uint32_t sh = 64 - 8 * c.size;

	if (!c.sign)
		return (uint32_t)u;
	return (uint32_t)(int32_t)((int64_t)(u << sh) >> sh) ^ 0x80000000u;
}

/* The value's select key in its own width (select.h), a float's NaN
 * UINT32_MAX. */
__device__ static uint32_t pk_val(const unsigned char *rec, const pk_col &c)
{
	uint64_t u = pk_load(rec, c);
	uint64_t s = (uint64_t)1 << (8 * c.size - 1);
	uint64_t exp, man;

	switch (c.type) {
	case GS_F16: exp = 0x7c00; man = 0x3ff; break;
	case GS_BF16: exp = 0x7f80; man = 0x7f; break;
	case GS_F32: exp = 0x7f800000; man = 0x7fffff; break;
	default: return (uint32_t)(c.sign ? u ^ s : u);
	}
	if ((u & exp) == exp && (u & man))
		return UINT32_MAX;
	return (uint32_t)fkey_nz(u, s);
}

__global__ void pack_kernel(pk_spec sp, const unsigned char *d, size_t nrec,
			    uint64_t *out)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	     i < nrec; i += (size_t)gridDim.x * blockDim.x) {
		const unsigned char *rec = d + i * sp.rs;

		out[i] = (uint64_t)pk_key(rec, sp.k) << 32 | pk_val(rec, sp.v);
	}
}

static pk_col col_of(const struct gs_job *job, unsigned k)
{
	struct gs_dtype t = job_col_dtype(job, k);
	size_t sz = type_size(t.type);

	return pk_col{ (uint32_t)(job->rec ? job->rec->off[k] : k * sz),
		       (uint32_t)sz, (uint32_t)t.type, t.boolean,
		       type_is_signed(t.type) };
}

static unsigned grid(size_t n, int nsm)
{
	size_t most = (size_t)(nsm > 0 ? nsm : 132) * 8;
	size_t b = (n + GV_THREADS - 1) / GV_THREADS;

	return (unsigned)(b < 1 ? 1 : b > most ? most : b);
}

/* ---- the array ------------------------------------------------------------- */

/* GPUSTAT_GVALS_GPU_WORDS=N: the most words the array takes while the
 * records are collected (the tests of its read-back; default: what the
 * device has room for). */
static uint64_t most_words(void)
{
	const char *env = getenv("GPUSTAT_GVALS_GPU_WORDS");
	char *end;
	unsigned long long v;

	if (!env || !*env)
		return UINT64_MAX;
	v = strtoull(env, &end, 10);
	return *end ? UINT64_MAX : v;
}

/* Room in v for need words (at most most, else no room): the array grown
 * (doubling) where the device keeps as much again free for the sort. */
static bool room(struct gvdev *v, uint64_t need, uint64_t most)
{
	uint64_t cap = v->cap ? v->cap : GV_MIN_WORDS, *w;
	size_t fr = 0, total = 0;

	if (need > most)
		return false;
	if (need <= v->cap)
		return true;
	while (cap < need)
		cap *= 2;
	cap = cap > most && most >= need ? most : cap;
	if (cudaSetDevice(v->device) != cudaSuccess ||
	    cudaMemGetInfo(&fr, &total) != cudaSuccess ||
	    (double)cap * 16 > (double)fr + (double)v->cap * 8 - GV_SPARE ||
	    cudaDeviceSynchronize() != cudaSuccess) {
		cudaGetLastError();
		return false;
	}
	if (cudaMalloc(&w, cap * 8) != cudaSuccess) {
		cudaGetLastError();
		return false;
	}
	if (v->pub.n && cudaMemcpy(w, v->w, v->pub.n * 8,
				   cudaMemcpyDeviceToDevice) != cudaSuccess) {
		cudaGetLastError();
		cudaFree(w);
		return false;
	}
	cudaFree(v->w);
	v->w = w;
	v->cap = cap;
	return true;
}

static int gv_put(struct gvals_dev *d, const uint64_t *w, size_t n,
		  struct gs_err *err)
{
	struct gvdev *v = (struct gvdev *)d;
	cudaError_t e;

	if (!room(v, v->pub.n + n, UINT64_MAX))
		return gs_fail(err, GS_ERUNTIME, "cuda", "no room on the device "
			       "for %llu more records",
			       (unsigned long long)n);
	if (n && (e = cudaMemcpy(v->w + v->pub.n, w, n * 8,
				 cudaMemcpyHostToDevice)) != cudaSuccess)
		return gv_err(err, e, "copying records to the device");
	v->pub.n += n;
	return 0;
}

static int gv_append(struct gvals_dev *d, struct gvals_dev *src,
		     struct gs_err *err)
{
	struct gvdev *v = (struct gvdev *)d, *s = (struct gvdev *)src;
	cudaError_t e;

	if (!room(v, v->pub.n + s->pub.n, UINT64_MAX))
		return gs_fail(err, GS_ERUNTIME, "cuda", "no room on the device");
	e = cudaMemcpyPeer(v->w + v->pub.n, v->device, s->w, s->device,
			   s->pub.n * 8);
	if (e != cudaSuccess)
		return gv_err(err, e, "copying records between devices");
	v->pub.n += s->pub.n;
	s->pub.n = 0;
	return 0;
}

static int gv_take(struct gvals_dev *d, uint64_t at, size_t n, uint64_t *out,
		   struct gs_err *err)
{
	struct gvdev *v = (struct gvdev *)d;
	cudaError_t e = cudaSetDevice(v->device);

	if (e == cudaSuccess && n)
		e = cudaMemcpy(out, v->w + at, n * 8, cudaMemcpyDeviceToHost);
	return e == cudaSuccess ? 0 : gv_err(err, e, "reading records back");
}

static void gv_release(struct gvals_dev *d)
{
	struct gvdev *v = (struct gvdev *)d;

	if (cudaSetDevice(v->device) == cudaSuccess)
		cudaFree(v->w);
	cudaGetLastError();
	delete v;
}

/* ---- the sort and the runs ------------------------------------------------- */

__global__ void key_span_kernel(const uint64_t *w, uint64_t n, uint32_t *mm)
{
	uint32_t lo = UINT32_MAX, hi = 0;

	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	     i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		uint32_t k = (uint32_t)(w[i] >> 32);

		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	}
	typedef cub::BlockReduce<uint32_t, GV_THREADS> R;
	__shared__ typename R::TempStorage t;
	uint32_t blo = R(t).Reduce(lo, cuda::minimum<uint32_t>());

	__syncthreads();
	uint32_t bhi = R(t).Reduce(hi, cuda::maximum<uint32_t>());

	if (threadIdx.x == 0) {
		atomicMin(&mm[0], blo);
		atomicMax(&mm[1], bhi);
	}
}

/* Every word's key moved by -by (sub) or +by. */
__global__ void shift_kernel(uint64_t *w, uint64_t n, uint64_t by, bool sub)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	     i < n; i += (uint64_t)gridDim.x * blockDim.x)
		w[i] = sub ? w[i] - by : w[i] + by;
}

__device__ static bool starts_run(const uint64_t *w, uint64_t i)
{
	return i == 0 || (w[i] >> 32) != (w[i - 1] >> 32);
}

/* Runs that start in each tile of GV_TILE words. */
__global__ void count_runs_kernel(const uint64_t *w, uint64_t n,
				  uint64_t *tile_runs)
{
	uint64_t base = (uint64_t)blockIdx.x * GV_TILE;
	unsigned c = 0;

	for (unsigned j = 0; j < GV_ITEMS; j++) {
		uint64_t i = base + (uint64_t)j * GV_THREADS + threadIdx.x;

		c += i < n && starts_run(w, i);
	}
	typedef cub::BlockReduce<unsigned, GV_THREADS> R;
	__shared__ typename R::TempStorage t;
	unsigned s = R(t).Sum(c);

	if (threadIdx.x == 0)
		tile_runs[blockIdx.x] = s;
}

/* Each run's start, in order: tile b's from tile_at[b] (the exclusive sum
 * of count_runs_kernel's), a thread's GV_ITEMS words consecutive. */
__global__ void write_runs_kernel(const uint64_t *w, uint64_t n,
				  const uint64_t *tile_at, uint64_t *first)
{
	uint64_t base = (uint64_t)blockIdx.x * GV_TILE +
			(uint64_t)threadIdx.x * GV_ITEMS;
	unsigned c = 0, before;

	for (unsigned j = 0; j < GV_ITEMS; j++)
		c += base + j < n && starts_run(w, base + j);
	typedef cub::BlockScan<unsigned, GV_THREADS> S;
	__shared__ typename S::TempStorage t;
	S(t).ExclusiveSum(c, before);
	uint64_t at = tile_at[blockIdx.x] + before;

	for (unsigned j = 0; j < GV_ITEMS; j++)
		if (base + j < n && starts_run(w, base + j))
			first[at++] = base + j;
}

/* Runs r0 .. r0 + m: each's first word, records and NaNs (a float's
 * values of UINT32_MAX, last in the run). */
__global__ void run_info_kernel(const uint64_t *w, uint64_t n,
				const uint64_t *first, uint64_t nrun,
				uint64_t r0, uint64_t m, bool vfloat,
				uint64_t *word, uint64_t *len, uint64_t *nan)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	     i < m; i += (uint64_t)gridDim.x * blockDim.x) {
		uint64_t r = r0 + i, a = first[r];
		uint64_t e = r + 1 < nrun ? first[r + 1] : n;
		uint64_t lo = a, hi = e, x = w[a] | UINT32_MAX;

		while (vfloat && lo < hi) {	/* the first NaN word */
			uint64_t mid = lo + (hi - lo) / 2;

			if (w[mid] < x)
				lo = mid + 1;
			else
				hi = mid;
		}
		word[i] = w[a];
		len[i] = e - a;
		nan[i] = vfloat ? e - lo : 0;
	}
}

static int bits_of(uint32_t x)
{
	int b = 0;

	while (x) {
		b++;
		x >>= 1;
	}
	return b;
}

/* v's words sorted in place, by the bits their keys span (moved down by
 * the least key for the sort, and back: on a failure too). */
static cudaError_t sort_words(struct gvdev *v, int nsm)
{
	uint64_t n = v->pub.n, *alt = NULL, by;
	uint32_t mm[2] = { UINT32_MAX, 0 }, *dmm = NULL;
	void *tmp = NULL;
	size_t tb = 0;
	cudaError_t e;
	bool shifted = false;
	int end;

	CUDA_RET(cudaMalloc(&dmm, sizeof(mm)));
	e = cudaMemcpy(dmm, mm, sizeof(mm), cudaMemcpyHostToDevice);
	if (e == cudaSuccess) {
		key_span_kernel<<<grid(n, nsm), GV_THREADS>>>(v->w, n, dmm);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess)
		e = cudaMemcpy(mm, dmm, sizeof(mm), cudaMemcpyDeviceToHost);
	cudaFree(dmm);
	CUDA_RET(e);
	by = (uint64_t)mm[0] << 32;
	end = 32 + bits_of(mm[1] - mm[0]);
	cub::DoubleBuffer<uint64_t> db(v->w, NULL);

	CUDA_RET(cub::DeviceRadixSort::SortKeys(NULL, tb, db, n, 0, end));
	if ((e = cudaMalloc(&alt, n * 8)) == cudaSuccess &&
	    (e = cudaMalloc(&tmp, tb ? tb : 1)) == cudaSuccess && by) {
		shift_kernel<<<grid(n, nsm), GV_THREADS>>>(v->w, n, by, true);
		e = cudaGetLastError();
		shifted = e == cudaSuccess;
	}
	if (e == cudaSuccess) {
		db = cub::DoubleBuffer<uint64_t>(v->w, alt);
		e = cub::DeviceRadixSort::SortKeys(tmp, tb, db, n, 0, end);
	}
	cudaFree(tmp);
	if (e == cudaSuccess && db.Current() != v->w) {
		cudaFree(v->w);
		v->w = db.Current();
		v->cap = n;
	} else {
		cudaFree(alt);
	}
	if (shifted) {	/* the keys back up by the least */
		shift_kernel<<<grid(n, nsm), GV_THREADS>>>(v->w, n, by, false);
		cudaError_t e2 = cudaGetLastError();

		e = e == cudaSuccess ? e2 : e;
	}
	CUDA_RET(e);
	return cudaDeviceSynchronize();
}

static int gv_runs(struct gvals_dev *d, bool vfloat, struct gvals_dev_runs *r,
		   struct gs_err *err)
{
	struct gvdev *v = (struct gvdev *)d;
	uint64_t n = v->pub.n, ntile = (n + GV_TILE - 1) / GV_TILE;
	uint64_t *tiles = NULL, *first = NULL, *info = NULL, nrun = 0;
	void *tmp = NULL;
	size_t tb = 0;
	int nsm = 0;
	cudaError_t e;

	*r = gvals_dev_runs();
	if ((e = cudaSetDevice(v->device)) != cudaSuccess ||
	    (e = cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount,
					v->device)) != cudaSuccess)
		return gv_err(err, e, "the device");
	if (!n)
		return 0;
	if ((e = sort_words(v, nsm)) != cudaSuccess)
		return gv_err(err, e, "sorting the records");
	e = cudaMalloc(&tiles, (ntile + 1) * 8);
	if (e == cudaSuccess) {
		count_runs_kernel<<<ntile, GV_THREADS>>>(v->w, n, tiles);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess)
		e = cub::DeviceScan::ExclusiveSum(NULL, tb, tiles, tiles,
						  ntile + 1);
	if (e == cudaSuccess)
		e = cudaMalloc(&tmp, tb ? tb : 1);
	if (e == cudaSuccess)	/* tiles[ntile]: 0 before, the runs after */
		e = cudaMemset(tiles + ntile, 0, 8);
	if (e == cudaSuccess)
		e = cub::DeviceScan::ExclusiveSum(tmp, tb, tiles, tiles,
						  ntile + 1);
	if (e == cudaSuccess)
		e = cudaMemcpy(&nrun, tiles + ntile, 8, cudaMemcpyDeviceToHost);
	if (e == cudaSuccess)
		e = cudaMalloc(&first, nrun * 8);
	if (e == cudaSuccess) {
		write_runs_kernel<<<ntile, GV_THREADS>>>(v->w, n, tiles, first);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess)
		e = cudaMalloc(&info, 3 * GV_RUN_BATCH * 8);
	r->nrun = nrun;
	r->word = (uint64_t *)malloc(nrun * 8 + 1);
	r->first = (uint64_t *)malloc(nrun * 8 + 1);
	r->n = (uint64_t *)malloc(nrun * 8 + 1);
	r->nan = (uint64_t *)malloc(nrun * 8 + 1);
	if (e == cudaSuccess && (!r->word || !r->first || !r->n || !r->nan))
		e = cudaErrorMemoryAllocation;
	if (e == cudaSuccess)
		e = cudaMemcpy(r->first, first, nrun * 8,
			       cudaMemcpyDeviceToHost);
	for (uint64_t r0 = 0; e == cudaSuccess && r0 < nrun;
	     r0 += GV_RUN_BATCH) {
		uint64_t m = nrun - r0 < GV_RUN_BATCH ? nrun - r0 : GV_RUN_BATCH;
		uint64_t *dw = info, *dl = info + GV_RUN_BATCH,
			 *dn = info + 2 * GV_RUN_BATCH;

		run_info_kernel<<<grid(m, nsm), GV_THREADS>>>(
			v->w, n, first, nrun, r0, m, vfloat, dw, dl, dn);
		e = cudaGetLastError();
		if (e == cudaSuccess)
			e = cudaMemcpy(r->word + r0, dw, m * 8,
				       cudaMemcpyDeviceToHost);
		if (e == cudaSuccess)
			e = cudaMemcpy(r->n + r0, dl, m * 8,
				       cudaMemcpyDeviceToHost);
		if (e == cudaSuccess)
			e = cudaMemcpy(r->nan + r0, dn, m * 8,
				       cudaMemcpyDeviceToHost);
	}
	cudaFree(tiles);
	cudaFree(tmp);
	cudaFree(first);
	cudaFree(info);
	if (e == cudaSuccess)
		return 0;
	free(r->word);
	free(r->first);
	free(r->n);
	free(r->nan);
	*r = gvals_dev_runs();
	return gv_err(err, e, "finding each key's records");
}

__global__ void gather_kernel(const uint64_t *w, const uint64_t *at,
			      uint64_t n, uint64_t *out)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	     i < n; i += (uint64_t)gridDim.x * blockDim.x)
		out[i] = w[at[i]];
}

static int gv_gather(struct gvals_dev *d, const uint64_t *at, size_t n,
		     uint64_t *out, struct gs_err *err)
{
	struct gvdev *v = (struct gvdev *)d;
	uint64_t *dat = NULL;
	cudaError_t e = cudaSetDevice(v->device);

	if (e == cudaSuccess && n)
		e = cudaMalloc(&dat, 2 * n * 8);
	if (e == cudaSuccess && n)
		e = cudaMemcpy(dat, at, n * 8, cudaMemcpyHostToDevice);
	if (e == cudaSuccess && n) {
		gather_kernel<<<grid(n, 0), GV_THREADS>>>(v->w, dat, n,
							  dat + n);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess && n) {
		e = cudaMemcpy(out, dat + n, n * 8, cudaMemcpyDeviceToHost);
	}
	cudaFree(dat);
	return e == cudaSuccess ? 0 : gv_err(err, e, "reading the ranks back");
}

static const struct gvals_dev_ops gv_dev_ops = {
	gv_runs, gv_gather, gv_put, gv_append, gv_take, gv_release,
};

/* ---- the backend's entry points -------------------------------------------- */

static bool gv_supports(const struct gs_job *job, const char **why)
{
	*why = gvals_gpu_refusal(job);
	return !*why;
}

static size_t gv_dev_acc_bytes(const struct gs_job *job)
{
	(void)job;
	return 8;
}

static cudaError_t gv_launch(const struct gs_job *, void *, const void *,
			     const void *, size_t, int, cudaStream_t)
{
	return cudaErrorNotSupported;	/* launch_part's alone */
}

static void gv_merge_host(const struct gs_job *, void *, const void *)
{
}

/* The chunk's nrec records at d packed onto the end of part's array
 * (made at the first chunk); where it has no room, its words read back
 * into part first. */
static cudaError_t gv_launch_part(const struct gs_job *job, void *dacc,
				  void *part, void *hacc, const void *d,
				  size_t nrec, int nsm, cudaStream_t s)
{
	struct gvals_acc *g = (struct gvals_acc *)part;
	struct gvdev *v = (struct gvdev *)g->dev;
	uint64_t most = most_words();
	pk_spec sp = { col_of(job, job->group->key[0]),
		       col_of(job, job->group->val[0]),
		       (uint32_t)job_record_size(job) };

	(void)dacc;
	(void)hacc;
	if (!v) {
		if (!(v = new (std::nothrow) gvdev()))
			return cudaErrorMemoryAllocation;
		v->pub.ops = &gv_dev_ops;
		g->dev = &v->pub;
		CUDA_RET(cudaGetDevice(&v->device));
	}
	if (!room(v, v->pub.n + nrec, most)) {
		/* no room: the words to the host, the array started over (a
		 * read back that fails fails g, and the result says so) */
		CUDA_RET(cudaDeviceSynchronize());
		(void)gvals_dev_take(job, g, &v->pub);
		v->pub.n = 0;
		if (!room(v, nrec, UINT64_MAX))
			return cudaErrorMemoryAllocation;
	}
	pack_kernel<<<grid(nrec, nsm), GV_THREADS, 0, s>>>(
		sp, (const unsigned char *)d, nrec, v->w + v->pub.n);
	CUDA_LAUNCHED();
	v->pub.n += nrec;
	return cudaSuccess;
}

const struct gpu_ops gpu_gvals_ops = {
	gv_supports,
	gv_dev_acc_bytes,
	gv_launch,
	gv_merge_host,
	NULL,
};

const struct gpu_hooks gpu_gvals_hooks = {
	NULL,
	gv_launch_part,
};
