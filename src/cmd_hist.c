/*
 * cmd_hist.c - `gpustat hist`: one bin per value for 8- and 16-bit integers,
 * or --bins N over --range LO:HI with numpy.histogram's rules. Without
 * --range a ranged histogram reads a seekable input twice: min and max first
 * (numpy's default range), then the counts. CPU kernels: cpu_hist.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "plot.h"
#include "report.h"

static const char hist_help[] =
"Usage: gpustat hist [OPTION]... [FILE]...\n"
"Histogram of the stream (one per column with -c). 8- and 16-bit integer\n"
"types get one bin per value; otherwise, or with --bins, N equal bins over\n"
"--range LO:HI count exactly like numpy.histogram (last bin closed).\n"
"Values outside the range and NaNs are counted and reported.\n\n"
"      --bins N          N equal bins (default 10 for ranged histograms)\n"
"      --range LO:HI     the range of the bins (default: min and max of the\n"
"                        data, which needs a seekable input)\n"
"      --nonzero         leave out empty bins\n"
"      --plot            draw the histogram as bars on the terminal\n"
"      --log             with --plot: bar lengths on a log scale\n"
"%s\n"
"Examples:\n"
"  cat data.bin | gpustat hist\n"
"  gpustat hist -t f32 --bins 20 --range 0:1 samples.f32\n"
"  gpustat hist photo.ppm -f csv\n"
"  convert photo.jpg pgm:- | gpustat hist --plot\n";

enum { OPT_BINS = 256, OPT_RANGE, OPT_NONZERO, OPT_PLOT, OPT_LOG };

static const struct option hist_longopts[] = {
	{ "bins", required_argument, NULL, OPT_BINS },
	{ "range", required_argument, NULL, OPT_RANGE },
	{ "nonzero", no_argument, NULL, OPT_NONZERO },
	{ "plot", no_argument, NULL, OPT_PLOT },
	{ "log", no_argument, NULL, OPT_LOG },
	{ NULL, 0, NULL, 0 },
};

#define MAX_BINS (1u << 24)	/* 16.7M bins x 8 bytes per column and thread */

struct hist_opts {
	struct cli *c;
	bool bins_set, range_set, nonzero, plot, log;
};

static int parse_range(const char *arg, double *lo, double *hi)
{
	char buf[128];
	const char *colon = strchr(arg + (arg[0] == '-'), ':');

	if (!colon || (size_t)(colon - arg) >= sizeof(buf))
		return -1;
	memcpy(buf, arg, (size_t)(colon - arg));
	buf[colon - arg] = '\0';
	return parse_double(buf, lo) < 0 || parse_double(colon + 1, hi) < 0 ? -1 : 0;
}

static int hist_option(void *ctx, int opt, const char *arg, struct gs_err *err)
{
	struct hist_opts *h = ctx;
	struct gs_job *job = &h->c->job;
	uint64_t n;

	switch (opt) {
	case OPT_BINS:
		if (parse_u64(arg, &n) < 0 || n < 1 || n > MAX_BINS)
			return gs_fail(err, GS_EUSAGE, "", "--bins: expected 1 to %u, "
				       "not '%s'", MAX_BINS, arg);
		job->bins = n;
		h->bins_set = true;
		return 0;
	case OPT_RANGE:
		if (parse_range(arg, &job->lo, &job->hi) < 0)
			return gs_fail(err, GS_EUSAGE, "", "--range: expected LO:HI "
				       "with finite numbers, not '%s'", arg);
		if (job->lo > job->hi)
			return gs_fail(err, GS_EUSAGE, "", "--range: LO must not "
				       "exceed HI in '%s'", arg);
		h->range_set = true;
		return 0;
	case OPT_NONZERO:
		h->nonzero = true;
		return 0;
	case OPT_PLOT:
		h->plot = true;
		return 0;
	case OPT_LOG:
		h->log = true;
		return 0;
	}
	return -1;
}

static bool per_value_type(enum gs_type t)
{
	return !type_is_float(t) && type_size(t) <= 2;
}

/* numpy: equal ends are widened by 0.5 each way. */
static void widen(struct gs_job *job)
{
	if (job->lo == job->hi) {
		job->lo -= 0.5;
		job->hi += 0.5;
	}
}

/* Pass 1 of a ranged hist without --range: min and max of all columns. */
static int find_range(struct cli *c, struct input *in, int64_t bytes,
		      struct gs_err *err)
{
	struct gs_job saved = c->job;
	struct engine_stats st;
	bool any = false;

	if (!input_rewindable(in))
		return gs_fail(err, GS_EUSAGE, "hist", "a ranged histogram of a "
			       "pipe needs --range LO:HI");
	c->job.cmd = CMD_MINMAX;
	struct stats_col *acc = malloc(stats_kernels.acc_size(&c->job));

