/*
 * zero_sign.h - the sign of a zero sum, settled by the engine for every
 * backend.
 *
 * An exact sum has no sign of zero, but IEEE addition gives -0 when every
 * term is -0 (numpy's sum and cumsum do). Backends compute exact sums, the
 * GPU's included, so the sign is settled here, the same for all: the engine
 * shows every chunk in host memory to zero_sign_chunk before it is
 * submitted, which notes per column the record where the leading run of -0
 * ends (the loop stops at the first element that is not -0, so it costs
 * nothing after that). A reduction's zero then becomes -0 (xsum.negzero)
 * through zero_sign_apply after finish(); a scan's outputs inside the run
 * become -0 in zero_sign_write, on their way to the sink, where every
 * backend's output passes in order (the CPU's from submit, the GPU's from
 * its writer thread).
 */
#ifndef ZERO_SIGN_H
#define ZERO_SIGN_H

#include <stdatomic.h>
#include "backend.h"

struct zero_sign {
	const struct gs_job *job;
	bool on;			/* a float sum or scan sum */
	bool skip_nan;			/* stats: NaNs are left out of the sum */
	size_t size;			/* bytes per element */
	unsigned live;			/* columns still in their run */
	_Atomic uint64_t *end;		/* [columns]: the run's end, a record */
	bool *lead0;			/* [columns]: an exclusive scan's first
					 * output, the carry-in, is -0 */
	bool out_done;			/* no output record left to fix */
	uint64_t out_rec;		/* scan output records written */
	unsigned char *bounce;		/* scan output being fixed */
	size_t bounce_rec;
};

/* Track the sign of zero sums where job's operation has float sums (else
 * zs->on stays false); a scan from carry (a red_col per column, or NULL)
 * continues the runs of the records before it. zs starts zeroed. Returns 0
 * or -1 with err filled. */
int zero_sign_init(struct zero_sign *zs, const struct gs_job *job,
		   const struct red_col *carry, struct gs_err *err);
/* Note where the runs still going (zs->live of them) end in chunk c. */
void zero_sign_chunk(struct zero_sign *zs, const struct chunk *c);
/* Write n bytes of scan output (whole records, in order) to sink, the
 * outputs inside a run of -0 made -0. */
int zero_sign_write(struct zero_sign *zs, const struct sink *sink,
		    const void *buf, size_t n, struct gs_err *err);
/* After finish(): a zero sum of -0 terms only in acc becomes -0. */
void zero_sign_apply(const struct zero_sign *zs, void *acc);
void zero_sign_release(struct zero_sign *zs);

#endif
