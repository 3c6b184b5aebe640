/*
 * bench_device.cu - gpustat bench's device-resident rows (gpustat_cuda.h):
 * a command's kernels (the backend's, or --algorithm's) and CUB's same
 * operation over data already in GPU memory, timed with CUDA events, so
 * the figures leave out the copies that end-to-end rows include.
 *
 * Each measurement runs once to warm up (module load, CUB's first-call
 * setup), then BENCH_REPS more times, and keeps the best, as zstd -b does.
 */
#include <cub/cub.cuh>
#include "backend_cuda.cuh"
#include "algos.h"
#include "dtype.cuh"

#define BENCH_REPS 10

/* The best of BENCH_REPS timed calls of f() on s, after one untimed. */
template <class F>
static cudaError_t bench_best(cudaStream_t s, double *best, F f)
{
	cudaEvent_t a, b;
	float ms;

	CUDA_RET(cudaEventCreate(&a));
	CUDA_RET(cudaEventCreate(&b));
	cudaError_t e = f();

	*best = 1e30;
	for (int i = 0; i < BENCH_REPS && e == cudaSuccess; i++) {
		cudaEventRecord(a, s);
		e = f();
		cudaEventRecord(b, s);
		if (e == cudaSuccess)
			e = cudaEventSynchronize(b);
		if (e == cudaSuccess)
			e = cudaEventElapsedTime(&ms, a, b);
		if (e == cudaSuccess && ms * 1e-3 < *best)
			*best = ms * 1e-3;
	}
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return e;
}

/* The data in device memory, a stream, the SM count. */
struct bench_dev {
	void *d;
	cudaStream_t s;
	int nsm;
};

static cudaError_t bench_open(struct bench_dev *b, const void *data, size_t n,
			      int device)
{
	b->d = NULL;
	b->s = NULL;
	CUDA_RET(cudaSetDevice(device));
	CUDA_RET(cudaDeviceGetAttribute(&b->nsm, cudaDevAttrMultiProcessorCount,
					device));
	CUDA_RET(cudaStreamCreate(&b->s));
	CUDA_RET(cudaMalloc(&b->d, n ? n : 1));
	return cudaMemcpy(b->d, data, n, cudaMemcpyHostToDevice);
}

static void bench_close(struct bench_dev *b)
{
	cudaFree(b->d);
	if (b->s)
		cudaStreamDestroy(b->s);
}

static int bench_fail(struct gs_err *err, cudaError_t e)
{
	cudaGetLastError();
	return gs_fail(err, GS_ERUNTIME, "cuda", "bench: %s",
		       cudaGetErrorString(e));
}

/* A scan over the records into device memory, by cuda/scan/'s API. */
static cudaError_t bench_scan(const struct gs_job *job, struct bench_dev *b,
			      size_t nrec, double *sec)
{
	struct gpu_scan *g = NULL;
	void *out = NULL;
	cudaError_t e = gpu_scan_open(job, nrec, b->nsm, &g);

	if (e == cudaSuccess)
		e = cudaMalloc(&out, nrec * job->columns * type_size(job->out_type) + 1);
	if (e == cudaSuccess)
		e = bench_best(b->s, sec, [&] {
			return gpu_scan_launch(g, b->d, out, nrec, b->s);
		});
	cudaFree(out);
	if (g)
		gpu_scan_close(g);
	return e;
}

extern "C" int cuda_bench_kernel(const struct gs_job *job, const void *data,
				 size_t n, int device, double *seconds,
				 struct gs_err *err)
{
	const struct gpu_ops *ops = gpu_ops_of(job);
	size_t nrec = n / job_record_size(job);
	struct bench_dev b;
	void *acc = NULL;
	cudaError_t e = bench_open(&b, data, n, device);

	if (e == cudaSuccess && job->cmd == CMD_SCAN)
		e = bench_scan(job, &b, nrec, seconds);
	else if (e == cudaSuccess && !ops)
		e = cudaErrorNotSupported;
	else if (e == cudaSuccess) {
		size_t bytes = ops->dev_acc_bytes(job);

		e = cudaMalloc(&acc, bytes);
		if (e == cudaSuccess)
			e = cudaMemset(acc, 0, bytes);
		if (e == cudaSuccess)
			e = bench_best(b.s, seconds, [&] {
				return ops->launch(job, acc, b.d, NULL, nrec,
						   b.nsm, b.s);
			});
	}
	cudaFree(acc);
	bench_close(&b);
	return e == cudaSuccess ? 0 : bench_fail(err, e);
}

