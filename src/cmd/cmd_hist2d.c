/*
 * cmd_hist2d.c - `gpustat hist2d`: numpy.histogram2d(x, y, bins, range) of
 * the first two columns of each record (-c 2 unless said otherwise; -F
 * picks them). Without --range a seekable input is read twice, min and
 * max of each column first (a pipe is kept in a temporary file for it,
 * spill.c); NaN or infinities there are an error, as in numpy. With it,
 * records outside the range or with a NaN are in no bin, and reported.
 * The counts print as a table of (x bin, y bin, count), json, an npy of
 * shape (NX, NY), or an image (hist2d_out.c). CPU kernels: cpu_hist2d.c.
 * --weights COL sums a column of weights per bin instead (x and y the
 * first two other columns, or -F's; the kernels cpu_hist2d_w.c, the result
 * hist2d_w_out.c, the column's parsing hist_weights.c's, as hist's).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "command.h"
#include "hist2d.h"
#include "hist2d_bin.h"
#include "hist_weights.h"
#include "out.h"
#include "spill.h"
#include "writer.h"

enum { OPT_BINS = 1, OPT_RANGE, OPT_NONZERO, OPT_NORM, OPT_DEPTH,
       OPT_XEDGES, OPT_YEDGES, OPT_WEIGHTS, OPT_DENSITY };

static const struct opt_spec hist2d_opts[] = {
	{ .name = "bins",
	  .has_arg = required_argument,
	  .arg = "NX[,NY]",
	  .help = "NX bins along x and NY along y (default 10; one\n"
		  "number: both)",
	  .id = OPT_BINS,
	  .brief = "the bins along x and y" },
	{ .name = "range",
	  .has_arg = required_argument,
	  .arg = "X0:X1[,Y0:Y1]",
	  .help = "the range of the bins (one: both axes; default:\n"
		  "each column's min and max, read in a first pass)",
	  .id = OPT_RANGE,
	  .brief = "the range of the bins, X0:X1,Y0:Y1" },
	{ .name = "nonzero",
	  .has_arg = no_argument,
	  .help = "leave out empty bins (text, tsv, csv)",
	  .id = OPT_NONZERO,
	  .brief = "leave out empty bins" },
	{ .name = "norm",
	  .has_arg = required_argument,
	  .arg = "HOW",
	  .help = "-f pgm, png: grey levels from the counts: linear,\n"
		  "log (of 1 + count) or eq (histogram equalisation,\n"
		  "by rank); default log",
	  .values = "linear log eq",
	  .id = OPT_NORM,
	  .brief = "how counts become grey levels" },
	{ .name = "depth",
	  .has_arg = required_argument,
	  .arg = "BITS",
	  .help = "-f pgm, png: 8 or 16 bits a grey level (default:\n"
		  "16 for pgm, 8 for png)",
	  .values = "8 16",
	  .id = OPT_DEPTH,
	  .brief = "bits a grey level of the image" },
	{ .name = "xedges",
	  .has_arg = required_argument,
	  .arg = "FILE",
	  .help = "also write the NX + 1 x edges to FILE, as .npy with\n"
		  "-f npy, else raw little-endian, in numpy's dtype\n"
		  "(f8; f2 or f4 for f16 or f32 data without --range)",
	  .values = "@file",
	  .id = OPT_XEDGES,
	  .brief = "also write the x edges to FILE" },
	{ .name = "yedges",
	  .has_arg = required_argument,
	  .arg = "FILE",
	  .help = "the same for the NY + 1 y edges",
	  .values = "@file",
	  .id = OPT_YEDGES,
	  .brief = "also write the y edges to FILE" },
	HISTW_OPTS(OPT_WEIGHTS,
		   "sum column COL of each record (a number from 1, or\n"
		   "a --header name) per bin instead of counting: exact\n"
		   "sums rounded once, f64 for float weights, an integer\n"
		   "for integer ones; x and y are the first two other\n"
		   "columns (-c 3 by default), or -F X,Y",
		   OPT_DENSITY,
		   "numpy's density=True: each bin's count (or sum)\n"
		   "over its area (x width times y width) over the total"),
	{ .name = NULL },
};


/* "N" or "NX,NY" into nx and ny; 0 or -1. */
static int parse_pair(const char *arg, uint64_t *nx, uint64_t *ny)
{
	const char *comma = strchr(arg, ',');
	char buf[32];

	if (!comma) {
		if (parse_u64(arg, nx) < 0)
			return -1;
		*ny = *nx;
		return 0;
	}
	if ((size_t)(comma - arg) >= sizeof(buf))
		return -1;
	memcpy(buf, arg, (size_t)(comma - arg));
	buf[comma - arg] = '\0';
	return parse_u64(buf, nx) < 0 || parse_u64(comma + 1, ny) < 0 ? -1 : 0;
}

