/*
 * cmd_reduce.c - `gpustat sum` and `gpustat reduce --op OP`: one reduction
 * per column (sum is reduce --op sum). CPU kernels: cpu_reduce.c; GPU:
 * reduce_kernels.cu.
 */
#include <stdlib.h>
#include "command.h"
#include "commands.h"
#include "results.h"
#include "algorithm.h"
#include "group.h"

enum { OPT_OP = 1 };

static const struct opt_spec reduce_opts[] = {
	{ .name = "op",
	  .has_arg = required_argument,
	  .arg = "OP",
	  .help = "sum (default), prod, min, max, and, or, xor",
	  .values = "sum prod min max and or xor",
	  .id = OPT_OP,
	  .brief = "the operation" },
	ALGORITHM_OPT(REDUCE_ALGORITHMS,
		      "the kernel: default, or on the GPU atomic (threads\n"
		      "into one global state) or block-tree (a shared tree\n"
		      "per block, then the blocks'); sums only; same output"),
	GROUP_OPT,
	{ .name = NULL },
};

static int reduce_option(struct cli *c, int id, const char *arg,
			 struct gs_err *err)
{
	if (id == OPT_ALGORITHM)
		return cli_algorithm_option(c, arg, err);
	if (id == OPT_BY)
		return group_option(c, arg, err);
	if (id == OPT_OP && parse_op(arg, &c->job.op) == 0)
		return 0;
	return gs_fail(err, GS_EUSAGE, "", "--op: unknown operation '%s' "
		       "(sum, prod, min, max, and, or, xor)", arg);
}

/* After opening: a header may have set the type. */
static int reduce_plan(struct cli *c, const struct pass **passes,
		       struct gs_err *err)
{
	enum gs_op op = c->job.op;

	for (unsigned k = 0; k < c->job.columns; k++) {
		enum gs_type t = job_col_dtype(&c->job, k).type;

		if ((op == OP_AND || op == OP_OR || op == OP_XOR) &&
		    type_is_float(t))
			return gs_fail(err, GS_EUSAGE, c->cmd,
				       "--op %s needs an integer type, not %s",
				       op_name(op), type_name(t));
		/* where an integer product overflows is found by the CPU
		 * backend's merge in stream order (backend_cpu.c), for one
		 * type's records */
		if (op == OP_PROD && c->job.rec && !type_is_float(t))
			return gs_fail(err, GS_EUSAGE, c->cmd, "--op prod of "
				       "an integer column of mixed records "
				       "is not supported yet");
		if (!c->job.rec)
			break;
	}
	if (c->by && op != OP_SUM && op != OP_MIN && op != OP_MAX)
		return gs_fail(err, GS_EUSAGE, c->cmd, "--by: --op %s is not "
			       "grouped yet (sum, min and max are)",
			       op_name(op));
	return group_plan(c, op == OP_SUM ? GROUP_SUM : GROUP_MINMAX, passes,
			  err);
}

/* The results printed from the accumulators count in their limit. */
static uint64_t reduce_extra(const struct cli *c)
{
	return (uint64_t)c->job.columns * sizeof(struct result);
}

static int reduce_done(struct cli *c, void *acc, struct sbuf *b,
		       struct gs_err *err)
{
	const struct red_col *cols = acc;
	unsigned n = c->job.columns;
	struct result *r = calloc(n, sizeof(*r));
	const char *op = op_name(c->job.op);
	int rc = 0;

	if (!r)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (unsigned i = 0; i < n && rc == 0; i++) {
		struct gs_job cj = c->job.rec ? job_column(&c->job, i) : c->job;

		rc = red_result(&cj, &cols[i], &r[i], err);
		if (rc == 0 && r[i].kind == RES_NONE)	/* min, max of none */
			rc = result_no_data(c, op, err);
	}
	if (rc == 0 && c->command == &sum_command)
		rc = results_format(c, "sum", NULL, r, n, b, err);
	else if (rc == 0)
		rc = results_format(c, op, op, r, n, b, err);
	free(r);
	return rc;
}

static const struct pass reduce_passes[] = {
	{ .op = CMD_REDUCE, .extra = reduce_extra, .done = reduce_done },
	{ .done = NULL },
};

const struct command sum_command = {
	.name = "sum",
	.summary = "the exact sum of all elements",
	.usage = "[OPTION]... [FILE]...",
	.about = "The exact sum of all elements (per column with -c), rounded "
		 "once to\ndouble for float types and exact for integers.",
	.examples = "gpustat sum data.f32\n"
		    "gpustat sum -t f64 big.f64.zst\n"
		    "gpustat sum -t u16 -c 3 -f json image.u16",
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = RESULT_FORMATS,
	.formats_help = RESULT_FORMATS_HELP,
	.opts = &reduce_opts[1],	/* --algorithm: reduce's rows less --op */
	.option = reduce_option,
	.check = group_check,
	.plan = reduce_plan,
	.passes = reduce_passes,
	.mixed = true,
};

const struct command reduce_command = {
	.name = "reduce",
	.summary = "sum, prod, min, max, and, or, xor of all elements",
	.usage = "[--op OP] [OPTION]... [FILE]...",
	.about = "Reduce all elements (per column with -c) with OP: sum, prod, "
		 "min, max,\nand, or, xor (and/or/xor for integer types only). "
		 "Sums and products are\nexact, rounded once for float types.",
	.examples = "gpustat reduce --op max data.f32\n"
		    "gpustat reduce --op xor -t u64 blocks.bin",
	.opts = reduce_opts,
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = RESULT_FORMATS,
	.formats_help = RESULT_FORMATS_HELP,
	.option = reduce_option,
	.check = group_check,
	.plan = reduce_plan,
	.passes = reduce_passes,
	.mixed = true,
};
