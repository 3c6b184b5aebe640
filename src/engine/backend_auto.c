/*
 * backend_auto.c - --backend auto with a GPU at hand: begin on the CPU at
 * once, start the GPU (context, streams, device buffers: hundreds of
 * milliseconds) on a thread of its own, and send each later chunk to the GPU
 * once it is ready. The reader never waits for CUDA, small jobs finish in
 * CPU time, and large ones move to the GPU after the first chunks.
 *
 * Both sides fold into accumulators with exact merges, so which chunk ran
 * where never changes a bit of the result. A scan moves once: the CPU
 * scans (and writes) every chunk until the GPU is ready, then its state,
 * the exact reduction of every earlier record, seeds the GPU's carry and
 * the GPU scans the rest; its writer thread goes on with the output after
 * the CPU's last write (the CPU writes inside submit). The engine's
 * buffers come from malloc (the CPU needs them before CUDA exists); the
 * start thread pins those the CPU has seen (cudaHostRegister, tens of
 * milliseconds each) before it says the GPU is ready, so that the pinning
 * overlaps the CPU's work instead of holding up the hand-over; a buffer
 * first seen later is pinned the first time the GPU copies from it.
 *
 * backend_auto_late is the same with the GPU not started: where auto's plan
 * picked the CPU alone, the CPU computes each chunk (the file mapped in
 * place, as backend_cpu's are) and the plan is revised from its rate
 * (auto_plan_late). Should the CPU run so much slower than planned that a
 * GPU started now is predicted to finish sooner, it starts then, the
 * reader copies into the engine's buffers from its next chunk, and the
 * hand-over is backend_auto's. The rate is of the CPU's submits, every
 * thread computing inside them, against the bytes they took: what a GPU
 * could take over. The time waiting for the reader is not in it (a GPU
 * reads no faster), nor a scan's writing of its output (write_sink: a GPU
 * writes no faster), nor is the first chunk, which pays the warm-up (the
 * threads' first wake, the accumulators' first touch).
 *
 * An input of unknown length (a pipe) has no bytes left to plan with: the
 * CPU's rate is set against the input's (auto_plan_stream), the same
 * chunks' bytes over the wall time since the first chunk's submit
 * returned, the waits for the reader and for the output included. From
 * the end of the first chunk, not from open: before it are the producer's
 * start and the filling of a whole chunk, latency rather than rate, which
 * would make a CPU that never waits look faster than its input; and the
 * first chunk's own warm-up is out of the CPU's rate, so it is out of the
 * input's too. The two then differ only by the waits: the CPU keeps up
 * where it waits (for its input or its output) a fifth of the time or
 * more.
 *
 * GPUSTAT_AUTO_CPU_CHUNKS=N (tests): exactly the first N chunks run on the
 * CPU; chunk N + 1 waits for the GPU and goes there if it started.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "auto_plan.h"
#include "backend.h"
#include "operation.h"
#ifdef GS_HAVE_CUDA
#include "gpustat_cuda.h"
#endif

#define MAX_PINNED 32		/* engine buffers, both streams of dot A B */

enum { GPU_IDLE, GPU_STARTING, GPU_READY, GPU_FAILED };

struct hybrid {
	struct backend_env env;
	/* the job, the hybrid's own: a start thread detached at close still
	 * reads it while a command's next pass changes the caller's */
	struct gs_job job;
	/* the CPU's env: its output through write_sink, timed into write_s
	 * (a scan writes inside the CPU's submit: a slow reader of the
	 * output is not a slow CPU) */
	struct backend_env cpu_env;
	struct sink wsink;
	double write_s;
	bool views_back;		/* set_views(true) after a failed start */
	void *cpu, *gpu;
	pthread_t tid;
	bool started;			/* a start thread to join or detach */
	_Atomic int state;		/* GPU_IDLE until it starts */
	long long cpu_chunks;		/* GPUSTAT_AUTO_CPU_CHUNKS, or -1 */
	char why[sizeof(((struct gs_err *)0)->what)];
	double t0, t_ready;		/* the GPU's start, ready after it */
	/* backend_auto_late: the CPU's bytes, and of them the ones timed
	 * (every chunk's but the first) in timed_s seconds of submit, and in
	 * wall_s seconds since the first chunk's submit returned (at t_first:
	 * an input of unknown length, auto_plan_stream). timed_s leaves out
	 * the time spent writing output (write_s), wall_s not: where the
	 * output holds the run up, the input comes slower than the CPU
	 * computes, and a GPU would write no faster. The CPU's chunks when
	 * the GPU started (0: it did not), and why */
	bool late;
	uint64_t done, timed;
	double timed_s, t_first, wall_s;
	uint64_t late_after;
	char late_why[200];
	bool device_set;		/* cudaSetDevice on the submitting thread */
	size_t cap;			/* bytes of one buffer */
	/* the engine's buffers that the CPU computed on: written by the
	 * submitting thread alone, read by the start thread up to nseen */
	void *seen[MAX_PINNED];
	_Atomic int nseen;
	/* pinned: by the start thread before GPU_READY, then by submit */
	void *pinned[MAX_PINNED];
	int npinned;
	double t_pin;			/* seconds in cuda_pin, for -v */
	/* the start thread's pinning and its GPU_READY against close */
	pthread_mutex_t ready_lock;
	bool closing;
	uint64_t ncpu, ngpu;
	uint64_t gpu_rec;		/* the GPU's first record */
};