static int parse_bins(const char *arg, struct gs_job *job, struct gs_err *err)
{
	uint64_t nx, ny;

	if (parse_pair(arg, &nx, &ny) < 0)
		return gs_fail(err, GS_EUSAGE, "", "--bins: expected NX or "
			       "NX,NY, not '%s'", arg);
	if (nx < 1 || ny < 1 || nx > HIST2D_MAX_BINS / ny)
		return gs_fail(err, GS_EUSAGE, "", "--bins: NX and NY from 1, "
			       "NX * NY at most %u, not '%s'", HIST2D_MAX_BINS, arg);
	job->bins = nx;
	job->ybins = ny;
	return 0;
}

static int parse_ranges(const char *arg, struct gs_job *job,
			struct gs_err *err)
{
	const char *comma = strchr(arg, ',');
	char buf[128];
	int rc;

	if (!comma) {
		rc = parse_range(arg, &job->lo, &job->hi);
		job->ylo = job->lo;
		job->yhi = job->hi;
	} else if ((size_t)(comma - arg) >= sizeof(buf)) {
		rc = -1;
	} else {
		memcpy(buf, arg, (size_t)(comma - arg));
		buf[comma - arg] = '\0';
		rc = parse_range(buf, &job->lo, &job->hi) < 0 ||
		     parse_range(comma + 1, &job->ylo, &job->yhi) < 0 ? -1 : 0;
	}
	if (rc < 0)
		return gs_fail(err, GS_EUSAGE, "", "--range: expected X0:X1 or "
			       "X0:X1,Y0:Y1 with finite numbers, not '%s'", arg);
	if (job->lo > job->hi || job->ylo > job->yhi)
		return gs_fail(err, GS_EUSAGE, "", "--range: the low end must "
			       "not exceed the high one in '%s'", arg);
	return 0;
}

static const char *const norm_names[] = { "log", "linear", "eq" };

static int hist2d_option(struct cli *c, int id, const char *arg,
			 struct gs_err *err)
{
	struct hist2d_state *h = c->state;

	switch (id) {
	case OPT_BINS:
		return parse_bins(arg, &c->job, err);
	case OPT_RANGE:
		h->range_set = true;
		return parse_ranges(arg, &c->job, err);
	case OPT_NONZERO:
		h->nonzero = true;
		return 0;
	case OPT_NORM:
		for (int i = 0; i < 3; i++)
			if (strcmp(arg, norm_names[i]) == 0) {
				h->norm = (enum hist2d_norm)i;
				h->norm_set = true;
				return 0;
			}
		return gs_fail(err, GS_EUSAGE, "", "--norm: expected linear, log "
			       "or eq, not '%s'", arg);
	case OPT_DEPTH:
		if (strcmp(arg, "8") && strcmp(arg, "16"))
			return gs_fail(err, GS_EUSAGE, "", "--depth: expected 8 "
				       "or 16, not '%s'", arg);
		h->depth = strcmp(arg, "8") ? 16 : 8;
		return 0;
	case OPT_XEDGES:
		h->edges_path[0] = arg;
		return 0;
	case OPT_YEDGES:
		h->edges_path[1] = arg;
		return 0;
	case OPT_WEIGHTS:
		h->weights = arg;
		return 0;
	case OPT_DENSITY:
		h->density = true;
		return 0;
	}
	return -1;
}

static void hist2d_init(struct cli *c)
{
	struct hist2d_state *h = c->state;

	c->job.columns = 2;
	c->job.bins = c->job.ybins = 10;	/* numpy's default */
	h->norm = NORM_LOG;
}

/* ---- the range pass ------------------------------------------------------ */

static double scalar_double(enum gs_type t, union gs_scalar a)
{
	if (type_is_float(t))
		return a.f;
	return type_is_signed(t) ? (double)a.i : (double)a.u;
}

/* Pass 1 without --range: each column's min and max, from an input that
 * can be read again (a pipe is copied to a temporary file first). Where
 * auto's plan gives the counts a GPU, its context starts now, while this
 * pass reads (cli_prestart). */