	if (!acc)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	stats_kernels.acc_init(&c->job, acc);
	if (cli_run(c, in, NULL, bytes, NULL, acc, &st, err) < 0)
		return -1;
	saved.lo = 0;
	saved.hi = 1;		/* numpy's range of an empty array */
	for (unsigned k = 0; k < c->job.columns; k++) {
		const struct stats_col *s = &acc[k];
		enum gs_type t = c->job.dtype.type;
		double mn, mx;

		if (s->count == s->nan)
			continue;
		mn = type_is_float(t) ? s->min.f : type_is_signed(t) ? (double)s->min.i : (double)s->min.u;
		mx = type_is_float(t) ? s->max.f : type_is_signed(t) ? (double)s->max.i : (double)s->max.u;
		saved.lo = any && saved.lo < mn ? saved.lo : mn;
		saved.hi = any && saved.hi > mx ? saved.hi : mx;
		any = true;
	}
	free(acc);
	c->job = saved;
	if (!isfinite(c->job.lo) || !isfinite(c->job.hi))
		return gs_fail(err, GS_ERUNTIME, "hist", "the data's range [%g, %g] "
			       "is not finite; give --range LO:HI", c->job.lo,
			       c->job.hi);
	widen(&c->job);
	c->mute_operands = true;	/* pass 1 reported them */
	return input_rewind(in, err);
}

/* numpy refuses bins whose rounded edges do not increase strictly ("Too many
 * bins for data range"), e.g. 1000 f16 bins over 0:1. */
static int check_edges(const struct gs_job *job, struct gs_err *err)
{
	double *edges = malloc((job->bins + 1) * sizeof(*edges));
	int rc = 0;

	if (!edges)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	hist_edges(job, edges);
	for (uint64_t i = 0; i < job->bins && rc == 0; i++)
		if (!(edges[i] < edges[i + 1]))
			rc = gs_fail(err, GS_EUSAGE, "hist", "too many bins for the "
				     "range in %s: edges %llu and %llu are equal",
				     type_name(job->dtype.type), (unsigned long long)i, (unsigned long long)i + 1);
	free(edges);
	return rc;
}

/* ---- printing ------------------------------------------------------------ */

static bool row_empty(struct hist_acc *h, uint64_t bin)
{
	for (uint64_t k = 0; k < h->columns; k++)
		if (hist_counts(h, k)[bin])
			return false;
	return true;
}

static void emit_table(const struct hist_opts *ho, struct sbuf *b,
		       struct hist_acc *h, const double *edges)
{
	const struct cli *c = ho->c;
	char sep = report_sep(c->format);

	if (report_has_header(c->format)) {
		if (c->job.ranged)
			sb_addf(b, "lo%chi%c", sep, sep);
		else
			sb_addf(b, "value%c", sep);
		report_value_names(b, c->format, "count", c->job.columns);
		sb_add(b, "\n");
	}
	for (uint64_t i = 0; i < h->nbins; i++) {
		if (ho->nonzero && row_empty(h, i))
			continue;
		if (c->job.ranged) {
			sb_double(b, edges[i]);
			sb_addn(b, &sep, 1);
			sb_double(b, edges[i + 1]);
		} else {
			sb_addf(b, "%lld", (long long)hist_bin_value(&c->job, i));
		}
		for (uint64_t k = 0; k < h->columns; k++) {
			sb_addn(b, &sep, 1);
			sb_u64(b, hist_counts(h, k)[i]);
		}
		sb_add(b, "\n");
	}
}

static void json_u64_array(struct sbuf *b, const uint64_t *v, uint64_t n)
{
	sb_add(b, "[");
	for (uint64_t i = 0; i < n; i++) {
		if (i)
			sb_add(b, ",");
		sb_u64(b, v[i]);
	}
	sb_add(b, "]");
}

static void emit_json(const struct hist_opts *ho, struct sbuf *b,
		      struct hist_acc *h, const double *edges)
{
	const struct cli *c = ho->c;
	const struct gs_job *job = &c->job;

	sb_addf(b, "{\"command\":\"hist\",\"type\":\"%s\",\"columns\":%u,",
		type_name(job->dtype.type), job->columns);
	if (job->ranged) {
		sb_addf(b, "\"bins\":%llu,\"range\":[", (unsigned long long)h->nbins);
		sb_json_double(b, job->lo);
		sb_add(b, ",");
		sb_json_double(b, job->hi);
		sb_add(b, "],\"edges\":[");
		for (uint64_t i = 0; i <= h->nbins; i++) {
			if (i)
				sb_add(b, ",");
			sb_json_double(b, edges[i]);
		}
		sb_add(b, "],\"counts\":[");
		for (uint64_t k = 0; k < h->columns; k++) {
			if (k)
				sb_add(b, ",");
			json_u64_array(b, hist_counts(h, k), h->nbins);
		}
		sb_add(b, "],\"below\":");
		json_u64_array(b, hist_below(h), h->columns);
		sb_add(b, ",\"above\":");
		json_u64_array(b, hist_above(h), h->columns);
		sb_add(b, ",\"nan\":");
		json_u64_array(b, hist_nan(h), h->columns);
		sb_add(b, "}\n");
		return;
	}
	sb_add(b, "\"values\":[");
	bool first = true;

