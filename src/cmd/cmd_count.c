/*
 * cmd_count.c - `gpustat count`: how many elements each column has, and how
 * many of them are NaN (always 0 for integer types). It runs the stats
 * operation (cpu_stats.c, stats_kernels.cu) and prints only its counts, so
 * `count` and `stats` agree by construction. One line: count and nan for
 * each column in turn.
 */
#include "command.h"
#include "group.h"
#include "writer.h"

struct counts {
	const struct stats_col *cols;
	unsigned n;
};

/* One row: count and nan of each column in turn, headed "count<SEP>nan",
 * or "count_0<SEP>nan_0<SEP>count_1..." for several columns. */
static bool row(void *ctx, uint64_t r, struct wval *cells)
{
	const struct stats_col *cols = ((struct counts *)ctx)->cols;

	for (unsigned k = 0; k < ((struct counts *)ctx)->n; k++) {
		cells[2 * k] = wv_u64(cols[k].count);
		cells[2 * k + 1] = wv_u64(cols[k].nan);
	}
	return true;
}

/* The row; json's "count" and "nan" lists; binary, npy: u64, shape (2,)
 * for one column, (columns, 2) for several. */
static int count_done(struct cli *c, void *acc, struct sbuf *b,
		      struct gs_err *err)
{
	const struct stats_col *cols = acc;
	unsigned n = c->job.columns;
	struct counts x = { cols, n };
	const struct wfield fields[] = {
		{ .name = "count", .depth = 1, .m = n, .base = &cols[0].count,
		  .stride = sizeof(*cols) },
		{ .name = "nan", .depth = 1, .m = n, .base = &cols[0].nan,
		  .stride = sizeof(*cols) },
	};
	struct wresult r = {
		.ctx = &x, .rows = 1, .cells = 2 * n, .row = row,
		.descr = "<u8", .ndim = n == 1 ? 1 : 2, .dims = { n, 2 },
		.names = (const char *const[]){ "count", "nan" }, .nnames = 2,
		.fields = fields, .nfields = 2,
	};

	if (n == 1)
		r.dims[0] = 2;
	return writer_put(c, &r, b, err);
}

static int count_option(struct cli *c, int id, const char *arg,
			 struct gs_err *err)
{
	(void)id;		/* --by, its one option */
	return group_option(c, arg, err);
}

static int count_plan(struct cli *c, const struct pass **passes,
		       struct gs_err *err)
{
	return group_plan(c, GROUP_COUNT, passes, err);
}

static const struct pass count_passes[] = {
	{ .op = CMD_STATS, .done = count_done },
	{ .done = NULL },
};

const struct command count_command = {
	.name = "count",
	.summary = "elements and NaNs per column",
	.usage = "[OPTION]... [FILE]...",
	.about = "How many elements each column holds and how many of them are "
		 "NaN (0 for\ninteger types), on one line: count and nan for "
		 "each column in turn.",
	.examples = "gpustat count data.f32\n"
		    "gpustat count -t f64 -c 3 -f json points.f64\n"
		    "gpustat count samples.npy",
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = RESULT_FORMATS,
	.formats_help = RESULT_FORMATS_HELP,
	.opts = group_opts,
	.option = count_option,
	.check = group_check,
	.plan = count_plan,
	.passes = count_passes,
	.mixed = true,
};
