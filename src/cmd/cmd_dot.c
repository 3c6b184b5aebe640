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
#include "cmds.h"

static const char dot_help[] =
"Usage: gpustat dot [OPTION]... A B\n"
"   or: gpustat dot --pairs [OPTION]... [FILE]...\n"
"The dot product of two equally long streams A and B (per column with -c),\n"
"or with --pairs of the two columns of one stream (with -c 2N, of columns\n"
"2j and 2j+1). Exact, rounded once to double for float types.\n\n"
"      --pairs           multiply the columns of one stream pairwise\n"
"%s"
"  -f, --format FMT      text (default), tsv, csv, json, binary, npy\n"
"\n"
"Examples:\n"
"  gpustat dot a.f32 b.f32\n"
"  gpustat dot --pairs xy.f64 -t f64\n"
"  gpustat dot -t f64 -c 3 a.xyz b.xyz\n";

enum { OPT_PAIRS = 256 };

static const struct option dot_longopts[] = {
	{ "pairs", no_argument, NULL, OPT_PAIRS },
	{ NULL, 0, NULL, 0 },
};

struct dot_opts {
	bool pairs;
};

static int dot_option(void *ctx, int opt, const char *arg, struct gs_err *err)
{
	struct dot_opts *d = ctx;

	(void)arg;
	(void)err;
	if (opt == OPT_PAIRS)
		d->pairs = true;
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
static int open_two(struct cli *c, struct input **a, struct input **b,
		    int64_t *bytes, struct gs_err *err)
{
	struct input_info ia, ib;

	if (one_stream(c->operands[0], c->operands[1]))
		return gs_fail(err, GS_EUSAGE, "dot", "A and B are the same "
			       "stream ('%s' and '%s'); each side needs its own",
			       c->operands[0], c->operands[1]);
	if (cli_open_input(c, &c->operands[0], 1, a, &ia, err) < 0)
		return -1;
	/* B's header must agree, byte order included: one job reads both */
	c->type_set = c->columns_set = c->type_endian = true;
	if (cli_open_input(c, &c->operands[1], 1, b, &ib, err) < 0)
		return -1;
	/* progress counts both streams */
	*bytes = ia.total_bytes >= 0 && ib.total_bytes >= 0
		 ? ia.total_bytes + ib.total_bytes : -1;
	return 0;
}

static int open_pairs(struct cli *c, struct input **in, int64_t *bytes,
		      struct gs_err *err)
{
	struct input_info info;

	if (!c->columns_set)
		c->job.columns = 2;
	if (cli_open_input(c, c->operands, c->noperands, in, &info, err) < 0)
		return -1;
	if (c->job.columns % 2)
		return gs_fail(err, GS_EUSAGE, "dot",
			       "--pairs needs an even number of columns, not %u",
			       c->job.columns);
	*bytes = info.total_bytes;
	return 0;
}

static int run(struct cli *c, bool pairs)
{
	struct input *a = NULL, *b = NULL;
	struct engine_stats st;
	struct gs_err err;
	int64_t bytes = -1;

	c->job.cmd = CMD_DOT;
	c->job.two_inputs = !pairs;
	if (!pairs && c->noperands != 2) {
		gs_fail(&err, GS_EUSAGE, "dot", "expected two operands A B "
			"(or --pairs), got %d", c->noperands);
		return cli_report(c, &err);
	}
	if ((pairs ? open_pairs(c, &a, &bytes, &err)
		   : open_two(c, &a, &b, &bytes, &err)) < 0)
		return cli_report(c, &err);

	unsigned n = pairs ? c->job.columns / 2 : c->job.columns;
	struct dot_col *acc = engine_acc_new(&c->job, &c->eo,
					     (uint64_t)n * sizeof(struct result), &err);
	struct result *r = acc ? calloc(n, sizeof(*r)) : NULL;

	if (!r) {
		if (acc)
			gs_fail(&err, GS_ERUNTIME, "", "out of memory");
		return cli_report(c, &err);
	}
	if (cli_run(c, a, b, bytes, NULL, acc, &st, &err) < 0)
		return cli_report(c, &err);
	input_close(a);
	if (b)
		input_close(b);
	for (unsigned i = 0; i < n; i++) {
		if (!type_is_float(c->job.dtype.type) &&
		    xsum_to_dec(&acc[i].s, r[i].dec)) {
			r[i].kind = RES_INT_DEC;
		} else {
			r[i].kind = RES_F64;
			r[i].f = xsum_to_f64(&acc[i].s);
		}
	}
	int rc = emit_results(c, "dot", NULL, r, n, st.records);

	free(acc);
	free(r);
	return rc;
}

int cmd_dot(int argc, char **argv)
{
	struct cli c = { .default_type = GS_F32 };
	struct dot_opts d = { false };
	static char help[4096];
	struct cmd_opts co = { dot_longopts, "", dot_option, &d, help };
	struct gs_err err;

	snprintf(help, sizeof(help), dot_help, common_help);
	int rc = cli_parse(&c, argc, argv, &co, &err);

	if (rc)
		return rc > 0 ? 0 : cli_report(&c, &err);
	return run(&c, d.pairs);
}