/* What the last run did, for -v (one run per process, so a static). */
static char last_report[sizeof(((struct gs_err *)0)->what) + 400] = "cpu only";

void backend_auto_report(char *buf, size_t n)
{
	snprintf(buf, n, "%s", last_report);
}

#ifdef GS_HAVE_CUDA

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The process's CPU seconds, all its threads'. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void pin(struct hybrid *h, void *p);

static void *gpu_start(void *v)
{
	struct hybrid *h = v;
	struct gs_err err;
	int n;

	if (cuda_probe(h->env.device, h->why, sizeof(h->why)) < 0) {
		atomic_store(&h->state, GPU_FAILED);
		return NULL;
	}
	if (backend_cuda.open(&h->gpu, &h->env, &err) < 0) {
		backend_cuda.close(h->gpu);
		h->gpu = NULL;
		snprintf(h->why, sizeof(h->why), "%s", err.what);
		atomic_store(&h->state, GPU_FAILED);
		return NULL;
	}
	pthread_mutex_lock(&h->ready_lock);
	n = h->closing ? 0 : atomic_load_explicit(&h->nseen, memory_order_acquire);
	for (int i = 0; i < n; i++)
		pin(h, h->seen[i]);
	h->t_ready = now() - h->t0;
	atomic_store(&h->state, GPU_READY);
	pthread_mutex_unlock(&h->ready_lock);
	return NULL;
}

/* Note a buffer the CPU computes on, for the start thread to pin. */
static void note(struct hybrid *h, void *p)
{
	int n = atomic_load_explicit(&h->nseen, memory_order_relaxed);

	if (!p || n == MAX_PINNED)
		return;
	for (int i = 0; i < n; i++)
		if (h->seen[i] == p)
			return;
	h->seen[n] = p;
	atomic_store_explicit(&h->nseen, n + 1, memory_order_release);
}

/* GPUSTAT_AUTO_CPU_CHUNKS=N: N chunks on the CPU, then wait for the GPU
 * (tests/gpu/run.sh places a scan's hand-over with it); -1 when unset. */
static long long cpu_chunks_hook(void)
{
	const char *v = getenv(AUTO_CPU_CHUNKS_ENV);

	return v && *v ? (long long)strtoull(v, NULL, 10) : -1;
}

/* The CPU's output, timed (write_s): called by the submitting thread
 * alone, inside backend_cpu.submit. */
static int write_sink(void *v, const void *buf, size_t n, struct gs_err *err)
{
	struct hybrid *h = v;
	double t0 = now();
	int rc = h->env.sink->write(h->env.sink->ctx, buf, n, err);

	h->write_s += now() - t0;
	return rc;
}

/* The hybrid, its CPU open, its GPU not started. */
static struct hybrid *hyb_new(void **ctxp, const struct backend_env *env,
			      struct gs_err *err)
{
	struct hybrid *h = calloc(1, sizeof(*h));

	*ctxp = h;
	if (!h) {
		gs_fail(err, GS_ERUNTIME, "", "out of memory");
		return NULL;
	}
	h->job = *env->job;
	h->env = *env;
	h->env.job = &h->job;
	h->cpu_env = h->env;
	if (env->sink) {
		h->wsink = (struct sink){ write_sink, h };
		h->cpu_env.sink = &h->wsink;
	}
	h->cap = env->chunk_records * job_record_size(env->job);
	h->cpu_chunks = cpu_chunks_hook();
	atomic_store(&h->state, GPU_IDLE);
	pthread_mutex_init(&h->ready_lock, NULL);
	if (backend_cpu.open(&h->cpu, &h->cpu_env, err) < 0)
		return NULL;
	return h;
}

