/*
 * operation.c - the registry of operations (see operation.h), in the order
 * of enum gs_cmd.
 */
#include "operation.h"
#include "select.h"

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
	[CMD_HIST] = { .name = "hist", .cpu = &hist_kernels,
		       .state = &hist_state },
	[CMD_STATS] = { .name = "stats", .cpu = &stats_kernels,
			.state = &stats_state,
			.zero_sign = float_input, .zero_sign_skips_nan = true,
			.set_negzero = stats_negzero },
	[CMD_DOT] = { .name = "dot", .cpu = &dot_kernels,
		      .state = &dot_state },
	[CMD_REDUCE] = { .name = "reduce", .cpu = &reduce_kernels,
			 .state = &reduce_state,
			 .zero_sign = float_sum, .set_negzero = reduce_negzero },
	[CMD_SCAN] = { .name = "scan", .cpu = &reduce_kernels, .stream = true,
		       .zero_sign = float_scan_sum },
	/* a ranged hist's first pass: the stats' min and max */
	[CMD_MINMAX] = { .name = "minmax", .cpu = &stats_kernels },
	/* quantile's radix select and mode's counts (cuda/select_kernels.cu) */
	[CMD_SELECT] = { .name = "select", .cpu = &select_kernels },
	[CMD_COLLECT] = { .name = "collect", .cpu = &collect_kernels },
	[CMD_MODECOUNT] = { .name = "modecount", .cpu = &mode_kernels },
};

const struct operation *operation_of(const struct gs_job *job)
{
	return &operations[job->cmd];
}

const struct acc_kernels *acc_kernels_for(const struct gs_job *job)
{
	return operation_of(job)->cpu;
}