/* CUB's sum or inclusive scan of n / sizeof(T) elements of type T. */
template <typename T>
static cudaError_t bench_cub_t(const struct gs_job *job, struct bench_dev *b,
			       size_t n, double *sec)
{
	size_t k = n / sizeof(T), tmp_bytes = 0;
	void *tmp = NULL, *out = NULL;
	const T *x = (const T *)b->d;
	cudaError_t e;

	if (job->cmd == CMD_SCAN)
		e = cub::DeviceScan::InclusiveSum(NULL, tmp_bytes, x, (T *)NULL,
						  (int64_t)k, b->s);
	else
		e = cub::DeviceReduce::Sum(NULL, tmp_bytes, x, (T *)NULL,
					   (int64_t)k, b->s);
	if (e == cudaSuccess)
		e = cudaMalloc(&tmp, tmp_bytes + 1);
	if (e == cudaSuccess)
		e = cudaMalloc(&out, job->cmd == CMD_SCAN ? k * sizeof(T) + 1
							   : sizeof(T));
	if (e == cudaSuccess)
		e = bench_best(b->s, sec, [&] {
			size_t tb = tmp_bytes;

			if (job->cmd == CMD_SCAN)
				return cub::DeviceScan::InclusiveSum(tmp, tb, x,
						(T *)out, (int64_t)k, b->s);
			return cub::DeviceReduce::Sum(tmp, tb, x, (T *)out,
						      (int64_t)k, b->s);
		});
	cudaFree(tmp);
	cudaFree(out);
	return e;
}

/* CUB's HistogramEven of bytes: 256 bins of 257 levels over [0, 256). */
static cudaError_t bench_cub_hist(struct bench_dev *b, size_t n, double *sec)
{
	size_t tmp_bytes = 0;
	void *tmp = NULL;
	int *hist = NULL;
	const unsigned char *x = (const unsigned char *)b->d;
	cudaError_t e = cub::DeviceHistogram::HistogramEven(NULL, tmp_bytes, x,
			(int *)NULL, 257, 0, 256, (int64_t)n, b->s);

	if (e == cudaSuccess)
		e = cudaMalloc(&tmp, tmp_bytes + 1);
	if (e == cudaSuccess)
		e = cudaMalloc(&hist, 256 * sizeof(int));
	if (e == cudaSuccess)
		e = bench_best(b->s, sec, [&] {
			size_t tb = tmp_bytes;

			return cub::DeviceHistogram::HistogramEven(tmp, tb, x,
					hist, 257, 0, 256, (int64_t)n, b->s);
		});
	cudaFree(tmp);
	cudaFree(hist);
	return e;
}

/* CUB has a plain (rounding, not exact) sum and scan of the native types,
 * and a histogram of bytes; nothing for dot or the half types. */
static const char *cub_what(const struct gs_job *job)
{
	enum gs_type t = job->dtype.type;
	bool plain = t == GS_F32 || t == GS_F64 || t == GS_I32 || t == GS_U32 ||
		     t == GS_I64 || t == GS_U64;

	if (job->cmd == CMD_HIST)
		return type_size(t) == 1 && !job->ranged && job->columns == 1
		       ? "DeviceHistogram::HistogramEven" : NULL;
	if (job->columns != 1 || !plain)
		return NULL;
	if (job->cmd == CMD_SCAN && job->op == OP_SUM)
		return "DeviceScan::InclusiveSum";
	if (job->cmd == CMD_REDUCE && job->op == OP_SUM)
		return "DeviceReduce::Sum";
	return NULL;
}

extern "C" int cuda_bench_cub(const struct gs_job *job, const void *data,
			      size_t n, int device, double *seconds,
			      const char **what, struct gs_err *err)
{
	struct bench_dev b;
	cudaError_t e;

	*what = cub_what(job);
	if (!*what)
		return 1;
	e = bench_open(&b, data, n, device);
	if (e == cudaSuccess && job->cmd == CMD_HIST)
		e = bench_cub_hist(&b, n, seconds);
	else if (e == cudaSuccess)
		e = dtype_dispatch(job->dtype.type, [&](auto tag) {
			typedef DTYPE_OF(tag) T;

			if constexpr (std::is_arithmetic<T>::value)
				return bench_cub_t<T>(job, &b, n, seconds);
			return cudaErrorNotSupported;
		});
	bench_close(&b);
	return e == cudaSuccess ? 0 : bench_fail(err, e);
}
