/*
 * backend.h - the one interface between the streaming engine and whatever
 * computes: the CPU backend (backend_cpu.c) and the CUDA backend (cuda/,
 * reached through cuda/gpustat_cuda.h).
 *
 * The engine owns the reader; a backend owns the arithmetic. The engine asks
 * the backend for host buffers (pinned memory for CUDA, plain memory for the
 * CPU), fills them, and submits each one as a chunk of whole records (a
 * backend that computes on the CPU, backend_in_place, may get a regular
 * file's bytes mapped where they are instead: engine.h, views). A backend
 * keeps a chunk until it calls env->release(), so an asynchronous
 * backend can return from submit() at once and free the buffer when its copy
 * has finished. Scan output goes to env->sink, in stream order.
 *
 * Backends never print; they return errors in struct gs_err.
 */
#ifndef BACKEND_H
#define BACKEND_H

#include "gs.h"

struct red_col;		/* acc.h */

struct chunk {
	int id;			/* buffer index, for release() */
	void *data;		/* nrec records, in the input's byte order */
	void *data2;		/* second stream of dot A B, or NULL */
	size_t nrec;
	uint64_t first_rec;	/* index of data's first record in the stream */
	bool in_place;		/* data is the input mapped in place (read
				 * only), not buffer id's memory: only for
				 * backend_in_place's backends */
};

/* Where scan output goes, in order. Returns 0 or -1 with err filled. */
struct sink {
	int (*write)(void *ctx, const void *buf, size_t n, struct gs_err *err);
	void *ctx;
};

#define GS_MAX_DEVICES 16

struct backend_env {
	const struct gs_job *job;
	size_t chunk_records;	/* a chunk holds at most this many records */
	int threads;		/* CPU worker threads */
	int device;		/* --device */
	const int *devices;	/* --devices (backend_multi): ndevices GPUs */
	int ndevices;
	int streams;		/* --streams */
	int64_t input_bytes;	/* the input's length, -1 when unknown */
	struct sink *sink;	/* scan output */
	void (*release)(void *engine, int id);
	/* From the next chunk read on, none mapped in place (on false): every
	 * chunk in the engine's buffers, which a GPU copies from (pinned); on
	 * true, mapped in place again where the engine would have at first
	 * (a GPU that failed to start). */
	void (*set_views)(void *engine, bool on);
	void *engine;
};

/* Busy seconds of a backend's own stages, for -v and bench/ (a backend
 * that computes inside submit() leaves them 0: the engine times submit). */
struct stage_times {
	double h2d, kernel, d2h, write;
};

struct backend {
	const char *name;
	void *(*host_alloc)(size_t n);
	void (*host_free)(void *p);
	int (*open)(void **ctx, const struct backend_env *env, struct gs_err *err);
	int (*submit)(void *ctx, const struct chunk *c, struct gs_err *err);
	/* Wait for all work and merge the result into acc (made by the
	 * command's acc_init; untouched for scan). */
	int (*finish)(void *ctx, void *acc, struct gs_err *err);
	void (*close)(void *ctx);
	/* Optional (may be NULL): stage times so far, called after finish. */
	void (*times)(void *ctx, struct stage_times *t);
	/* Scans, for the hybrid that moves a scan from the CPU to the GPU
	 * (may be NULL). scan_state: the state after every chunk submitted
	 * so far, a struct red_col per column (acc.h: the reduction of every
	 * earlier record), valid until the next submit; NULL if not a scan.
	 * scan_seed: start from such a state instead of the empty prefix;
	 * before the first submit. */
	const struct red_col *(*scan_state)(void *ctx);
	int (*scan_seed)(void *ctx, const struct red_col *state,
			 struct gs_err *err);
};

extern const struct backend backend_cpu;

/* Plain host buffers for the CPU side (backend_cpu.c): whole mappings with
 * huge pages where the kernel gives them. */
void *host_pages_alloc(size_t n);
void host_pages_free(void *p);
extern const struct backend backend_auto;	/* CPU first, then the GPU */
/* The CPU, that starts the GPU only if it runs slower than auto's plan
 * (auto_plan_late) or, on an input of unknown length, than the input comes
 * (auto_plan_stream), and then hands over as backend_auto does. */
extern const struct backend backend_auto_late;
/* Chunks spread over env->devices, one CUDA pipeline each (--devices). */
extern const struct backend backend_multi;

/* Whether be computes on the CPU, where a chunk may be the input mapped in
 * place: backend_cpu, and backend_auto_late until its GPU starts (it then
 * calls env->set_views). */
bool backend_in_place(const struct backend *be);

/* --backend: which one to use. */
enum backend_choice { BACKEND_AUTO, BACKEND_CPU, BACKEND_CUDA };

/* Pick a backend for the job over input_bytes (-1: unknown; compressed:
 * zstd, decoded as it is read) with threads CPU threads: returns it, or NULL with err filled (e.g. --backend cuda
 * without a usable GPU). *why says why, for -v. */
const struct backend *backend_select(enum backend_choice choice,
				     const struct gs_job *job,
				     int64_t input_bytes, bool compressed,
				     int threads, int device, int ndevices,
				     const char **why, struct gs_err *err);

/* Start the GPU's context (cuda_probe, hundreds of milliseconds) on a
 * thread of its own now, ahead of backend_select, where backend_select
 * would want a GPU for job with these arguments: --backend cuda or
 * --devices (job not looked at), or auto's plan for a GPU (auto_plan_gpu;
 * job as its pass will run it, threads those its accumulators leave). backend_select's probe (or auto's start thread) then
 * finds it started, or waits for the rest of it: the context is made
 * while the run opens its input, allocates its accumulators and makes its
 * earlier passes (hist2d's range). Once per process; true when started.
 * Without CUDA, or where the job would stay on the CPU, it does nothing;
 * a probe that fails is found again by backend_select, which reports it
 * as before. */
bool backend_prestart(enum backend_choice choice, const struct gs_job *job,
		      int64_t input_bytes, bool compressed, int threads,
		      int device, int ndevices);

/* What the last backend_auto or backend_auto_late run did, for -v: chunks
 * on each side, when the GPU started and became ready (or why it did
 * not). */
void backend_auto_report(char *buf, size_t n);

#endif
