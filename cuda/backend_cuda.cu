/*
 * backend_cuda.cu - the CUDA backend: pinned host buffers, N streams, and
 * each command's kernels (cuda/gpu.h) behind the engine's backend interface.
 *
 * Chunk k goes to stream k % N: its host-to-device copy, an event, then
 * the kernels. A release thread waits for each chunk's event and hands the
 * pinned buffer back to the reader (so the reader refills it as soon as the
 * copy is done, not when the kernel is). Copies on one stream overlap
 * kernels on another; stream order alone keeps a device buffer from being
 * overwritten before its kernel ran. No host functions are queued on the
 * streams: after a fault the driver never runs them, and a stream blocked
 * on one kept the process from exiting for over a minute (H100, a trap in
 * chunk 2), while an event wait returns the error at once.
 * Each stream folds into its own device accumulator; finish() copies them
 * back and merges them exactly into the command's CPU accumulator, so the
 * result has the CPU backend's bits. Everything is allocated at open.
 *
 * Scans (scan.h) are backend_cuda_scan.cu's: a carry chained from chunk
 * to chunk on the device, or, on a --devices lane, set for each chunk.
 */
#include <new>
#include <system_error>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "backend_cuda.cuh"
#include "algos.h"
extern "C" {
#include "pagein.h"
}

#define SWAP_THREADS 256

int cuda_fail(struct gs_err *err, cudaError_t e, const char *call,
	      const char *file, int line)
{
	return gs_fail(err, GS_ERUNTIME, "cuda", "%s (%s at %s:%d)",
		       cudaGetErrorString(e), call, file, line);
}

/* The GPU entry points of each operation: the gpu column of ops.def, in
 * the order of enum gs_cmd. A scan has its own API (scan.h). */
static const struct gpu_ops *const gpu_ops_table[] = {
#define OPERATION(id, name, cpu, gpu, ...) gpu,
#define GPU(x) &x
#define NO_GPU NULL
#include "ops.def"
#undef OPERATION
#undef GPU
#undef NO_GPU
};

static const struct gpu_ops *ops_for(const struct gs_job *job)
{
	const struct gpu_ops *a = gpu_algo_ops(job);	/* --algorithm */

	return a ? a : gpu_ops_table[job->cmd];
}

const struct gpu_ops *gpu_ops_of(const struct gs_job *job)
{
	return ops_for(job);
}

