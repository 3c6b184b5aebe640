/*
 * bench_gpu.cu - gpustat's kernels on device-resident data, next to CUB on
 * the same data in the same run: DeviceHistogram::HistogramEven (u8),
 * DeviceReduce::Sum (f32, plain float: CUB's rounding, not exact) and
 * DeviceScan::InclusiveSum (f32). Exact sums also run on data built to
 * defeat their fast window path. Times are CUDA events around 20 launches
 * after 3 warm-ups, median of 5 such runs; GB/s counts input bytes read.
 *
 * Build: make bench-gpu (links the CUDA kernels and the C objects).
 * Run:   build/bench_gpu [MIB [ROW]]  (default 1024 MiB of input; ROW: only
 *        the gpustat rows whose name contains it, e.g. for ncu)
 */
#include <algorithm>
#include <cub/cub.cuh>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include "../cuda/gpu.h"
#include "../cuda/scan.h"

#define REPS 20
#define RUNS 5

#define CK(call) do {                                                     \
	cudaError_t e_ = (call);                                          \
	if (e_ != cudaSuccess) {                                          \
		fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_)); \
		exit(1);                                                  \
	}                                                                 \
} while (0)

template <typename F>
static double median_ms(F launch)
{
	cudaEvent_t a, b;
	std::vector<float> t;

	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	for (int i = 0; i < 3; i++)
		launch();
	for (int r = 0; r < RUNS; r++) {
		float ms;

		CK(cudaEventRecord(a));
		for (int i = 0; i < REPS; i++)
			launch();
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&ms, a, b));
		t.push_back(ms / REPS);
	}
	std::sort(t.begin(), t.end());
	return t[RUNS / 2];
}

__global__ void fill_f32(float *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		unsigned h = (unsigned)(i * 2654435761u) ^ (unsigned)(i >> 32);

		h ^= h >> 13;
		h *= 0x5bd1e995u;
		p[i] = (float)(h & 0xffffff) * (1.0f / 16777216.0f) - 0.25f;
	}
}

/* The same values as doubles: f32's bits read as f64 span some 190
 * binades, more than the exact sums' 53-binade window. */
__global__ void fill_f64(const float *x, double *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = x[i];
}

/* Doubles of every finite exponent (fields 0 to 2046, subnormals too),
 * random signs and significands: the wide window's worst case, each term
 * at any of its 34 limbs. */
__global__ void fill_every_f64(double *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		unsigned long long h = (i + 1) * 0x9e3779b97f4a7c15ull;

		h ^= h >> 31;
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 29;
		p[i] = __longlong_as_double((long long)((h & 0x800fffffffffffffull) |
					    (h >> 12 & 0x7ff) % 2047 << 52));
	}
}

/* Every 64th value of x times 2^40: the others then lie more than the
 * exact sums' 29-binade window below each thread's largest value, so this
 * measures their slow path (the window's worst case short of NaNs). */
__global__ void widen_f32(const float *x, float *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = i % 64 ? x[i] : x[i] * 0x1p40f;
}

static void row(const char *name, size_t bytes, double ms, double ref_ms)
{
	double gbs = bytes / ms / 1e6;

	if (ref_ms > 0)
		printf("%-34s %9.3f ms %8.0f GB/s %8.2f x CUB\n", name, ms, gbs,
		       ref_ms / ms);
	else
		printf("%-34s %9.3f ms %8.0f GB/s\n", name, ms, gbs);
}

/* With a second argument, only the gpustat rows whose name contains it
 * are measured (to profile one kernel). */
static const char *only;
#define ROW(name, bytes, expr, ref)                                     \
	do {                                                            \
		if (!only || strstr(name, only))                        \
			row(name, bytes, expr, ref);                    \
	} while (0)

/* gpustat's scan of n records at d into o, carried from launch to launch as
 * from chunk to chunk. */
static double ours_scan(const struct gs_job *job, const void *d, void *o,
			size_t n, int nsm)
{
	struct gpu_scan *g;
	const char *why;

	if (!gpu_scan_supports(job, &why)) {
		printf("(not supported: %s)\n", why);
		return -1;
	}
	CK(gpu_scan_open(job, n, nsm, &g));
	double ms = median_ms([&] { CK(gpu_scan_launch(g, d, o, n, 0)); });
	gpu_scan_close(g);
	return ms;
}

/* gpustat's kernels for job over n records at d: launch into a zeroed
 * device accumulator, as the backend does for one chunk. */
static double ours(const struct gs_job *job, const gpu_ops *ops, const void *d,
		   const void *d2, size_t n, int nsm)
{
	size_t ab = ops->dev_acc_bytes(job);
	void *dacc;
	const char *why;

	if (!ops->supports(job, &why)) {
		printf("(not supported: %s)\n", why);
		return -1;
	}
	CK(cudaMalloc(&dacc, ab));
	CK(cudaMemset(dacc, 0, ab));
	double ms = median_ms([&] { CK(ops->launch(job, dacc, d, d2, n, nsm, 0)); });
	CK(cudaFree(dacc));
	return ms;
}