/* Start the GPU on a thread of its own; the CPU goes on meanwhile. */
static void gpu_launch(struct hybrid *h)
{
	h->t0 = now();
	atomic_store(&h->state, GPU_STARTING);
	h->started = pthread_create(&h->tid, NULL, gpu_start, h) == 0;
	if (!h->started) {
		snprintf(h->why, sizeof(h->why), "cannot start a thread for it");
		atomic_store(&h->state, GPU_FAILED);
	}
}

static int hyb_open(void **ctxp, const struct backend_env *env, struct gs_err *err)
{
	struct hybrid *h = hyb_new(ctxp, env, err);

	if (!h)
		return -1;
	gpu_launch(h);
	return 0;
}

/* backend_auto_late: the CPU alone, watched (cpu_watched). */
static int late_open(void **ctxp, const struct backend_env *env,
		     struct gs_err *err)
{
	struct hybrid *h = hyb_new(ctxp, env, err);

	if (!h)
		return -1;
	h->late = true;
	return 0;
}

/* Pin a buffer the first time the GPU copies from it. Unpinned memory
 * still works, only slower, so a failure here is not an error. */
static void pin(struct hybrid *h, void *p)
{
	for (int i = 0; i < h->npinned; i++)
		if (h->pinned[i] == p)
			return;
	double t0 = now();

	if (h->npinned < MAX_PINNED && cuda_pin(p, h->cap) == 0)
		h->pinned[h->npinned++] = p;
	h->t_pin += now() - t0;
}

/* Wait until the GPU has started or failed (the test hook). */
static void gpu_wait(struct hybrid *h)
{
	if (h->started)
		pthread_join(h->tid, NULL);
	h->started = false;
}

/* Before the GPU's first chunk of a scan: its carry from the CPU's state.
 * A failure leaves the GPU out and the CPU goes on, as if it had not
 * started. */
static void seed_scan(struct hybrid *h)
{
	struct gs_err err;

	if (backend_cuda.scan_seed(h->gpu, backend_cpu.scan_state(h->cpu),
				   &err) == 0)
		return;
	snprintf(h->why, sizeof(h->why), "the scan could not move to the "
		 "GPU: %.400s", err.what);
	atomic_store(&h->state, GPU_FAILED);
}

/* Whether this chunk goes to the GPU: once it is ready (the CPU first
 * runs the hook's N chunks), and then every later one. (A chunk mapped in
 * place after that, read as the GPU started, goes too, unpinned: a scan
 * cannot go back to the CPU.) */
static int to_gpu(struct hybrid *h, const struct chunk *ch,
		  struct gs_err *err)
{
	if (h->ngpu)
		return 1;
	/* a chunk mapped in place (backend_auto_late's, read before the
	 * GPU started) stays on the CPU: the GPU copies from the engine's
	 * buffers, pinned */
	if (ch->in_place)
		return 0;
	if (h->cpu_chunks >= 0) {
		if (h->ncpu < (uint64_t)h->cpu_chunks)
			return 0;
		gpu_wait(h);
	}
	if (atomic_load(&h->state) != GPU_READY)
		return 0;
	if (!h->device_set) {
		char why[300];

		if (cuda_probe(h->env.device, why, sizeof(why)) < 0)
			return gs_fail(err, GS_ERUNTIME, "cuda", "%s", why);
		h->device_set = true;
	}
	if (operation_of(h->env.job)->stream)
		seed_scan(h);
	return atomic_load(&h->state) == GPU_READY;
}

/* Bytes of input in a chunk, as auto's plan counts them (dot A B: both). */
static uint64_t chunk_bytes(const struct hybrid *h, const struct chunk *ch)
{
	return (uint64_t)ch->nrec * job_record_size(h->env.job) *
	       (ch->data2 ? 2 : 1);
}

/* Whether backend_auto_late's GPU starts now, from the CPU's chunks so
 * far: auto_plan_late for an input of known length (the CPU's time left
 * against a GPU's), auto_plan_stream for one of unknown length or a cold
 * file (the CPU's rate against the input's). */
static bool late_start(const struct hybrid *h, char *why, size_t n)
{
	uint64_t left = 0;

	if (h->env.input_bytes < 0 || h->env.job->cold_input)
		return auto_plan_stream(h->env.job, h->timed, h->timed_s,
					h->wall_s, why, n);
	if ((uint64_t)h->env.input_bytes > h->done)
		left = (uint64_t)h->env.input_bytes - h->done;
	return auto_plan_late(h->env.job, h->env.threads, h->timed, h->timed_s,
			      left, why, n);
}

