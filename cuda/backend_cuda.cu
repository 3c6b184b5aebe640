/*
 * backend_cuda.cu - the CUDA backend: pinned host buffers, N streams, and
 * each command's kernels (cuda/gpu.h) behind the engine's backend interface.
 *
 * Chunk k goes to stream k % N: its host-to-device copy, then a host
 * callback that hands the pinned buffer back to the reader (so the reader
 * refills it as soon as the copy is done, not when the kernel is), then the
 * kernels. Copies on one stream overlap kernels on another; stream order
 * alone keeps a device buffer from being overwritten before its kernel ran.
 * Each stream folds into its own device accumulator; finish() copies them
 * back and merges them exactly into the command's CPU accumulator, so the
 * result has the CPU backend's bits. Everything is allocated at open.
 */
#include <mutex>
#include <new>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"
extern "C" {
#include "gpustat_cuda.h"
}

#define MAX_STREAMS 16
#define MAX_BUFFERS 16		/* >= ENGINE_NBUF */
#define SWAP_THREADS 256
/* Chunks whose stage times are measured with events before their slot is
 * reused; far more than can be in flight (MAX_BUFFERS). */
#define TIMED_CHUNKS 64

/* Turn a failed CUDA call into the error value, with the call's text. */
static int cuda_fail(struct gs_err *err, cudaError_t e, const char *call,
		     const char *file, int line)
{
	return gs_fail(err, GS_ERUNTIME, "cuda", "%s (%s at %s:%d)",
		       cudaGetErrorString(e), call, file, line);
}

#define CUDA_TRY(err, call) do {                                          \
	cudaError_t e_ = (call);                                          \
	if (e_ != cudaSuccess)                                            \
		return cuda_fail(err, e_, #call, __FILE__, __LINE__);     \
} while (0)

static const struct gpu_ops *ops_for(const struct gs_job *job)
{
	switch (job->cmd) {
	case CMD_HIST:
		return &gpu_hist_ops;
	case CMD_STATS:
	case CMD_MINMAX:
		return &gpu_stats_ops;
	case CMD_DOT:
		return &gpu_dot_ops;
	case CMD_REDUCE:
	case CMD_SCAN:
		return &gpu_reduce_ops;
	}
	return NULL;
}

/* ---- byte order ---------------------------------------------------------- */

template <typename T>
__global__ void swap_kernel(T *p, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		T v = p[i], r = 0;

		for (unsigned b = 0; b < sizeof(T); b++)
			r = (T)(r << 8 | ((v >> (8 * b)) & 0xff));
		p[i] = r;
	}
}

static cudaError_t swap_bytes_dev(void *p, size_t n, size_t size, int nsm,
				  cudaStream_t s)
{
	unsigned blocks = (unsigned)nsm * 4;

	if (n == 0 || size == 1)
		return cudaSuccess;
	if (size == 2)
		swap_kernel<<<blocks, SWAP_THREADS, 0, s>>>((uint16_t *)p, n);
	else if (size == 4)
		swap_kernel<<<blocks, SWAP_THREADS, 0, s>>>((uint32_t *)p, n);
	else
		swap_kernel<<<blocks, SWAP_THREADS, 0, s>>>((unsigned long long *)p, n);
	return cudaGetLastError();
}

/* ---- the backend --------------------------------------------------------- */

struct release_arg {
	const struct backend_env *env;
	int id;
};

struct cuda_ctx {
	struct backend_env env;
	const struct gs_job *job;
	const struct gpu_ops *ops;
	int nstreams, nsm, next;
	size_t cap;			/* bytes of one chunk of one stream */
	size_t acc_bytes;
	cudaStream_t s[MAX_STREAMS];
	void *din[MAX_STREAMS], *din2[MAX_STREAMS], *dacc[MAX_STREAMS];
	void *hacc;
	struct release_arg rel[MAX_BUFFERS];

	/* per chunk: before the copy, after it, after the kernels */
	cudaEvent_t ev[TIMED_CHUNKS][3];
	bool ev_used[TIMED_CHUNKS];
	unsigned long long nchunks;
	struct stage_times t;
};

/* Add a finished chunk's copy and kernel times to c->t. */
static void account(struct cuda_ctx *c, int i)
{
	float h2d = 0, kern = 0;

	if (!c->ev_used[i])
		return;
	c->ev_used[i] = false;
	if (cudaEventSynchronize(c->ev[i][2]) != cudaSuccess ||
	    cudaEventElapsedTime(&h2d, c->ev[i][0], c->ev[i][1]) != cudaSuccess ||
	    cudaEventElapsedTime(&kern, c->ev[i][1], c->ev[i][2]) != cudaSuccess) {
		cudaGetLastError();
		return;
	}
	c->t.h2d += h2d * 1e-3;
	c->t.kernel += kern * 1e-3;
}

