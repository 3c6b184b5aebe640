/*
 * operation.c - the registry of operations (see operation.h): a record per
 * row of ops.def, in the order of enum gs_cmd.
 */
#include <stdlib.h>
#include "operation.h"

/* What the ZERO_SIGN columns of ops.def name. */
static bool float_input(const struct gs_job *job)
{
	return type_is_float(job->dtype.type);
}

static bool float_sum(const struct gs_job *job)
{
	return job->op == OP_SUM && float_input(job);
}

static bool float_scan_sum(const struct gs_job *job)
{
	return float_sum(job) && type_is_float(job->out_type);
}

static void stats_negzero(void *acc, unsigned col, bool negzero)
{
	struct stats_col *s = (struct stats_col *)acc + col;

	s->s1.negzero = negzero && s->count > s->nan;
}

static void reduce_negzero(void *acc, unsigned col, bool negzero)
{
	struct red_col *r = (struct red_col *)acc + col;

	r->u.sum.negzero = negzero && r->count > 0;
}

static const struct operation operations[] = {
#define OPERATION(id, nm, kernels, gpu, codec, rate, flow, zero) \
	{ .name = nm, .cpu = &kernels, .state = codec, .stream = flow, zero },
#define STATE(x) &x
#define NO_STATE NULL
#define FOLD false
#define STREAM true
#define ZERO_SIGN(has, skips_nan, set) \
	.zero_sign = has, .zero_sign_skips_nan = skips_nan, .set_negzero = set
#define NO_ZERO_SIGN .zero_sign = NULL
#include "ops.def"
#undef OPERATION
#undef STATE
#undef NO_STATE
#undef FOLD
#undef STREAM
#undef ZERO_SIGN
#undef NO_ZERO_SIGN
};

const struct operation *operation_of(const struct gs_job *job)
{
	return &operations[job->cmd];
}

const struct acc_kernels *acc_kernels_for(const struct gs_job *job)
{
	/* a group-by reads mixed records itself, and a weighted hist each
	 * record whole, values and weight */
	return job->rec && job->cmd != CMD_GROUP && job->cmd != CMD_GVALS &&
		       job->cmd != CMD_HISTW ? &mixed_kernels
						 : operation_of(job)->cpu;
}

void acc_release(const struct gs_job *job, void *acc)
{
	const struct acc_kernels *k;

	if (!acc)
		return;
	k = acc_kernels_for(job);
	if (k->acc_free)
		k->acc_free(job, acc);
	free(acc);
}

int acc_check(const struct gs_job *job, const void *acc, struct gs_err *err)
{
	const struct acc_kernels *k = acc_kernels_for(job);

	return k->acc_error ? k->acc_error(job, acc, err) : 0;
}