/* backend_auto_late before its GPU starts: the chunk on the CPU, timed,
 * then the plan revised from the CPU's rate so far; the GPU starts if the
 * CPU has fallen behind the plan, or the input (late_start). */
static int cpu_watched(struct hybrid *h, const struct chunk *ch,
		       struct gs_err *err)
{
	uint64_t bytes = chunk_bytes(h, ch);
	bool disk = ch->in_place && h->env.job->cold_input;
	double t0 = now(), w0 = h->write_s, c0 = disk ? cpu_now() : 0, t1;
	char why[sizeof(h->late_why)];

	if (backend_cpu.submit(h->cpu, ch, err) < 0)
		return -1;
	t1 = now();
	h->done += bytes;
	if (h->ncpu == 1) {	/* the warm-up */
		h->t_first = t1;
		return 0;
	}
	h->timed += bytes;
	/* A cold file's chunk mapped in place is read by the threads' page
	 * faults: its wall time is mostly the disk's, so the CPU would seem
	 * to compute no faster than the input comes and the GPU would always
	 * start, reading the rest into pinned buffers, slower than the CPU
	 * reads it in place (bench/RESULTS.md). Its compute is the CPU
	 * time its threads spent, shared among them; a fault's wait for the
	 * disk is not in it. */
	if (disk)
		h->timed_s += (cpu_now() - c0) / (h->env.threads > 0 ?
						    h->env.threads : 1);
	else
		h->timed_s += t1 - t0 - (h->write_s - w0);
	h->wall_s = t1 - h->t_first;
	if (!late_start(h, why, sizeof(why)))
		return 0;
	memcpy(h->late_why, why, sizeof(why));
	h->late_after = h->ncpu;
	h->env.set_views(h->env.engine, false);
	gpu_launch(h);
	/* a rate faked by a test: its next chunk in the engine's buffers
	 * waits for the GPU, as GPUSTAT_AUTO_CPU_CHUNKS's does, so that the
	 * hand-over does not depend on how soon the GPU is ready */
	if (auto_plan_faked())
		h->cpu_chunks = (long long)h->ncpu;
	return 0;
}

static int hyb_submit(void *v, const struct chunk *ch, struct gs_err *err)
{
	struct hybrid *h = v;
	int gpu = to_gpu(h, ch, err);

	if (gpu < 0)
		return -1;
	if (!gpu) {
		int state = atomic_load(&h->state);

		h->ncpu++;
		if (state == GPU_IDLE)
			return cpu_watched(h, ch, err);
		/* a late start that failed: the CPU goes on, its chunks
		 * mapped in place again */
		if (state == GPU_FAILED && h->late_after && !h->views_back) {
			h->env.set_views(h->env.engine, true);
			h->views_back = true;
		}
		if (state == GPU_STARTING && !ch->in_place) {
			note(h, ch->data);
			note(h, ch->data2);
		}
		return backend_cpu.submit(h->cpu, ch, err);
	}
	if (!ch->in_place) {
		pin(h, ch->data);
		if (ch->data2)
			pin(h, ch->data2);
	}
	if (h->ngpu++ == 0)
		h->gpu_rec = ch->first_rec;
	return backend_cuda.submit(h->gpu, ch, err);
}

static void report(const struct hybrid *h);

static int hyb_finish(void *v, void *acc, struct gs_err *err)
{
	struct hybrid *h = v;

	if (backend_cpu.finish(h->cpu, acc, err) < 0)
		return -1;
	if (h->ngpu && backend_cuda.finish(h->gpu, acc, err) < 0)
		return -1;
	report(h);	/* close may not come (GPUSTAT_NO_TEARDOWN) */
	return 0;
}

/* backend_auto_late's part of the report: the revision, or the plan that
 * held (then the whole report but the chunks); "" for backend_auto. An
 * input of unknown length: the GPU's start, or that the CPU kept up with
 * the input, each with both rates. */
static void late_report(const struct hybrid *h, char *buf, size_t n)
{
	bool stream = h->env.input_bytes < 0 || h->env.job->cold_input;
	char rates[200];

	if (!h->late) {
		buf[0] = '\0';
		return;
	}
	if (h->late_after) {
		snprintf(buf, n, "the CPU, then the GPU started after %llu "
			 "chunks: %s%s; ", (unsigned long long)h->late_after,
			 stream ? "the CPU " : "", h->late_why);
		return;
	}
	if (h->timed_s <= 0) {
		snprintf(buf, n, "%s: no chunk after the first to measure the "
			 "CPU's rate by", stream ? "the CPU alone" :
			 "the plan held");
		return;
	}
	if (stream) {
		auto_plan_stream(h->env.job, h->timed, h->timed_s, h->wall_s,
				 rates, sizeof(rates));
		snprintf(buf, n, "the CPU %s", rates);
		return;
	}
	auto_plan_late(h->env.job, h->env.threads, h->timed, h->timed_s, 0,
		       rates, sizeof(rates));
	snprintf(buf, n, "the plan held: %s", rates);
}