/* The device data every row reads, and CUB's times on it. */
struct bench {
	size_t bytes, n;
	int nsm;
	float *x, *y, *out;
	double cub_sum, cub_scan, cub_hist;
};

/* CUB's rows, and their times kept as the baselines of ours. */
static void cub_rows(struct bench *b)
{
	float *sum;
	unsigned *hist;
	void *tmp = NULL;
	size_t tmp_bytes = 0, t2 = 0;
	const unsigned char *u8 = (const unsigned char *)b->x;

	CK(cudaMalloc(&sum, sizeof(float)));
	CK(cudaMalloc(&hist, 256 * sizeof(unsigned)));
	cub::DeviceReduce::Sum(NULL, tmp_bytes, b->x, sum, (int64_t)b->n);
	cub::DeviceScan::InclusiveSum(NULL, t2, b->x, b->out, (int64_t)b->n);
	tmp_bytes = std::max(tmp_bytes, t2);
	cub::DeviceHistogram::HistogramEven(NULL, t2, u8, hist, 257, 0, 256,
					    (int64_t)b->bytes);
	tmp_bytes = std::max(tmp_bytes, t2);
	CK(cudaMalloc(&tmp, tmp_bytes));

	double d2d = median_ms([&] { CK(cudaMemcpyAsync(b->out, b->x, b->bytes, cudaMemcpyDeviceToDevice)); });
	b->cub_sum = median_ms([&] { size_t tb = tmp_bytes; CK(cub::DeviceReduce::Sum(tmp, tb, b->x, sum, (int64_t)b->n)); });
	b->cub_scan = median_ms([&] { size_t tb = tmp_bytes; CK(cub::DeviceScan::InclusiveSum(tmp, tb, b->x, b->out, (int64_t)b->n)); });
	b->cub_hist = median_ms([&] {
		size_t tb = tmp_bytes;
		CK(cub::DeviceHistogram::HistogramEven(tmp, tb, u8, hist, 257, 0,
						       256, (int64_t)b->bytes));
	});
	row("device-to-device copy (read+write)", 2 * b->bytes, d2d, 0);
	row("CUB HistogramEven u8", b->bytes, b->cub_hist, 0);
	row("CUB DeviceReduce::Sum f32 (plain)", b->bytes, b->cub_sum, 0);
	row("CUB InclusiveSum f32 (read+write)", 2 * b->bytes, b->cub_scan, 0);
	CK(cudaFree(tmp));
	CK(cudaFree(sum));
	CK(cudaFree(hist));
}

/* hist, sum, stats and products (their f64 data made in out). */
static void reduce_rows(const struct bench *b)
{
	struct gs_job job = {};
	size_t bytes = b->bytes, n = b->n;
	int nsm = b->nsm;
	float *x = b->x, *out = b->out;

	job.columns = 1;
	job.cmd = CMD_HIST;
	job.dtype.type = GS_U8;
	ROW("gpustat hist u8", bytes, ours(&job, &gpu_hist_ops, x, NULL, bytes, nsm), b->cub_hist);
	job.cmd = CMD_REDUCE;
	job.op = OP_SUM;
	job.dtype.type = GS_F32;
	ROW("gpustat sum f32 (exact)", bytes, ours(&job, &gpu_reduce_ops, x, NULL, n, nsm), b->cub_sum);
	job.dtype.type = GS_F64;
	ROW("gpustat sum f64, f32 bits (exact)", bytes, ours(&job, &gpu_reduce_ops, x, NULL, n / 2, nsm), b->cub_sum);
	fill_f64<<<nsm * 4, 256>>>(x, (double *)out, n / 2);
	CK(cudaDeviceSynchronize());
	ROW("gpustat sum f64 (exact)", bytes, ours(&job, &gpu_reduce_ops, out, NULL, n / 2, nsm), b->cub_sum);
	job.cmd = CMD_STATS;
	ROW("gpustat stats f64 (exact)", bytes, ours(&job, &gpu_stats_ops, out, NULL, n / 2, nsm), b->cub_sum);
	job.cmd = CMD_REDUCE;
	job.dtype.type = GS_F32;
	widen_f32<<<nsm * 4, 256>>>(x, out, n);
	CK(cudaDeviceSynchronize());
	ROW("gpustat sum f32, 1/64 at 2^40", bytes, ours(&job, &gpu_reduce_ops, out, NULL, n, nsm), b->cub_sum);
	job.cmd = CMD_STATS;
	ROW("gpustat stats f32 (exact)", bytes, ours(&job, &gpu_stats_ops, x, NULL, n, nsm), b->cub_sum);
	/* products: 128-bit brackets of the exact product (f64: real doubles) */
	job.cmd = CMD_REDUCE;
	job.op = OP_PROD;
	ROW("gpustat reduce prod f32", bytes, ours(&job, &gpu_reduce_ops, x, NULL, n, nsm), b->cub_sum);
	job.dtype.type = GS_F64;
	fill_f64<<<nsm * 4, 256>>>(x, (double *)out, n / 2);
	CK(cudaDeviceSynchronize());
	ROW("gpustat reduce prod f64", bytes, ours(&job, &gpu_reduce_ops, out, NULL, n / 2, nsm), b->cub_sum);
	job.dtype.type = GS_I32;
	ROW("gpustat reduce prod i32", bytes, ours(&job, &gpu_reduce_ops, x, NULL, n, nsm), b->cub_sum);
}