	for (uint64_t i = 0; i < h->nbins; i++) {
		if (ho->nonzero && row_empty(h, i))
			continue;
		sb_addf(b, "%s%lld", first ? "" : ",", (long long)hist_bin_value(job, i));
		first = false;
	}
	sb_add(b, "],\"counts\":[");
	for (uint64_t k = 0; k < h->columns; k++) {
		sb_add(b, k ? ",[" : "[");
		first = true;
		for (uint64_t i = 0; i < h->nbins; i++) {
			if (ho->nonzero && row_empty(h, i))
				continue;
			sb_addf(b, "%s%llu", first ? "" : ",",
				(unsigned long long)hist_counts(h, k)[i]);
			first = false;
		}
		sb_add(b, "]");
	}
	sb_add(b, "]}\n");
}

static void emit_binary(const struct hist_opts *ho, struct sbuf *b,
			struct hist_acc *h)
{
	if (ho->c->format == FMT_NPY) {
		uint64_t dims[2] = { h->nbins, h->columns };

		npy_header(b, "<u8", dims, h->columns == 1 ? 1 : 2, 0);
	}
	for (uint64_t i = 0; i < h->nbins; i++)
		for (uint64_t k = 0; k < h->columns; k++)
			sb_addn(b, &hist_counts(h, k)[i], 8);
}

static void note_outside(const struct cli *c, struct hist_acc *h)
{
	uint64_t below = 0, above = 0, nan = 0;

	for (uint64_t k = 0; k < h->columns; k++) {
		below += hist_below(h)[k];
		above += hist_above(h)[k];
		nan += hist_nan(h)[k];
	}
	if (below || above || nan)
		cli_note(c, "note: not in any bin: %llu below, %llu above, %llu nan",
			 (unsigned long long)below, (unsigned long long)above,
			 (unsigned long long)nan);
}

static int emit(struct hist_opts *ho, struct hist_acc *h)
{
	struct cli *c = ho->c;
	double *edges = NULL;
	struct sbuf b;

	if (c->job.ranged) {
		edges = malloc((h->nbins + 1) * sizeof(*edges));
		if (!edges) {
			fputs("gpustat: out of memory\n", stderr);
			return GS_ERUNTIME;
		}
		hist_edges(&c->job, edges);
	}
	sb_init(&b);
	if (ho->plot) {
		struct plot_opts po;

		plot_opts_detect(&po, c->output ? -1 : 1, ho->log);
		plot_hist(&b, &c->job, h, edges, &po);
	} else if (c->format == FMT_JSON)
		emit_json(ho, &b, h, edges);
	else if (c->format == FMT_BINARY || c->format == FMT_NPY)
		emit_binary(ho, &b, h);
	else
		emit_table(ho, &b, h, edges);
	if (c->job.ranged && (c->format != FMT_JSON || ho->plot))
		note_outside(c, h);
	free(edges);
	int rc = cli_finish_text(c, b.p, b.len);

	sb_free(&b);
	return rc;
}

static int run(struct hist_opts *ho)
{
	struct cli *c = ho->c;
	struct input *in;
	struct input_info info;
	struct engine_stats st;
	struct gs_err err;

	c->job.cmd = CMD_HIST;
	if (cli_open_input(c, c->operands, c->noperands, &in, &info, &err) < 0)
		return cli_report(c, &err);
	c->job.ranged = ho->bins_set || ho->range_set ||
			!per_value_type(c->job.dtype.type);
	if (c->job.ranged && !ho->bins_set)
		c->job.bins = 10;	/* numpy's default */
	if (c->job.ranged && ho->range_set)
		widen(&c->job);
	if (c->job.ranged && !ho->range_set &&
	    find_range(c, in, info.total_bytes, &err) < 0)
		return cli_report(c, &err);

	if (c->job.ranged && check_edges(&c->job, &err) < 0)
		return cli_report(c, &err);

	struct hist_acc *h = malloc(hist_kernels.acc_size(&c->job));

	if (!h) {
		gs_fail(&err, GS_ERUNTIME, "", "out of memory");
		return cli_report(c, &err);
	}
	hist_kernels.acc_init(&c->job, h);
	if (cli_run(c, in, NULL, info.total_bytes, NULL, h, &st, &err) < 0)
		return cli_report(c, &err);
	input_close(in);
	int rc = emit(ho, h);

	free(h);
	return rc;
}

int cmd_hist(int argc, char **argv)
{
	struct cli c = { .default_type = GS_U8 };
	struct hist_opts ho = { .c = &c };
	static char help[4096];
	struct cmd_opts co = { hist_longopts, "", hist_option, &ho, help };
	struct gs_err err;

	snprintf(help, sizeof(help), hist_help, common_help);
	int rc = cli_parse(&c, argc, argv, &co, &err);

	if (rc)
		return rc > 0 ? 0 : cli_report(&c, &err);
	if (ho.log && !ho.plot) {
		gs_fail(&err, GS_EUSAGE, "hist", "--log goes with --plot");
		return cli_report(&c, &err);
	}
	if (ho.plot && c.format_set) {
		gs_fail(&err, GS_EUSAGE, "hist", "--plot draws text; it takes no --format");
		return cli_report(&c, &err);
	}
	return run(&ho);
}