/* What the run did, for -v; from close, so that a run that failed says it
 * too. */
static void report(const struct hybrid *h)
{
	int state = atomic_load(&h->state);
	char moved[80] = "", late[sizeof(h->late_why) + 80];

	late_report(h, late, sizeof(late));
	if (operation_of(h->env.job)->stream && h->ngpu)
		snprintf(moved, sizeof(moved), "; the scan moved to the GPU at "
			 "record %llu", (unsigned long long)h->gpu_rec);
	if (state == GPU_IDLE)
		snprintf(last_report, sizeof(last_report), "cpu: %llu chunks "
			 "(%s)", (unsigned long long)h->ncpu, late);
	else if (state == GPU_FAILED)
		snprintf(last_report, sizeof(last_report), "cpu: %llu chunks "
			 "(%sno GPU: %s)", (unsigned long long)h->ncpu, late,
			 h->why);
	else if (state == GPU_STARTING)
		snprintf(last_report, sizeof(last_report), "cpu: %llu chunks "
			 "(%sdone before the GPU had started)",
			 (unsigned long long)h->ncpu, late);
	else
		snprintf(last_report, sizeof(last_report), "cpu: %llu chunks, "
			 "cuda: %llu chunks (%sGPU ready after %.0f ms; its "
			 "%d buffers pinned in %.0f ms of it and the run)%s",
			 (unsigned long long)h->ncpu, (unsigned long long)h->ngpu,
			 late, 1e3 * h->t_ready, h->npinned, 1e3 * h->t_pin,
			 moved);
}

static void hyb_close(void *v)
{
	struct hybrid *h = v;

	if (!h)
		return;
	report(h);
	backend_cpu.close(h->cpu);
	/* from here the start thread pins nothing: a GPU not ready now
	 * pinned no buffer, which the engine is about to free */
	pthread_mutex_lock(&h->ready_lock);
	h->closing = true;
	int state = atomic_load(&h->state);

	pthread_mutex_unlock(&h->ready_lock);
	if (h->started && state == GPU_STARTING) {
		/* Still starting: do not wait for it. Nothing was pinned, and
		 * main() ends the process without running CUDA's exit
		 * handlers under the starting thread's feet. */
		pthread_detach(h->tid);
		return;
	}
	if (h->started)
		pthread_join(h->tid, NULL);
	if (h->gpu) {
		char why[300];

		/* the GPU's calls belong on its device, on this thread too */
		if (h->device_set || cuda_probe(h->env.device, why, sizeof(why)) == 0)
			backend_cuda.close(h->gpu);
	}
	for (int i = 0; i < h->npinned; i++)
		cuda_unpin(h->pinned[i]);
	free(h);
}

/* A scan's carry-in seeds the CPU, which scans first; the GPU takes its
 * carry from the CPU's state when it takes over. */
static int hyb_scan_seed(void *v, const struct red_col *state,
			 struct gs_err *err)
{
	struct hybrid *h = v;

	return backend_cpu.scan_seed(h->cpu, state, err);
}

const struct backend backend_auto = {
	.name = "auto",
	.host_alloc = host_pages_alloc,
	.host_free = host_pages_free,
	.open = hyb_open,
	.submit = hyb_submit,
	.finish = hyb_finish,
	.close = hyb_close,
	.scan_seed = hyb_scan_seed,
};

/* Its chunks are mapped in place while the CPU computes alone
 * (backend_in_place): the reader stops that when the GPU starts, and
 * goes back to it if the start fails (env->set_views). */
const struct backend backend_auto_late = {
	.name = "auto",
	.host_alloc = host_pages_alloc,
	.host_free = host_pages_free,
	.open = late_open,
	.submit = hyb_submit,
	.finish = hyb_finish,
	.close = hyb_close,
	.scan_seed = hyb_scan_seed,
};

#else

/* Without CUDA, backend_select never picks them; they are the CPU by name. */
const struct backend backend_auto = {
	.name = "auto",
};
const struct backend backend_auto_late = {
	.name = "auto",
};

#endif