const struct gpu_hooks *gpu_hooks_of(const struct gpu_ops *ops)
{
	return ops == &gpu_group_ops ? &gpu_group_hooks :
	       ops == &gpu_gvals_ops ? &gpu_gvals_hooks : NULL;
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

/* ---- fault injection, for tests ------------------------------------------ */

/* GPUSTAT_FAULT_CHUNK=N makes chunk N (from 1) end its kernels with a trap,
 * as a faulty kernel would: tests/gpu/run.sh checks that the run ends with
 * one error line and no result. */
__global__ void fault_kernel(void)
{
	__trap();
}

static unsigned long long fault_chunk(void)
{
	const char *v = getenv("GPUSTAT_FAULT_CHUNK");

	return v ? strtoull(v, NULL, 10) : 0;
}

/* ---- the backend --------------------------------------------------------- */

/* Add a finished chunk's copy and kernel times to c->t. */
static void account(struct cuda_ctx *c, int i)
{
	float h2d = 0, kern = 0, d2h = 0;

	if (!c->ev_used[i])
		return;
	c->ev_used[i] = false;
	if (cudaEventSynchronize(c->ev[i][3]) != cudaSuccess ||
	    cudaEventElapsedTime(&h2d, c->ev[i][0], c->ev[i][1]) != cudaSuccess ||
	    cudaEventElapsedTime(&kern, c->ev[i][1], c->ev[i][2]) != cudaSuccess ||
	    cudaEventElapsedTime(&d2h, c->ev[i][2], c->ev[i][3]) != cudaSuccess) {
		cudaGetLastError();
		return;
	}
	c->t.h2d += h2d * 1e-3;
	c->t.kernel += kern * 1e-3;
	c->t.d2h += d2h * 1e-3;
}

static void cuda_times(void *v, struct stage_times *t)
{
	struct cuda_ctx *c = (struct cuda_ctx *)v;

	cudaSetDevice(c->env.device);
	for (int i = 0; i < TIMED_CHUNKS; i++)
		account(c, i);
	*t = c->t;
}

/* Hand each chunk's buffer back once its copy has landed. A failed wait
 * (a fault) releases it too, so the reader never waits forever; the error
 * itself reaches the engine through the next CUDA call on its thread. */
static void releaser_main(struct releaser *r)
{
	cudaSetDevice(r->env->device);	/* the current device is per thread */
	std::unique_lock<std::mutex> lk(r->lock);

	for (;;) {
		r->cv.wait(lk, [&] { return r->quit || r->len > 0; });
		if (r->len == 0)
			return;
		cudaEvent_t ev = r->q[r->head].copied;
		int id = r->q[r->head].id;

		lk.unlock();
		cudaEventSynchronize(ev);
		r->env->release(r->env->engine, id);
		lk.lock();
		r->head = (r->head + 1) % MAX_BUFFERS;
		r->len--;
	}
}

static void releaser_push(struct releaser *r, cudaEvent_t copied, int id)
{
	std::lock_guard<std::mutex> g(r->lock);

	r->q[(r->head + r->len) % MAX_BUFFERS].copied = copied;
	r->q[(r->head + r->len) % MAX_BUFFERS].id = id;
	r->len++;
	r->cv.notify_all();
}

/* Wait for every queued release, then end the thread. */
static void releaser_stop(struct releaser *r)
{
	if (!r->th.joinable())
		return;
	{
		std::lock_guard<std::mutex> g(r->lock);

		r->quit = true;
		r->cv.notify_all();
	}
	r->th.join();
}


/* Portable: pinned for every GPU, so one buffer serves any pipeline of
 * --devices (backend_multi.c). Memory paged in while the context was
 * being made (pagein.h) only needs pinning. */
static void *cuda_host_alloc(size_t n)
{
	size_t size;
	void *p = pagein_take(n, &size);

	if (p && cudaHostRegister(p, size, cudaHostRegisterPortable) == cudaSuccess)
		return p;
	if (p) {
		cudaGetLastError();	/* clear it: not sticky */
		pagein_give(p);
	}
	p = NULL;
	return cudaHostAlloc(&p, n, cudaHostAllocPortable) == cudaSuccess ? p : NULL;
}

static void cuda_host_free(void *p)
{
	if (pagein_has(p)) {
		if (cudaHostUnregister(p) != cudaSuccess)
			cudaGetLastError();	/* clear it: not sticky */
		pagein_give(p);
	} else {
		cudaFreeHost(p);
	}
}

static void cuda_close(void *v)
{
	struct cuda_ctx *c = (struct cuda_ctx *)v;

	if (!c)
		return;
	cudaSetDevice(c->env.device);
	for (int k = 0; k < c->nstreams; k++)
		if (c->s[k])
			cudaStreamSynchronize(c->s[k]);
	releaser_stop(&c->rel);
	scan_close(c->scan);
	for (int k = 0; k < c->nstreams; k++) {
		cudaFree(c->din[k]);
		cudaFree(c->din2[k]);
		cudaFree(c->dacc[k]);
		if (c->s[k])
			cudaStreamDestroy(c->s[k]);
	}
	for (int i = 0; i < TIMED_CHUNKS; i++)
		for (int j = 0; j < 4; j++)
			if (c->ev[i][j])
				cudaEventDestroy(c->ev[i][j]);
	free(c->hacc);
	if (c->hpart) {
		acc_kernels_for(c->job)->acc_free(c->job, c->hpart);
		free(c->hpart);
	}
	free(c->zrun);
	free(c->zall);
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
		if (c->ops && c->ops->init_dev)
			CUDA_TRY(err, c->ops->init_dev(c->job, c->dacc[k], c->s[k]));
		else
			CUDA_TRY(err, cudaMemsetAsync(c->dacc[k], 0, c->acc_bytes,
						      c->s[k]));
	}
	for (int k = 0; k < c->nstreams; k++)
		CUDA_TRY(err, cudaStreamSynchronize(c->s[k]));
	/* blocking waits: the release and writer threads sleep on these
	 * rather than spin a core each while the copies run */
	for (int i = 0; i < TIMED_CHUNKS; i++)
		for (int j = 0; j < 4; j++)
			CUDA_TRY(err, cudaEventCreateWithFlags(&c->ev[i][j],
							       cudaEventBlockingSync));
	c->rel.env = &c->env;
	try {
		c->rel.th = std::thread(releaser_main, &c->rel);
	} catch (const std::system_error &) {
		return gs_fail(err, GS_ERUNTIME, "cuda", "cannot start a thread");
	}
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
	/* the current device is per thread, and --devices opens several */
	CUDA_TRY(err, cudaSetDevice(env->device));
	c->ops = ops_for(c->job);
	if (!cuda_supports(c->job, &why))
		return gs_fail(err, GS_ERUNTIME, "cuda", "%s", why);
	c->hooks = gpu_hooks_of(c->ops);
	if (c->hooks && c->hooks->launch_part) {
		const struct acc_kernels *ak = acc_kernels_for(c->job);

		if (!(c->hpart = malloc(ak->acc_size(c->job))))
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		ak->acc_init(c->job, c->hpart);
	}
	c->fault_at = fault_chunk();
	c->nstreams = env->streams < 1 ? 1 : env->streams > MAX_STREAMS ? MAX_STREAMS
									 : env->streams;
	c->cap = env->chunk_records * job_record_size(c->job);
	c->acc_bytes = c->ops ? c->ops->dev_acc_bytes(c->job) : 8;
	c->hacc = malloc(c->acc_bytes);
	if (!c->hacc)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	const struct operation *op = operation_of(c->job);

	if (op->zero_sign && op->zero_sign(c->job)) {
		c->zrun = (size_t *)calloc(c->job->columns, sizeof(*c->zrun));
		c->zall = (bool *)malloc(c->job->columns * sizeof(*c->zall));
		if (!c->zrun || !c->zall)
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		memset(c->zall, 1, c->job->columns * sizeof(*c->zall));
	}
	CUDA_TRY(err, cudaDeviceGetAttribute(&c->nsm, cudaDevAttrMultiProcessorCount,
					     env->device));
	if (open_streams(c, err) < 0)
		return -1;
	return c->scan || !operation_of(c->job)->stream ? 0 : scan_open(c, err);
}

