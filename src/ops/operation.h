/*
 * operation.h - the registry of accumulating operations: one record per
 * thing a pass over the stream can compute (a histogram, the statistics,
 * a dot product, a reduction, a scan, the min and max of a range pass),
 * made from the rows of ops.def.
 *
 * A command (src/cmd/) plans passes; each pass names its operation in
 * job->cmd, and everything below the command reads this record instead of
 * switching on it: the engine (accumulator sizes, the sign of zero sums),
 * the CPU backend (the exact state and its kernel, from acc.h), and the
 * CUDA backend (its table of GPU entry points, cuda/backend_cuda.cu, from
 * the same rows). A new operation is its kernels and one row of ops.def.
 */
#ifndef OPERATION_H
#define OPERATION_H

#include "acc.h"

/* An accumulator as bytes (state_codec.c, docs/STATE.md): how many for
 * job, and the copies each way; put and get never fail (the caller checks
 * the length and makes the accumulator with acc_init first). */
struct state_codec {
	size_t (*bytes)(const struct gs_job *job);
	void (*put)(const struct gs_job *job, const void *acc, unsigned char *p);
	void (*get)(const struct gs_job *job, void *acc, const unsigned char *p);
	/* Whether acc, read from bytes, is one a run could have made (the
	 * merges rely on it: a product's bounds normalized); NULL: any is. */
	bool (*valid)(const struct gs_job *job, const void *acc);
	/* Where the payload's length is the state's own (hist2d --weights'
	 * sums, a group-by's keys): it, and (not a group-by's) reading
	 * p[0..n) into acc, -1 for a payload no run makes; bytes and get
	 * are then unused. NULL for the others. */
	size_t (*bytes_of)(const struct gs_job *job, const void *acc);
	int (*get_n)(struct gs_job *job, void *acc, const unsigned char *p,
		     size_t n);
	/* A payload of any length (a group-by's keys: the data's), made and
	 * read a piece at a time (acc.h's group_state_*): put_to, head,
	 * entries, head_free. NULL for the others. */
	void (*put_to)(const struct gs_job *job, const void *acc,
		       const struct gs_sink *out);
	int (*head)(struct gs_job *job, const struct gs_src *src,
		    uint64_t limit, uint64_t *entries);
	int (*entries)(const struct gs_job *job, void *acc,
		       const struct gs_src *src, uint64_t entries);
	void (*head_free)(struct gs_job *job);
};
/* Each operation's codec: the STATE(x) of its row of ops.def. */
#define OPERATION(id, name, cpu, gpu, state, ...) state
#define STATE(x) extern const struct state_codec x;
#define NO_STATE
#include "ops.def"
#undef OPERATION
#undef STATE
#undef NO_STATE

struct operation {
	const char *name;
	/* its exact state (size, init, merge) and the CPU kernel that folds
	 * records into it */
	const struct acc_kernels *cpu;
	/* the state as bytes, for -f state and merge (NULL: it has none) */
	const struct state_codec *state;
	/* its output streams through a sink (a scan): no result accumulator,
	 * and the state carried between chunks is the reduction of the
	 * records before them */
	bool stream;
	/* Float sums with a sign of zero (a sum of -0 terms only is -0:
	 * xsum.negzero, which the CPU kernels note from their terms): for a
	 * backend whose kernels do not see it (the GPU's, which notes it from
	 * the chunks on the host), whether job has them (NULL: never), whether
	 * NaN elements are left out of them, and how to mark column col of a
	 * result accumulator (NULL for streams: the backend signs the output
	 * as it goes). */
	bool (*zero_sign)(const struct gs_job *job);
	bool zero_sign_skips_nan;
	void (*set_negzero)(void *acc, unsigned col, bool negzero);
};

/* The record of job->cmd. */
const struct operation *operation_of(const struct gs_job *job);

/* The codec of job's state (NULL: it has none): its operation's, or for
 * records of mixed types each column's in turn (state_codec.c). */
const struct state_codec *state_codec_for(const struct gs_job *job);

#endif