static int range_start(struct cli *c, struct gs_err *err)
{
	if (!input_rewindable(c->in) && spill_input(c, err) < 0)
		return -1;
	cli_prestart(c, c->job.weighted ? CMD_HIST2DW : CMD_HIST2D);
	return 0;
}

/* numpy's default range of each axis: a.min() and a.max(), refused where
 * not finite (a NaN makes them NaN); for no records (0, 1) as python
 * numbers, so float64 edges. */
static int range_done(struct cli *c, void *acc, struct sbuf *b,
		      struct gs_err *err)
{
	struct hist2d_state *h = c->state;
	const struct stats_col *s = acc;
	struct gs_job *job = &c->job;
	enum gs_type t = job->dtype.type;
	double *lo[2] = { &job->lo, &job->ylo }, *hi[2] = { &job->hi, &job->yhi };
	unsigned col[2] = { 0, 1 };

	(void)b;
	if (job->weighted)
		hist2dw_xy(job, &col[0], &col[1]);
	job->data_range = s[0].count > 0;
	for (int k = 0; k < 2; k++) {
		const struct stats_col *sk = &s[col[k]];

		if (sk->nan)
			return gs_fail(err, GS_ERUNTIME, "hist2d", "%c holds %llu "
				       "NaN%s, so its range is not finite; give "
				       "--range", "xy"[k],
				       (unsigned long long)sk->nan,
				       sk->nan == 1 ? "" : "s");
		*lo[k] = job->data_range ? scalar_double(t, sk->min) : 0;
		*hi[k] = job->data_range ? scalar_double(t, sk->max) : 1;
		if (!isfinite(*lo[k]) || !isfinite(*hi[k]))
			return gs_fail(err, GS_ERUNTIME, "hist2d", "the range of "
				       "%c, [%g, %g], is not finite; give --range",
				       "xy"[k], *lo[k], *hi[k]);
	}
	h->two_pass = true;
	h->pass1_records = c->records;
	c->mute_operands = true;	/* pass 1 reported them */
	return input_rewind(c->in, err);
}

/* numpy widens a given range of equal ends by 0.5 each way (a data range
 * is widened in its type, by hist_edges). */
static void widen(double *lo, double *hi)
{
	if (*lo == *hi) {
		*lo -= 0.5;
		*hi += 0.5;
	}
}

/* ---- the count pass ------------------------------------------------------ */

/* Both axes' edges into h->edges; numpy's searchsorted needs them sorted:
 * edges that fall or are NaN (f16 arithmetic over a range whose width
 * overflows f16: numpy then fails) are refused. Repeated ones are numpy's
 * too, and give empty bins. */
static int make_edges(struct cli *c, struct gs_err *err)
{
	struct hist2d_state *h = c->state;
	uint64_t n[2] = { c->job.bins, c->job.ybins };

	for (int k = 0; k < 2; k++) {
		free(h->edges[k]);
		h->n[k] = n[k];
		h->edges[k] = malloc((n[k] + 1) * sizeof(double));
		if (!h->edges[k])
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		hist2d_edges(&c->job, k, h->edges[k]);
		for (uint64_t i = 0; i < n[k]; i++)
			if (!(h->edges[k][i] <= h->edges[k][i + 1]))
				return gs_fail(err, c->job.data_range ?
					       GS_ERUNTIME : GS_EUSAGE, "hist2d",
					       "numpy's edges of %c do not increase "
					       "after edge %llu (linspace in %s "
					       "overflows or rounds them back); "
					       "give --range or fewer bins",
					       "xy"[k], (unsigned long long)i,
					       c->job.data_range ?
					       type_name(c->job.dtype.type) : "f64");
	}
	return 0;
}

/* A file that changed between the passes would be counted against a range
 * it does not have: pass 2 must see as many records, all in the range. */
static int check_pass2(const struct cli *c, const struct hist2d_acc *acc,
		       struct gs_err *err)
{
	const struct hist2d_state *h = c->state;

	if (c->records != h->pass1_records || acc->nan || acc->outside)
		return gs_fail(err, GS_ERUNTIME, "hist2d", "the input changed "
			       "between the two passes of a histogram without "
			       "--range");
	return 0;
}

static int hist2d_done(struct cli *c, void *acc, struct sbuf *b,
		       struct gs_err *err)
{
	struct hist2d_state *h = c->state;
	struct hist2d_acc *a = acc;