/* Where the runs of -0 of chunk ch end, per column (c->zrun); it is still
 * the host's, in the input's byte order. */
static void zero_runs(struct cuda_ctx *c, const struct chunk *ch)
{
	const struct gs_job *job = c->job;
	size_t esize = type_size(job->dtype.type);

	for (unsigned col = 0; col < job->columns; col++)
		c->zrun[col] = xsum_negzero_run(
			(const char *)ch->data + col * esize, ch->nrec,
			job_record_size(job), type_xfmt(job->dtype.type),
			job->dtype.big_endian,
			operation_of(job)->zero_sign_skips_nan);
}

int cuda_load(struct cuda_ctx *c, const struct chunk *ch, struct loaded *at,
	      struct gs_err *err)
{
	const struct gs_job *job = c->job;
	size_t bytes = ch->nrec * job_record_size(job);
	size_t esize = type_size(job->dtype.type);
	int k = c->next++ % c->nstreams;
	cudaStream_t s = c->s[k];
	int ti = (int)(c->nchunks++ % TIMED_CHUNKS);

	CUDA_TRY(err, cudaSetDevice(c->env.device));
	if (ch->id < 0 || ch->id >= MAX_BUFFERS)
		return gs_fail(err, GS_ERUNTIME, "cuda", "buffer id %d out of range", ch->id);
	account(c, ti);
	if (c->zrun)
		zero_runs(c, ch);
	CUDA_TRY(err, cudaEventRecord(c->ev[ti][0], s));
	CUDA_TRY(err, cudaMemcpyAsync(c->din[k], ch->data, bytes,
				      cudaMemcpyHostToDevice, s));
	if (ch->data2)
		CUDA_TRY(err, cudaMemcpyAsync(c->din2[k], ch->data2, bytes,
					      cudaMemcpyHostToDevice, s));
	CUDA_TRY(err, cudaEventRecord(c->ev[ti][1], s));
	releaser_push(&c->rel, c->ev[ti][1], ch->id);
	if (job->dtype.big_endian) {
		size_t n = ch->nrec * job->columns;

		CUDA_TRY(err, swap_bytes_dev(c->din[k], n, esize, c->nsm, s));
		if (ch->data2)
			CUDA_TRY(err, swap_bytes_dev(c->din2[k], n, esize, c->nsm, s));
	}
	c->ev_used[ti] = true;
	if (c->nchunks == c->fault_at) {
		fault_kernel<<<1, 1, 0, s>>>();
		CUDA_TRY(err, cudaGetLastError());
	}
	at->k = k;
	at->ti = ti;
	return 0;
}

