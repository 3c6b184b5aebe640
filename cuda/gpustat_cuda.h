/*
 * gpustat_cuda.h - the one door between src/ (C11) and cuda/ (CUDA C++).
 * Plain C types only; the host code never includes a CUDA header.
 */
#ifndef GPUSTAT_CUDA_H
#define GPUSTAT_CUDA_H

#include "backend.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct backend backend_cuda;

/* Make GPU `device` current and check that it works (this creates the CUDA
 * context, the slow part of starting: hundreds of milliseconds). Returns 0,
 * or -1 with a reason in why. Thread-safe; later calls are cheap. */
int cuda_probe(int device, char *why, size_t n);

/* Whether the CUDA kernels do job; if not, *why says so. */
bool cuda_supports(const struct gs_job *job, const char **why);

/* Whether the GPU has job->algo (--algorithm, cuda/algos/) for job: every
 * job has ALGO_DEFAULT, and a pass the algorithm is not for (hist's range
 * pass) runs the default; if not, *why says what there is. */
bool cuda_algo_supports(const struct gs_job *job, const char **why);

/* gpustat bench (src/cmd/cmd_bench.c, cuda/algos/bench_device.cu): the
 * best seconds of one pass of job's kernels over the n bytes at data, held
 * in GPU `device`'s memory (copied there once, timed with events; scans
 * write to device memory). cuda_bench_cub: the same operation by CUB where
 * it has one (0 with *what naming it: "DeviceReduce::Sum" ...), 1 where it
 * has none. 0, or -1 with err. */
int cuda_bench_kernel(const struct gs_job *job, const void *data, size_t n,
		      int device, double *seconds, struct gs_err *err);
int cuda_bench_cub(const struct gs_job *job, const void *data, size_t n,
		   int device, double *seconds, const char **what,
		   struct gs_err *err);

/* The CUDA runtime, driver and GPUs, one per line, for --version. */
void cuda_describe(char *buf, size_t n);

/* How many GPUs the process sees (0 without a driver). */
int cuda_device_count(void);

/* Pinned host memory that every GPU copies from at full speed (the CUDA
 * backend's buffers), and its free. */
void *cuda_pinned_alloc(size_t n);
void cuda_pinned_free(void *p);

/* Pin memory that malloc() gave (cudaHostRegister), so copies from it run
 * at full speed; 0 or -1. */
int cuda_pin(void *p, size_t n);
void cuda_unpin(void *p);

/*
 * A scan over several GPUs (--devices; backend_multi.c drives it). Each
 * pipeline (backend_cuda opened on one GPU) becomes a lane; chunk k of
 * the stream (counted from 0, empty chunks left out) goes to lane k % N:
 *   cuda_lane_load(lane, chunk, k)     copy in, reduce it to its total
 *   cuda_lane_total(lane, k, acc)      acc += chunk k's total (waits for it)
 *   cuda_lane_scan(lane, k, carry)     scan chunk k from carry, the
 *                                      reduction of every earlier record
 * A lane's next chunk on a stream may be loaded once the one before it
 * there has been scanned and its total merged. The output goes to the
 * sink in stream order across lanes: the lanes share a struct
 * scan_order. After the last chunk, backend_cuda.finish on each lane
 * waits for its output; close them after stopping the order.
 */
struct scan_order;
struct scan_order *cuda_scan_order_new(void);
/* Writers waiting for a turn give up (a run that ends on an error). */
void cuda_scan_order_stop(struct scan_order *o);
void cuda_scan_order_free(struct scan_order *o);
/* Make a scan's pipeline, opened and not yet given a chunk, a lane. */
int cuda_lane_open(void *gpu, struct scan_order *o, struct gs_err *err);
int cuda_lane_load(void *gpu, const struct chunk *ch, uint64_t seq,
		   struct gs_err *err);
int cuda_lane_total(void *gpu, uint64_t seq, struct red_col *acc,
		    struct gs_err *err);
int cuda_lane_scan(void *gpu, uint64_t seq, const struct red_col *carry,
		   struct gs_err *err);

#ifdef __cplusplus
}
#endif

#endif