	if (h->two_pass && check_pass2(c, a, err) < 0)
		return -1;
	if (!h->edges[0] && make_edges(c, err) < 0)	/* merge's: no pass */
		return -1;
	h->nan = a->nan;
	h->outside = a->outside;
	if (c->job.weighted || h->density)
		return hist2dw_put(c, b, a, err);
	return hist2d_put(c, b, a, err);
}

/* ---- finishing ----------------------------------------------------------- */

static void note_outside(const struct cli *c)
{
	const struct hist2d_state *h = c->state;

	if (h->outside || h->nan)
		cli_note(c, "note: records in no bin: %llu outside the range, "
			 "%llu with a nan", (unsigned long long)h->outside,
			 (unsigned long long)h->nan);
}

/* The edges files first, then the result; they are renamed into place
 * only once the result is out. */
static int hist2d_finish(struct cli *c, const struct sbuf *b)
{
	struct hist2d_state *h = c->state;
	struct out eo[2];
	bool open[2] = { false, false };
	struct gs_err err;
	int rc = 0;

	for (int k = 0; k < 2 && rc == 0; k++)
		if (h->edges_path[k] && !c->operand_failed) {
			rc = hist2d_edges_open(c, k, &eo[k]);
			open[k] = rc == 0;
		}
	if (rc == 0)
		rc = cli_finish(c, b);
	for (int k = 0; k < 2; k++) {
		if (!open[k])
			continue;
		if (rc != 0)
			out_abort(&eo[k]);	/* no result: FILE stays as it was */
		else if (out_close(&eo[k], &err) < 0)
			rc = cli_report(c, &err);
	}
	if (rc == 0 && c->format != FMT_JSON)
		note_outside(c);
	for (int k = 0; k < 2; k++)
		free(h->edges[k]);
	return rc;
}

/* ---- checks and the plan ------------------------------------------------- */

static bool image_format(enum gs_format f)
{
	return f == FMT_PGM || f == FMT_PNG;
}

/* Usage errors, before anything is opened. */
static int hist2d_check(struct cli *c, struct gs_err *err)
{
	const struct hist2d_state *h = c->state;

	if (c->format == FMT_STATE && (h->edges_path[0] || h->edges_path[1]))
		return gs_fail(err, GS_EUSAGE, "hist2d", "--%cedges does not go "
			       "with -f state: give it to the run that prints "
			       "the result", h->edges_path[0] ? 'x' : 'y');
	if (h->nonzero && c->format != FMT_TEXT && c->format != FMT_TSV &&
	    c->format != FMT_CSV)
		return gs_fail(err, GS_EUSAGE, "hist2d", "--nonzero leaves rows "
			       "out of a table (text, tsv, csv), not -f %s",
			       format_name(c->format));
	if ((h->norm_set || h->depth) && !image_format(c->format))
		return gs_fail(err, GS_EUSAGE, "hist2d", "--%s goes with -f pgm "
			       "or png", h->norm_set ? "norm" : "depth");
	if (image_format(c->format) && (h->weights || h->density))
		return gs_fail(err, GS_EUSAGE, "hist2d", "-f %s draws the counts; "
			       "%s does not go with it (-f npy writes the "
			       "array)", format_name(c->format),
			       h->weights ? "--weights" : "--density");
	if (image_format(c->format) && c->per_file)
		return gs_fail(err, GS_EUSAGE, "hist2d", "-f %s writes one "
			       "image, not --per-file's", format_name(c->format));
	if (c->per_file && c->noperands > 1 && !h->range_set &&
	    (h->edges_path[0] || h->edges_path[1]))
		return gs_fail(err, GS_EUSAGE, "hist2d", "--xedges and --yedges "
			       "write one set of edges; --per-file without "
			       "--range bins each operand over its own range");
	for (int k = 0; k < 2; k++)
		if (hist2d_edges_check(c, h->edges_path[k], err) < 0)
			return -1;
	if (h->weights && !c->columns_given && !c->fields)
		c->job.columns = 3;	/* x, y and the weight */
	return histw_check(c, h->weights, h->density, err);
}

static const struct pass count_pass[] = {
	{ .op = CMD_HIST2D, .start = make_edges, .done = hist2d_done },
	{ .done = NULL },
};

static const struct pass range_then_count[] = {
	{ .op = CMD_MINMAX, .start = range_start, .done = range_done },
	{ .op = CMD_HIST2D, .start = make_edges, .done = hist2d_done },
	{ .done = NULL },
};