static void cuda_times(void *v, struct stage_times *t)
{
	struct cuda_ctx *c = (struct cuda_ctx *)v;

	for (int i = 0; i < TIMED_CHUNKS; i++)
		account(c, i);
	*t = c->t;
}

static void CUDART_CB release_cb(void *p)
{
	struct release_arg *a = (struct release_arg *)p;

	/* no CUDA calls here: the engine only takes a lock and signals */
	a->env->release(a->env->engine, a->id);
}

static void *cuda_host_alloc(size_t n)
{
	void *p = NULL;

	return cudaHostAlloc(&p, n, cudaHostAllocDefault) == cudaSuccess ? p : NULL;
}

static void cuda_host_free(void *p)
{
	cudaFreeHost(p);
}

static void cuda_close(void *v)
{
	struct cuda_ctx *c = (struct cuda_ctx *)v;

	if (!c)
		return;
	for (int k = 0; k < c->nstreams; k++) {
		if (c->s[k])
			cudaStreamSynchronize(c->s[k]);
		cudaFree(c->din[k]);
		cudaFree(c->din2[k]);
		cudaFree(c->dacc[k]);
		if (c->s[k])
			cudaStreamDestroy(c->s[k]);
	}
	for (int i = 0; i < TIMED_CHUNKS; i++)
		for (int j = 0; j < 3; j++)
			if (c->ev[i][j])
				cudaEventDestroy(c->ev[i][j]);
	free(c->hacc);
	delete c;
}

static int open_streams(struct cuda_ctx *c, struct gs_err *err)
{
	for (int k = 0; k < c->nstreams; k++) {
		CUDA_TRY(err, cudaStreamCreateWithFlags(&c->s[k], cudaStreamNonBlocking));
		if (cudaMalloc(&c->din[k], c->cap) != cudaSuccess ||
		    (c->job->two_inputs && cudaMalloc(&c->din2[k], c->cap) != cudaSuccess) ||
		    cudaMalloc(&c->dacc[k], c->acc_bytes) != cudaSuccess) {
			cudaGetLastError();	/* clear it: not sticky */
			return gs_fail(err, GS_ERUNTIME, "cuda", "out of GPU memory "
				       "for %d streams of %zu-byte chunks (try a "
				       "smaller --chunk-size or fewer --streams)",
				       c->nstreams, c->cap);
		}
		CUDA_TRY(err, cudaMemsetAsync(c->dacc[k], 0, c->acc_bytes, c->s[k]));
	}
	for (int k = 0; k < c->nstreams; k++)
		CUDA_TRY(err, cudaStreamSynchronize(c->s[k]));
	for (int i = 0; i < TIMED_CHUNKS; i++)
		for (int j = 0; j < 3; j++)
			CUDA_TRY(err, cudaEventCreate(&c->ev[i][j]));
	return 0;
}

static int cuda_open(void **ctxp, const struct backend_env *env, struct gs_err *err)
{
	struct cuda_ctx *c = new (std::nothrow) cuda_ctx();
	const char *why;

	*ctxp = c;
	if (!c)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	c->env = *env;
	c->job = env->job;
	c->ops = ops_for(c->job);
	if (!c->ops || !c->ops->supports(c->job, &why))
		return gs_fail(err, GS_ERUNTIME, "cuda", "%s", c->ops ? why
			       : "no CUDA kernels for this command");
	c->nstreams = env->streams < 1 ? 1 : env->streams > MAX_STREAMS ? MAX_STREAMS
									 : env->streams;
	c->cap = env->chunk_records * job_record_size(c->job);
	c->acc_bytes = c->ops->dev_acc_bytes(c->job);
	c->hacc = malloc(c->acc_bytes);
	if (!c->hacc)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	CUDA_TRY(err, cudaDeviceGetAttribute(&c->nsm, cudaDevAttrMultiProcessorCount,
					     env->device));
	return open_streams(c, err);
}