static int cuda_submit(void *v, const struct chunk *ch, struct gs_err *err)
{
	struct cuda_ctx *c = (struct cuda_ctx *)v;
	struct loaded at;
	cudaStream_t s;

	if (cuda_load(c, ch, &at, err) < 0)
		return -1;
	s = c->s[at.k];
	if (c->scan)	/* on from the last chunk's carry */
		return ch->nrec ? scan_chunk(c, ch->nrec, ch->first_rec, at,
					     NULL, 0, c->zrun, err) : 0;
	for (unsigned col = 0; c->zall && col < c->job->columns; col++)
		c->zall[col] = c->zall[col] && c->zrun[col] == ch->nrec;
	if (ch->nrec && c->hpart)
		CUDA_TRY(err, c->hooks->launch_part(c->job, c->dacc[at.k],
						    c->hpart, c->hacc,
						    c->din[at.k], ch->nrec,
						    c->nsm, s));
	else if (ch->nrec)
		CUDA_TRY(err, c->ops->launch(c->job, c->dacc[at.k], c->din[at.k],
					     ch->data2 ? c->din2[at.k] : NULL,
					     ch->nrec, c->nsm, s));
	CUDA_TRY(err, cudaEventRecord(c->ev[at.ti][2], s));
	CUDA_TRY(err, cudaEventRecord(c->ev[at.ti][3], s));
	return 0;
}

static int cuda_finish(void *v, void *acc, struct gs_err *err)
{
	struct cuda_ctx *c = (struct cuda_ctx *)v;

	CUDA_TRY(err, cudaSetDevice(c->env.device));
	if (c->scan) {
		for (int k = 0; k < c->nstreams; k++)
			CUDA_TRY(err, cudaStreamSynchronize(c->s[k]));
		return scan_finish(c->scan, err);
	}
	/* a float sum: the streams' share apart, its sign of zero set, then
	 * merged (exact merges: the same bits as straight into acc) */
	const struct acc_kernels *k = acc_kernels_for(c->job);
	void *part = c->zall ? malloc(k->acc_size(c->job)) : NULL;

	if (c->zall && !part)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	if (part)
		k->acc_init(c->job, part);
	for (int i = 0; i < c->nstreams; i++) {
		cudaError_t e = cudaStreamSynchronize(c->s[i]);

		if (e == cudaSuccess && c->hooks && c->hooks->read_back)
			e = c->hooks->read_back(c->job, c->dacc[i], c->hacc,
						c->nsm, c->s[i]);
		else if (e == cudaSuccess)
			e = cudaMemcpy(c->hacc, c->dacc[i], c->acc_bytes,
				       cudaMemcpyDeviceToHost);
		if (e != cudaSuccess) {
			free(part);
			return cuda_fail(err, e, "cudaMemcpy(accumulator)",
					 __FILE__, __LINE__);
		}
		c->ops->merge_host(c->job, part ? part : acc, c->hacc);
	}
	if (c->hpart) {	/* what the streams' accumulators moved out */
		k->acc_merge(c->job, part ? part : acc, c->hpart);
		k->acc_free(c->job, c->hpart);
		k->acc_init(c->job, c->hpart);
	}
	if (part) {
		for (unsigned col = 0; col < c->job->columns; col++)
			operation_of(c->job)->set_negzero(part, col,
							  c->zall[col]);
		k->acc_merge(c->job, acc, part);
		free(part);
	}
	return 0;
}