/* --weights: the same passes, the counts made weight sums */
static const struct pass weighted_pass[] = {
	{ .op = CMD_HIST2DW, .start = make_edges, .done = hist2d_done },
	{ .done = NULL },
};

static const struct pass range_then_weighted[] = {
	{ .op = CMD_MINMAX, .start = range_start, .done = range_done },
	{ .op = CMD_HIST2DW, .start = make_edges, .done = hist2d_done },
	{ .done = NULL },
};

/* Once the columns are known: x and y are the first two (or -F's two). */
static int hist2d_plan(struct cli *c, const struct pass **passes,
		       struct gs_err *err)
{
	const struct hist2d_state *h = c->state;
	unsigned w = h->weights != NULL;

	if (c->fields && c->job.columns != 2 + w)
		return gs_fail(err, GS_EUSAGE, "hist2d", "-F gives %u column%s; "
			       "hist2d takes two, x and y", c->job.columns - w,
			       c->job.columns - w == 1 ? "" : "s");
	if (w && c->job.columns < 3)
		return gs_fail(err, GS_EUSAGE, "hist2d", "--weights needs records "
			       "of x, y and a weight, not of %u column%s (-c 3)",
			       c->job.columns, c->job.columns == 1 ? "" : "s");
	if (histw_plan(c, h->weights, err) < 0)
		return -1;
	if (c->job.columns < 2)
		return gs_fail(err, GS_EUSAGE, "hist2d", "records of %u column "
			       "have no y: hist2d reads x and y from the first "
			       "two columns (-c 2, the default)", c->job.columns);
	/* each shard would bin over its own min and max: numpy's range of
	 * the shards together is neither, so their counts would not add */
	if (c->format == FMT_STATE && !h->range_set)
		return gs_fail(err, GS_EUSAGE, "hist2d", "-f state needs --range "
			       "X0:X1[,Y0:Y1] (without it each shard's bins "
			       "would span its own min and max)");
	if (h->range_set) {
		widen(&c->job.lo, &c->job.hi);
		widen(&c->job.ylo, &c->job.yhi);
	}
	if (c->job.weighted)
		*passes = h->range_set ? weighted_pass : range_then_weighted;
	else
		*passes = h->range_set ? count_pass : range_then_count;
	return 0;
}

const struct command hist2d_command = {
	.name = "hist2d",
	.summary = "counts over two columns, as numpy.histogram2d",
	.usage = "[OPTION]... [FILE]...",
	.about = "numpy.histogram2d(x, y, bins, range) of records (x, y): "
		 "the first two\ncolumns (-c 2 by default; -F X,Y picks them). "
		 "Bin edges and counts are\nnumpy's exactly. text, tsv, csv: a "
		 "row per bin, x bin, y bin (from 0)\nand count; json: bins, "
		 "range, xedges, yedges, counts[x][y]; binary,\nnpy: the u64 "
		 "counts of shape (NX, NY); pgm, png: an image of NX x NY\n"
		 "pixels, y upward, zero counts black. Records outside the "
		 "range or\nwith a NaN are in no bin, and reported. --weights "
		 "COL sums a column of\nweights into the bins, exactly "
		 "(-c 3 by default); --density gives\nnumpy's density=True.",
	.examples = "gpustat hist2d -t f32 --bins 256 --range -4:4 pts.f32 "
		    "-f png > d.png\n"
		    "gpustat hist2d -t f32 --bins 1024 --range 0:1 pts.f32 "
		    "-f png --depth 16 > d16.png\n"
		    "gpustat hist2d -t f64 -c 3 -F 1,3 --bins 100,50 data.f64\n"
		    "gpustat hist2d --text --nonzero -f csv points.txt\n"
		    "gpustat hist2d -t f32 --weights 3 --bins 64 --range 0:1 "
		    "xyw.f32",
	.opts = hist2d_opts,
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = "text tsv csv json binary npy state pgm png",
	.formats_help = "text (default), tsv, csv, json, binary, npy,\n"
			"state (for merge; needs --range), pgm (16-bit),\n"
			"png (8-bit grey; --depth 16 for 16 bits)",
	.state_size = sizeof(struct hist2d_state),
	.init = hist2d_init,
	.option = hist2d_option,
	.check = hist2d_check,
	.plan = hist2d_plan,
	.passes = count_pass,
	.finish = hist2d_finish,
	.other_state = true,	/* --weights: hist2d_done prints either */
	.other_state_op = CMD_HIST2DW,
};