/* dot and ranged hist, which CUB has no row for. */
static void other_rows(const struct bench *b)
{
	struct gs_job job = {};

	job.columns = 1;
	job.op = OP_SUM;
	job.dtype.type = GS_F32;
	job.cmd = CMD_DOT;
	job.two_inputs = true;
	ROW("gpustat dot f32 A B (exact)", 2 * b->bytes, ours(&job, &gpu_dot_ops, b->x, b->y, b->n, b->nsm), 0);
	job.two_inputs = false;
	job.cmd = CMD_HIST;
	job.ranged = true;
	job.bins = 100;
	job.lo = 0;
	job.hi = 1;
	ROW("gpustat hist f32 --bins 100", b->bytes, ours(&job, &gpu_hist_ops, b->x, NULL, b->n, b->nsm), 0);
}

/* scans: read + write, like CUB's row */
static void scan_rows(const struct bench *b)
{
	struct gs_job job = {};
	size_t bytes = b->bytes, n = b->n;
	int nsm = b->nsm;
	float *x = b->x, *y = b->y, *out = b->out;

	job.columns = 1;
	job.cmd = CMD_SCAN;
	job.op = OP_SUM;
	job.dtype.type = job.out_type = GS_F32;
	ROW("gpustat scan f32 (exact, read+write)", 2 * bytes, ours_scan(&job, x, y, n, nsm), b->cub_scan);
	job.dtype.type = job.out_type = GS_F64;
	fill_f64<<<nsm * 4, 256>>>(x, (double *)out, n / 2);
	CK(cudaDeviceSynchronize());
	ROW("gpustat scan f64 (exact, read+write)", 2 * bytes, ours_scan(&job, out, y, n / 2, nsm), b->cub_scan);
	/* f32 bits read as f64: past any narrow window */
	ROW("gpustat scan f64, f32 bits (wide)", 2 * bytes, ours_scan(&job, x, y, n / 2, nsm), b->cub_scan);
	fill_every_f64<<<nsm * 4, 256>>>((double *)out, n / 2);
	CK(cudaDeviceSynchronize());
	ROW("gpustat scan f64, every exponent", 2 * bytes, ours_scan(&job, out, y, n / 2, nsm), b->cub_scan);
	/* values over some 90 binades: past a one-limb window */
	job.dtype.type = job.out_type = GS_F32;
	widen_f32<<<nsm * 4, 256>>>(x, out, n);
	CK(cudaDeviceSynchronize());
	ROW("gpustat scan f32, 1/64 at 2^40", 2 * bytes, ours_scan(&job, out, y, n, nsm), b->cub_scan);
	job.dtype.type = GS_I32;
	job.out_type = GS_I64;
	ROW("gpustat scan i32 -> i64 (read+write)", bytes + bytes / 2,
	    ours_scan(&job, x, y, n / 2, nsm), b->cub_scan);
	job.dtype.type = job.out_type = GS_F32;
	job.op = OP_MAX;
	ROW("gpustat scan max f32 (read+write)", 2 * bytes, ours_scan(&job, x, y, n, nsm), b->cub_scan);
}

int main(int argc, char **argv)
{
	struct bench b = {};

	b.bytes = (size_t)(argc > 1 ? atol(argv[1]) : 1024) << 20;
	only = argc > 2 ? argv[2] : NULL;
	b.n = b.bytes / 4;
	CK(cudaDeviceGetAttribute(&b.nsm, cudaDevAttrMultiProcessorCount, 0));
	CK(cudaMalloc(&b.x, b.bytes));
	CK(cudaMalloc(&b.y, b.bytes));
	CK(cudaMalloc(&b.out, b.bytes));
	fill_f32<<<b.nsm * 4, 256>>>(b.x, b.n);
	fill_f32<<<b.nsm * 4, 256>>>(b.y, b.n);
	CK(cudaDeviceSynchronize());
	printf("%-34s %12s %13s %11s\n", "kernel (device-resident input)", "time",
	       "input rate", "vs CUB");
	cub_rows(&b);
	reduce_rows(&b);
	other_rows(&b);
	scan_rows(&b);
	return 0;
}
