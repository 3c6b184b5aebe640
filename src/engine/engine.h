/*
 * engine.h - the streaming engine: a reader thread fills large chunks of
 * whole records while a backend computes on the previous ones.
 *
 * Chunks are handed on when full, at the end of the input, or when a pipe has
 * stalled for stall_ms with at least one whole record in hand (so scan output
 * follows a slow producer). A record is never split across chunks: the bytes
 * of a partial record are carried into the next buffer. Memory is the nbuf
 * buffers the backend allocates, whatever the input length.
 */
#ifndef ENGINE_H
#define ENGINE_H

#include <stdatomic.h>
#include "backend.h"
#include "input.h"

/* one being read, one computed, two spare: a reader ahead of a jittery
 * backend (or one holding a buffer for its copy) does not wait */
#define ENGINE_NBUF 4
#define ENGINE_STALL_MS 20	/* "tens of milliseconds" */

/* CPU threads get slices of at least this many records of a chunk: below,
 * waking a thread costs more than it gains. So no more threads run than a
 * chunk has such slices (--chunk-size 1 -j 64 runs one). */
#define ENGINE_MIN_SLICE_RECORDS 16384

/* The accumulators' memory: one copy per CPU thread with its scratch (and a
 * scan's carries), the command's own copy, and what the command keeps beside
 * it (its formatted results). Checked before any of it is allocated: over
 * the limit, fewer threads run where that fits, else the run is refused.
 * With the buffers (ENGINE_NBUF chunks) this bounds a run's memory whatever
 * the column count: stats of 1048576 columns would need 2.4 GB. */
#define ENGINE_ACC_LIMIT ((uint64_t)1 << 30)

struct engine_opts {
	size_t chunk_size;	/* bytes per buffer; rounded down to records */
	int threads;
	int device;
	/* --devices: the GPUs one run spreads its chunks over (a GPU may
	 * repeat: independent pipelines on it); ndevices 0 for --device's
	 * one, -1 for every GPU */
	int devices[GS_MAX_DEVICES];
	int ndevices;
	int streams;
	int stall_ms;
	int64_t input_bytes;	/* the input's length, -1 when unknown */
	_Atomic uint64_t *counter;	/* payload bytes read, for progress; or NULL */
	/* a scan's start: the reduction of every record before the stream
	 * (a struct red_col per column, scan --carry-in), or NULL */
	const struct red_col *carry_in;
};

struct engine_stats {
	uint64_t records;	/* whole records computed */
	uint64_t chunks;
	uint64_t viewed;	/* of them, read in place (input_view) */
	/* seconds: the reader in read(2)/zstd and waiting for a free buffer;
	 * the consumer in submit() and waiting for a chunk; scan output in
	 * the sink; the run's wall time; the backend's own stages */
	double read, read_wait, submit, submit_wait, write, wall;
	double setup;		/* of wall: buffers and backend open */
	double alloc, open;	/* of setup: the buffers; the backend's open */
	double teardown;	/* of wall: the backend's close, buffers freed */
	struct stage_times be;
};

/* The command's accumulator for job, made by acc_init, after checking that
 * it, extra bytes beside it and the CPU threads' copies fit ENGINE_ACC_LIMIT;
 * lowers eo->threads where fewer threads fit, or where a chunk has fewer
 * slices of ENGINE_MIN_SLICE_RECORDS. NULL with err filled when
 * even one thread does not fit, or out of memory. Free with free(). */
void *engine_acc_new(const struct gs_job *job, struct engine_opts *eo,
		     uint64_t extra, struct gs_err *err);

/* The threads, at most *threads, whose accumulators (the command's copy if
 * own, and extra bytes) fit ENGINE_ACC_LIMIT; -1 with err filled when one
 * thread's do not. */
int engine_fit_threads(const struct gs_job *job, int *threads, bool own,
		       uint64_t extra, struct gs_err *err);

/*
 * GPUSTAT_NO_TEARDOWN=1 (set in the environment, read once per run): the
 * engine leaves its buffers and the backend's context (device memory,
 * streams, threads) to the process's exit instead of freeing them after
 * the run, for measuring what the teardown costs against the exit doing
 * it (gpustat exits right after its last run). Each pass of a command
 * then keeps its own set until the exit.
 */
#define ENGINE_NO_TEARDOWN_ENV "GPUSTAT_NO_TEARDOWN"

/*
 * On the CPU backend (and auto's while it computes on the CPU alone:
 * backend_in_place), the payload of an uncompressed regular file is
 * mapped in place (input_view), a chunk at a time, instead of copied into
 * the engine's buffers: the threads that compute read the page cache
 * themselves. GPUSTAT_NO_VIEWS=1 copies as before, for measuring the
 * difference and for tests that compare the two.
 */
#define ENGINE_NO_VIEWS_ENV "GPUSTAT_NO_VIEWS"

/* "read 1.20 s, ..." for -v: every stage's busy time against the wall. */
void engine_stats_line(const struct engine_stats *st, char *buf, size_t n);

/* Run job over in (and in2 for dot A B) on backend be, merging the result
 * into acc (already made by acc_init; NULL for scan, whose output goes to
 * sink). Returns 0 or -1 with err filled. Operand errors that do not stop the
 * stream were already passed to the input's warn callback. */
int engine_run(const struct gs_job *job, const struct engine_opts *eo,
	       const struct backend *be, struct input *in, struct input *in2,
	       struct sink *sink, void *acc, struct engine_stats *st,
	       struct gs_err *err);

#endif
