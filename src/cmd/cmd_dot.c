/*
 * cmd_dot.c - `gpustat dot A B` (two streams, one dot product per column)
 * and `gpustat dot --pairs` (columns 2j and 2j+1 of one stream). Products
 * and their sum are exact; float results are rounded once. CPU kernels:
 * cpu_dot.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "command.h"
#include "results.h"
#include "algorithm.h"

enum { OPT_PAIRS = 1 };

static const struct opt_spec dot_opts[] = {
	{ .name = "pairs",
	  .has_arg = no_argument,
	  .help = "multiply the columns of one stream pairwise",
	  .id = OPT_PAIRS },
	ALGORITHM_OPT(REDUCE_ALGORITHMS,
		      "the kernel: default, or on the GPU atomic (threads\n"
		      "into one global state) or block-tree (a shared tree\n"
		      "per block, then the blocks'); same output"),
	{ .name = NULL },
};

static int dot_option(struct cli *c, int id, const char *arg,
		      struct gs_err *err)
{
	if (id == OPT_ALGORITHM)
		return cli_algorithm_option(c, arg, err);
	c->job.two_inputs = false;	/* --pairs */
	return 0;
}

static void dot_init(struct cli *c)
{
	c->job.two_inputs = true;
}

static int dot_check(struct cli *c, struct gs_err *err)
{
	if (c->job.two_inputs && c->noperands != 2)
		return gs_fail(err, GS_EUSAGE, "dot", "expected two operands A B "
			       "(or --pairs), got %d", c->noperands);
	if (c->job.two_inputs && c->per_file)
		return gs_fail(err, GS_EUSAGE, "dot", "--per-file: dot A B is "
			       "one result of two streams (--pairs takes one "
			       "per file)");
	return 0;
}

/* Whether A and B are one open stream: both stdin, or the same pipe,
 * FIFO or device (two reads of one regular file are two streams). */
static bool one_stream(const char *a, const char *b)
{
	struct stat sa, sb;
	bool ia = strcmp(a, "-") == 0, ib = strcmp(b, "-") == 0;

	if (ia && ib)
		return true;
	if ((ia ? fstat(STDIN_FILENO, &sa) : stat(a, &sa)) != 0 ||
	    (ib ? fstat(STDIN_FILENO, &sb) : stat(b, &sb)) != 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
	       !S_ISREG(sa.st_mode) && !S_ISDIR(sa.st_mode);
}

/* Open A and B; B must have A's type and columns. */
static int open_two(struct cli *c, struct gs_err *err)
{
	struct input_info ib;

	if (one_stream(c->operands[0], c->operands[1]))
		return gs_fail(err, GS_EUSAGE, "dot", "A and B are the same "
			       "stream ('%s' and '%s'); each side needs its own",
			       c->operands[0], c->operands[1]);
	if (cli_open_input(c, &c->operands[0], 1, &c->in, &c->info, err) < 0)
		return -1;
	/* B's header must agree, byte order included: one job reads both */
	c->type_set = c->columns_set = c->type_endian = true;
	if (cli_open_input(c, &c->operands[1], 1, &c->in2, &ib, err) < 0)
		return -1;
	/* progress counts both streams */
	c->input_bytes = c->info.total_bytes >= 0 && ib.total_bytes >= 0
			 ? c->info.total_bytes + ib.total_bytes : -1;
	return 0;
}

static int open_pairs(struct cli *c, struct gs_err *err)
{
	if (!c->columns_set)
		c->job.columns = 2;
	if (cli_open_input(c, c->operands, c->noperands, &c->in, &c->info,
			   err) < 0)
		return -1;
	if (c->job.columns % 2)
		return gs_fail(err, GS_EUSAGE, "dot",
			       "--pairs needs an even number of columns, not %u",
			       c->job.columns);
	c->input_bytes = c->info.total_bytes;
	return 0;
}

static int dot_open(struct cli *c, struct gs_err *err)
{
	return c->job.two_inputs ? open_two(c, err) : open_pairs(c, err);
}

/* one dot product per column, or per pair of columns */
static unsigned dot_count(const struct cli *c)
{
	return c->job.two_inputs ? c->job.columns : c->job.columns / 2;
}

/* The results printed from the accumulators count in their limit. */
static uint64_t dot_extra(const struct cli *c)
{
	return (uint64_t)dot_count(c) * sizeof(struct result);
}

static int dot_done(struct cli *c, void *acc, struct sbuf *b,
		    struct gs_err *err)
{
	const struct dot_col *cols = acc;
	unsigned n = dot_count(c);
	struct result *r = calloc(n, sizeof(*r));

	if (!r)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (unsigned i = 0; i < n; i++) {
		if (!type_is_float(c->job.dtype.type) &&
		    xsum_to_dec(&cols[i].s, r[i].dec)) {
			r[i].kind = RES_INT_DEC;
		} else {
			r[i].kind = RES_F64;
			r[i].f = xsum_to_f64(&cols[i].s);
		}
	}
	int rc = results_format(c, "dot", NULL, r, n, b, err);

	free(r);
	return rc;
}

static const struct pass dot_passes[] = {
	{ .op = CMD_DOT, .extra = dot_extra, .done = dot_done },
	{ .done = NULL },
};

const struct command dot_command = {
	.name = "dot",
	.summary = "the exact dot product of two streams (or --pairs)",
	.usage = "[OPTION]... A B\n--pairs [OPTION]... [FILE]...",
	.about = "The dot product of two equally long streams A and B (per "
		 "column with -c),\nor with --pairs of the two columns of one "
		 "stream (with -c 2N, of columns\n2j and 2j+1). Exact, rounded "
		 "once to double for float types.",
	.examples = "gpustat dot a.f32 b.f32\n"
		    "gpustat dot --pairs xy.f64 -t f64\n"
		    "gpustat dot -t f64 -c 3 a.xyz b.xyz",
	.opts = dot_opts,
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = RESULT_FORMATS,
	.formats_help = RESULT_FORMATS_HELP,
	.init = dot_init,
	.option = dot_option,
	.check = dot_check,
	.open = dot_open,
	.passes = dot_passes,
};
