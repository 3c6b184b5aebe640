/*
 * backend_cuda.cuh - what the CUDA backend's two translation units share:
 * the pipeline (struct cuda_ctx, backend_cuda.cu: streams, device buffers,
 * the release thread, stage events) and its scan path (backend_cuda_scan.cu:
 * the ordered output and the --devices scan lanes). C++/CUDA only.
 */
#ifndef BACKEND_CUDA_CUH
#define BACKEND_CUDA_CUH

#include <condition_variable>
#include <mutex>
#include <thread>
#include "gpu.h"
#include "scan.h"
extern "C" {
#include "gpustat_cuda.h"
#include "operation.h"
}

#define MAX_STREAMS 16
#define MAX_BUFFERS 16		/* >= ENGINE_NBUF */
/* Chunks whose stage times are measured with events before their slot is
 * reused; far more than can be in flight (MAX_BUFFERS). */
#define TIMED_CHUNKS 64

/* Turn a failed CUDA call into the error value, with the call's text. */
int cuda_fail(struct gs_err *err, cudaError_t e, const char *call,
	      const char *file, int line);

#define CUDA_TRY(err, call) do {                                          \
	cudaError_t e_ = (call);                                          \
	if (e_ != cudaSuccess)                                            \
		return cuda_fail(err, e_, #call, __FILE__, __LINE__);     \
} while (0)

/* The release thread's queue: chunks whose input copy is in flight, in
 * submission order, at most one per engine buffer. */
struct releaser {
	std::mutex lock;
	std::condition_variable cv;
	std::thread th;
	struct { cudaEvent_t copied; int id; } q[MAX_BUFFERS];
	unsigned head, len;
	bool quit;
	const struct backend_env *env;
};

struct scan_out;		/* backend_cuda_scan.cu */

struct cuda_ctx {
	struct backend_env env;
	const struct gs_job *job;
	const struct gpu_ops *ops;
	const struct gpu_hooks *hooks;	/* NULL: none */
	int nstreams, nsm, next;
	size_t cap;			/* bytes of one chunk of one stream */
	size_t acc_bytes;
	cudaStream_t s[MAX_STREAMS];
	void *din[MAX_STREAMS], *din2[MAX_STREAMS], *dacc[MAX_STREAMS];
	void *hacc;
	void *hpart;		/* hooks->launch_part's host accumulator */
	struct releaser rel;

	/* per chunk: before the copy, after it, after the kernels, after
	 * the copy back */
	cudaEvent_t ev[TIMED_CHUNKS][4];
	bool ev_used[TIMED_CHUNKS];
	unsigned long long nchunks, fault_at;
	struct stage_times t;

	struct scan_out *scan;		/* scans only */

	/* A float sum's sign of zero (xsum.negzero), which the kernels do not
	 * see: per column, the leading run of -0 of the chunk loaded last
	 * (cuda_load), and whether every element folded so far was -0 (stats:
	 * or NaN). NULL where the job has no float sum. */
	size_t *zrun;
	bool *zall;
};

/* A chunk in device memory: its stream (din[k]) and its stage events
 * (ev[ti]). */
struct loaded {
	int k, ti;
};

/* Copy chunk ch into the next stream's input buffer, hand the host buffer
 * back once copied, put it in native byte order (and, for tests, fault):
 * what every chunk goes through before its kernels (backend_cuda.cu). */
int cuda_load(struct cuda_ctx *c, const struct chunk *ch, struct loaded *at,
	      struct gs_err *err);

/* The scan path (backend_cuda_scan.cu). scan_open at cuda_open; a chunk
 * loaded at `at` is scanned by scan_chunk on from the last chunk's carry
 * (one GPU) or from carry (a --devices lane), zrun its runs of -0 (the
 * cuda_ctx's zrun when it was loaded; NULL without); scan_finish waits until
 * every queued chunk is written; scan_close frees (NULL is fine). */
int scan_open(struct cuda_ctx *c, struct gs_err *err);
int scan_chunk(struct cuda_ctx *c, size_t nrec, uint64_t first_rec,
	       struct loaded at, const struct red_col *carry, uint64_t seq,
	       const size_t *zrun, struct gs_err *err);
int scan_finish(struct scan_out *so, struct gs_err *err);
void scan_close(struct scan_out *so);
/* backend_cuda.scan_seed: from a CPU state, before the first chunk. */
int cuda_scan_seed(void *v, const struct red_col *state, struct gs_err *err);

#endif