static int cuda_submit(void *v, const struct chunk *ch, struct gs_err *err)
{
	struct cuda_ctx *c = (struct cuda_ctx *)v;
	const struct gs_job *job = c->job;
	size_t bytes = ch->nrec * job_record_size(job);
	size_t esize = type_size(job->dtype.type);
	int k = c->next++ % c->nstreams;
	cudaStream_t s = c->s[k];
	int ti = (int)(c->nchunks++ % TIMED_CHUNKS);

	if (ch->id < 0 || ch->id >= MAX_BUFFERS)
		return gs_fail(err, GS_ERUNTIME, "cuda", "buffer id %d out of range", ch->id);
	account(c, ti);
	CUDA_TRY(err, cudaEventRecord(c->ev[ti][0], s));
	CUDA_TRY(err, cudaMemcpyAsync(c->din[k], ch->data, bytes,
				      cudaMemcpyHostToDevice, s));
	if (ch->data2)
		CUDA_TRY(err, cudaMemcpyAsync(c->din2[k], ch->data2, bytes,
					      cudaMemcpyHostToDevice, s));
	CUDA_TRY(err, cudaEventRecord(c->ev[ti][1], s));
	c->rel[ch->id].env = &c->env;
	c->rel[ch->id].id = ch->id;
	CUDA_TRY(err, cudaLaunchHostFunc(s, release_cb, &c->rel[ch->id]));
	if (job->dtype.big_endian) {
		size_t n = ch->nrec * job->columns;

		CUDA_TRY(err, swap_bytes_dev(c->din[k], n, esize, c->nsm, s));
		if (ch->data2)
			CUDA_TRY(err, swap_bytes_dev(c->din2[k], n, esize, c->nsm, s));
	}
	if (ch->nrec)
		CUDA_TRY(err, c->ops->launch(job, c->dacc[k], c->din[k],
					     ch->data2 ? c->din2[k] : NULL,
					     ch->nrec, c->nsm, s));
	CUDA_TRY(err, cudaEventRecord(c->ev[ti][2], s));
	c->ev_used[ti] = true;
	return 0;
}

static int cuda_finish(void *v, void *acc, struct gs_err *err)
{
	struct cuda_ctx *c = (struct cuda_ctx *)v;

	for (int k = 0; k < c->nstreams; k++) {
		CUDA_TRY(err, cudaStreamSynchronize(c->s[k]));
		CUDA_TRY(err, cudaMemcpy(c->hacc, c->dacc[k], c->acc_bytes,
					 cudaMemcpyDeviceToHost));
		c->ops->merge_host(c->job, acc, c->hacc);
	}
	return 0;
}

extern "C" const struct backend backend_cuda = {
	"cuda", cuda_host_alloc, cuda_host_free, cuda_open, cuda_submit,
	cuda_finish, cuda_close, cuda_times,
};

/* ---- probing ------------------------------------------------------------- */

static std::mutex probe_lock;
static int probe_state = -1;	/* -1 not yet, 0 usable, 1 not */
static char probe_why[256];

extern "C" int cuda_probe(int device, char *why, size_t n)
{
	std::lock_guard<std::mutex> g(probe_lock);
	int count = 0;
	cudaError_t e;

	if (probe_state < 0) {
		e = cudaGetDeviceCount(&count);
		if (e != cudaSuccess)
			snprintf(probe_why, sizeof(probe_why), "no usable GPU: %s",
				 cudaGetErrorString(e));
		else if (device >= count)
			snprintf(probe_why, sizeof(probe_why), "no GPU %d "
				 "(%d found)", device, count);
		else if ((e = cudaSetDevice(device)) != cudaSuccess ||
			 (e = cudaFree(0)) != cudaSuccess)
			snprintf(probe_why, sizeof(probe_why), "GPU %d unusable: %s",
				 device, cudaGetErrorString(e));
		else
			probe_why[0] = '\0';
		cudaGetLastError();
		probe_state = probe_why[0] ? 1 : 0;
	}
	/* the device is per thread: make it current on this one too */
	if (probe_state == 0 && cudaSetDevice(device) != cudaSuccess)
		return snprintf(why, n, "cannot select GPU %d", device), -1;
	if (probe_state)
		snprintf(why, n, "%s", probe_why);
	return probe_state ? -1 : 0;
}

extern "C" bool cuda_supports(const struct gs_job *job, const char **why)
{
	const struct gpu_ops *ops = ops_for(job);

	if (!ops) {
		*why = "no CUDA kernels for this command";
		return false;
	}
	return ops->supports(job, why);
}

extern "C" void cuda_describe(char *buf, size_t n)
{
	int rt = 0, drv = 0, count = 0;
	size_t used;

	cudaRuntimeGetVersion(&rt);
	cudaDriverGetVersion(&drv);
	used = (size_t)snprintf(buf, n, "cuda runtime %d.%d, driver %d.%d",
				rt / 1000, rt % 1000 / 10, drv / 1000, drv % 1000 / 10);
	if (cudaGetDeviceCount(&count) != cudaSuccess)
		count = 0;
	for (int d = 0; d < count && used < n; d++) {
		cudaDeviceProp p;

		if (cudaGetDeviceProperties(&p, d) == cudaSuccess)
			used += (size_t)snprintf(buf + used, n - used,
						 "\ngpu %d: %s, %.0f GiB, sm_%d%d", d,
						 p.name, p.totalGlobalMem / 1073741824.0,
						 p.major, p.minor);
	}
	if (count == 0 && used < n)
		snprintf(buf + used, n - used, "\ngpu: none usable");
	cudaGetLastError();
}

extern "C" int cuda_pin(void *p, size_t n)
{
	return cudaHostRegister(p, n, cudaHostRegisterDefault) == cudaSuccess ? 0 : -1;
}

extern "C" void cuda_unpin(void *p)
{
	cudaHostUnregister(p);
}