extern "C" const struct backend backend_cuda = {
	"cuda", cuda_host_alloc, cuda_host_free, cuda_open, cuda_submit,
	cuda_finish, cuda_close, cuda_times, NULL, cuda_scan_seed,
};

/* ---- probing ------------------------------------------------------------- */

/* Why cudaGetDeviceCount failed, in the user's words. Without a driver
 * (no libcuda) the runtime says "CUDA driver version is insufficient for
 * CUDA runtime version" (cudaErrorInsufficientDriver) and
 * cudaDriverGetVersion gives 0: that is no driver, not an old one. */
static void no_gpu_reason(cudaError_t e, char *buf, size_t n)
{
	int drv = 0, rt = 0;

	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	/* drv is 0 when libcuda cannot be loaded or started: with no driver
	 * installed, but also under a tight ulimit -v, where the kernel
	 * module is there (/proc/driver/nvidia) and the error says more */
	if (drv == 0 && access("/proc/driver/nvidia/version", F_OK) != 0)
		snprintf(buf, n, "no NVIDIA driver");
	else if (drv == 0)
		snprintf(buf, n, "the NVIDIA driver did not start: %s",
			 cudaGetErrorString(e));
	else if (e == cudaErrorInsufficientDriver)
		snprintf(buf, n, "the NVIDIA driver supports CUDA %d.%d, older "
			 "than this gpustat's CUDA %d.%d", drv / 1000,
			 drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
	else if (e == cudaErrorNoDevice)
		snprintf(buf, n, "no NVIDIA GPU found");
	else
		snprintf(buf, n, "no usable GPU: %s", cudaGetErrorString(e));
}

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
			no_gpu_reason(e, probe_why, sizeof(probe_why));
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

	if (operation_of(job)->stream)
		return gpu_scan_supports(job, why);
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
	cudaError_t e;

	cudaRuntimeGetVersion(&rt);
	cudaDriverGetVersion(&drv);
	/* version 0 is the runtime's way of saying there is no driver */
	if (drv)
		used = (size_t)snprintf(buf, n, "cuda runtime %d.%d, driver %d.%d",
					rt / 1000, rt % 1000 / 10, drv / 1000,
					drv % 1000 / 10);
	else
		used = (size_t)snprintf(buf, n, "cuda runtime %d.%d, no NVIDIA "
					"driver", rt / 1000, rt % 1000 / 10);
	if ((e = cudaGetDeviceCount(&count)) != cudaSuccess)
		count = 0;
	for (int d = 0; d < count && used < n; d++) {
		cudaDeviceProp p;

		if (cudaGetDeviceProperties(&p, d) == cudaSuccess)
			used += (size_t)snprintf(buf + used, n - used,
						 "\ngpu %d: %s, %.0f GiB, sm_%d%d", d,
						 p.name, p.totalGlobalMem / 1073741824.0,
						 p.major, p.minor);
	}
	if (count == 0 && used < n) {
		char why[160] = "none";

		if (e != cudaSuccess && drv)
			no_gpu_reason(e, why, sizeof(why));
		snprintf(buf + used, n - used, "\ngpu: %s", why);
	}
	cudaGetLastError();
}

extern "C" int cuda_device_count(void)
{
	int n = 0;

	return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

extern "C" void *cuda_pinned_alloc(size_t n)
{
	return cuda_host_alloc(n);
}

extern "C" void cuda_pinned_free(void *p)
{
	cuda_host_free(p);
}

extern "C" int cuda_pin(void *p, size_t n)
{
	return cudaHostRegister(p, n, cudaHostRegisterDefault) == cudaSuccess ? 0 : -1;
}

extern "C" void cuda_unpin(void *p)
{
	cudaHostUnregister(p);
}
