/*
 * cmd_count.c - `gpustat count`: how many elements each column has, and how
 * many of them are NaN (always 0 for integer types). It runs the stats
 * operation (cpu_stats.c, stats_kernels.cu) and prints only its counts, so
 * `count` and `stats` agree by construction. One line: count and nan for
 * each column in turn.
 */
#include "command.h"
#include "report.h"

/* "count<SEP>nan" for one column, "count_0<SEP>nan_0<SEP>count_1..." for
 * several, as report_value_names names one value per column. */
static void header(const struct cli *c, struct sbuf *b)
{
	char sep = report_sep(c->format);
	unsigned n = c->job.columns;

	for (unsigned k = 0; k < n; k++) {
		if (k)
			sb_addn(b, &sep, 1);
		if (n == 1)
			sb_addf(b, "count%cnan", sep);
		else
			sb_addf(b, "count_%u%cnan_%u", k, sep, k);
	}
	sb_add(b, "\n");
}

static void emit_json(const struct cli *c, struct sbuf *b,
		      const struct stats_col *cols)
{
	unsigned n = c->job.columns;

	sb_addf(b, "{\"command\":\"count\",\"type\":\"%s\",\"columns\":%u,"
		"\"count\":[", type_name(c->job.dtype.type), n);
	for (unsigned k = 0; k < n; k++) {
		sb_add(b, k ? "," : "");
		sb_u64(b, cols[k].count);
	}
	sb_add(b, "],\"nan\":[");
	for (unsigned k = 0; k < n; k++) {
		sb_add(b, k ? "," : "");
		sb_u64(b, cols[k].nan);
	}
	sb_add(b, "]}\n");
}

/* u64 little-endian, count then nan for each column: shape (2,) for one
 * column, (columns, 2) for several. */
static void emit_binary(const struct cli *c, struct sbuf *b,
			const struct stats_col *cols)
{
	unsigned n = c->job.columns;

	if (c->format == FMT_NPY) {
		uint64_t dims[2] = { n, 2 };

		if (n == 1)
			npy_header(b, "<u8", dims + 1, 1, 0);
		else
			npy_header(b, "<u8", dims, 2, 0);
	}
	for (unsigned k = 0; k < n; k++) {
		unsigned char v[16];

		for (int i = 0; i < 8; i++) {
			v[i] = (unsigned char)(cols[k].count >> (8 * i));
			v[8 + i] = (unsigned char)(cols[k].nan >> (8 * i));
		}
		sb_addn(b, v, sizeof(v));
	}
}

static int count_done(struct cli *c, void *acc, struct sbuf *b,
		      struct gs_err *err)
{
	const struct stats_col *cols = acc;
	char sep = report_sep(c->format);

	if (c->format == FMT_JSON) {
		emit_json(c, b, cols);
		return 0;
	}
	if (c->format == FMT_BINARY || c->format == FMT_NPY) {
		emit_binary(c, b, cols);
		return 0;
	}
	if (report_has_header(c->format))
		header(c, b);
	for (unsigned k = 0; k < c->job.columns; k++) {
		if (k)
			sb_addn(b, &sep, 1);
		sb_u64(b, cols[k].count);
		sb_addn(b, &sep, 1);
		sb_u64(b, cols[k].nan);
	}
	sb_add(b, "\n");
	return 0;
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
	.passes = count_passes,
};
