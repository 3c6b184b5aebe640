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
#include "command.h"
#include "edges.h"
#include "hist_weights.h"
#include "out.h"
#include "plot.h"
#include "report.h"
#include "writer.h"
#include "algorithm.h"

enum { OPT_BINS = 1, OPT_RANGE, OPT_NONZERO, OPT_EDGES, OPT_PLOT, OPT_LOG,
       OPT_WEIGHTS, OPT_DENSITY };

static const struct opt_spec hist_opts[] = {
	{ .name = "bins",
	  .has_arg = required_argument,
	  .arg = "N",
	  .help = "N equal bins (default 10 for ranged histograms)",
	  .id = OPT_BINS },
	{ .name = "range",
	  .has_arg = required_argument,
	  .arg = "LO:HI",
	  .help = "the range of the bins (default: min and max of the\n"
		  "data, which needs a seekable input)",
	  .id = OPT_RANGE,
	  .brief = "the range of the bins, LO:HI" },
	{ .name = "nonzero",
	  .has_arg = no_argument,
	  .help = "leave out empty bins (text, tsv, csv; json of\n"
		  "one-per-value bins)",
	  .id = OPT_NONZERO,
	  .brief = "leave out empty bins" },
	{ .name = "edges",
	  .has_arg = required_argument,
	  .arg = "FILE",
	  .help = "also write the bins' N + 1 edges to FILE, as .npy\n"
		  "with -f npy, else raw little-endian: numpy's edge\n"
		  "dtype (f2 for f16, f4 for f32 and bf16, f8 for the\n"
		  "rest); one-per-value bins get i8 edges v, v + 1",
	  .values = "@file",
	  .id = OPT_EDGES,
	  .brief = "also write the bin edges to FILE" },
	HISTW_OPTS(OPT_WEIGHTS,
		   "sum column COL (numbered as -F numbers them, or a\n"
		   "--header name) into the bins of the other columns'\n"
		   "values (with -F: of its columns), each sum exact:\n"
		   "f64 for float weights, an integer for integer ones",
		   OPT_DENSITY,
		   "numpy's density=True: each bin's count (or sum)\n"
		   "over its width and the total"),
	{ .name = "plot",
	  .has_arg = no_argument,
	  .help = "draw the histogram as bars on the terminal",
	  .id = OPT_PLOT },
	{ .name = "log",
	  .has_arg = no_argument,
	  .help = "with --plot: bar lengths on a log scale",
	  .id = OPT_LOG },
	ALGORITHM_OPT(HIST_ALGORITHMS,
		      "the kernel: default, cpu (the CPU loop), or on the\n"
		      "GPU global-atomic, shared-atomic (per-block counts),\n"
		      "sort (radix sort, then run lengths); same output"),
	{ .name = NULL },
};

#define MAX_BINS (1u << 24)	/* 16.7M bins x 8 bytes per column and thread */

/* The options and what the passes hand on (the driver's c->state). */
struct hist_state {
	bool bins_set, range_set, nonzero, plot, log, density;
	const char *edges_path;		/* --edges FILE */
	const char *weights;		/* --weights COL */
	/* pass 1 of a two-pass hist: what pass 2 must find again */
	bool two_pass;
	uint64_t pass1_records, pass1_nan;
	/* from the counts to finish(): the edges of ranged bins, and the
	 * values in no bin for the note */
	double *edges;
	uint64_t nbins, below, above, nan;
};

static int hist_option(struct cli *c, int id, const char *arg,
		       struct gs_err *err)
{
	struct hist_state *h = c->state;
	struct gs_job *job = &c->job;
	uint64_t n;

	switch (id) {
	case OPT_ALGORITHM:
		return cli_algorithm_option(c, arg, err);
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
	case OPT_EDGES:
		h->edges_path = arg;
		return 0;
	case OPT_PLOT:
		h->plot = true;
		return 0;
	case OPT_LOG:
		h->log = true;
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

static bool per_value_type(enum gs_type t)
{
	return !type_is_float(t) && type_size(t) <= 2;
}

/* numpy: equal ends of --range are widened by 0.5 each way (a data range
 * is widened in the bin type, by cpu_hist.c). */
static void widen(struct gs_job *job)
{
	if (job->lo == job->hi) {
		job->lo -= 0.5;
		job->hi += 0.5;
	}
}

static int cmp_scalar(enum gs_type t, union gs_scalar a, union gs_scalar b)
{
	if (type_is_float(t))
		return a.f < b.f ? -1 : a.f > b.f;
	if (type_is_signed(t))
		return a.i < b.i ? -1 : a.i > b.i;
	return a.u < b.u ? -1 : a.u > b.u;
}

static double scalar_double(enum gs_type t, union gs_scalar a)
{
	if (type_is_float(t))
		return a.f;
	return type_is_signed(t) ? (double)a.i : (double)a.u;
}

/* numpy's default range from pass 1: a.min() and a.max() over every column
 * (NaNs left out: they are counted apart). Integers keep max - min exact in
 * job->span, as numpy's unsigned subtraction does. No values: numpy's range
 * of an empty array, (0, 1), as python numbers (computed in double). */
static void set_data_range(struct gs_job *job, const struct stats_col *acc)
{
	enum gs_type t = job->dtype.type;
	union gs_scalar mn = { 0 }, mx = { 0 };
	bool any = false;

	for (unsigned k = 0; k < job->columns; k++) {
		const struct stats_col *s = &acc[k];

		if ((job->weighted && k == job->wcol) || s->count == s->nan)
			continue;
		if (!any || cmp_scalar(t, s->min, mn) < 0)
			mn = s->min;
		if (!any || cmp_scalar(t, s->max, mx) > 0)
			mx = s->max;
		any = true;
	}
	job->data_range = any;
	job->lo = any ? scalar_double(t, mn) : 0;
	job->hi = any ? scalar_double(t, mx) : 1;
	job->span = 0;
	if (any && !type_is_float(t))
		job->span = (double)(type_is_signed(t) ?
				     (uint64_t)mx.i - (uint64_t)mn.i : mx.u - mn.u);
}

/* Pass 1 of a ranged hist without --range: min and max of all columns,
 * which needs an input that can be read again. */
static int range_start(struct cli *c, struct gs_err *err)
{
	if (!input_rewindable(c->in))
		return gs_fail(err, GS_EUSAGE, "hist", "a ranged histogram of a "
			       "pipe needs --range LO:HI");
	return 0;
}

static int range_done(struct cli *c, void *acc, struct sbuf *b,
		      struct gs_err *err)
{
	struct hist_state *h = c->state;
	const struct stats_col *cols = acc;

	set_data_range(&c->job, cols);
	h->two_pass = true;
	h->pass1_records = c->records;
	h->pass1_nan = 0;
	for (unsigned k = 0; k < c->job.columns; k++)
		if (!c->job.weighted || k != c->job.wcol)
			h->pass1_nan += cols[k].nan;
	if (!isfinite(c->job.lo) || !isfinite(c->job.hi))
		return gs_fail(err, GS_ERUNTIME, "hist", "the data's range [%g, %g] "
			       "is not finite; give --range LO:HI", c->job.lo,
			       c->job.hi);
	/* numpy's min and max of data with a NaN are NaN, and it refuses the
	 * range ("autodetected range of [nan, nan] is not finite") */
	if (h->pass1_nan)
		return gs_fail(err, GS_ERUNTIME, "hist", "the data hold %llu NaN%s, "
			       "so their range is not finite; give --range LO:HI",
			       (unsigned long long)h->pass1_nan,
			       h->pass1_nan == 1 ? "" : "s");
	c->mute_operands = true;	/* pass 1 reported them */
	return input_rewind(c->in, err);
}

/* A file that changed between the passes (truncated, grown, rewritten) would
 * give counts of another stream than pass 1 measured: pass 2 must see as
 * many records and NaNs, and nothing outside the range pass 1 found. */
static int check_pass2(const struct cli *c, struct hist_acc *acc,
		       struct gs_err *err)
{
	const struct hist_state *h = c->state;
	uint64_t nan = 0, out = 0;

	for (uint64_t k = 0; k < acc->columns; k++) {
		nan += hist_nan(acc)[k];
		out += hist_below(acc)[k] + hist_above(acc)[k];
	}
	if (c->records != h->pass1_records)
		return gs_fail(err, GS_ERUNTIME, "hist", "the input changed between "
			       "the two passes of a histogram without --range "
			       "(%llu records, then %llu)",
			       (unsigned long long)h->pass1_records,
			       (unsigned long long)c->records);
	if (nan != h->pass1_nan || (c->job.data_range && out != 0))
		return gs_fail(err, GS_ERUNTIME, "hist", "the input changed between "
			       "the two passes of a histogram without --range "
			       "(its values differ)");
	return 0;
}

/* numpy refuses bins whose rounded edges do not increase strictly ("Too many
 * bins for data range"), e.g. 1000 f16 bins over 0:1. */
static int check_edges(struct cli *c, struct gs_err *err)
{
	const struct gs_job *job = &c->job;

	if (!job->ranged)
		return 0;
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

/* The values in no bin, for the note that goes with a ranged result. */
static void count_outside(struct hist_state *hs, struct hist_acc *h)
{
	hs->below = hs->above = hs->nan = 0;
	for (uint64_t k = 0; k < h->columns; k++) {
		hs->below += hist_below(h)[k];
		hs->above += hist_above(h)[k];
		hs->nan += hist_nan(h)[k];
	}
}

static void note_outside(const struct cli *c)
{
	const struct hist_state *hs = c->state;

	if (hs->below || hs->above || hs->nan)
		cli_note(c, "note: not in any bin: %llu below, %llu above, %llu nan",
			 (unsigned long long)hs->below, (unsigned long long)hs->above,
			 (unsigned long long)hs->nan);
}

/* ---- --edges FILE ----------------------------------------------------------- */

/* Write --edges FILE: np.histogram's bin type for ranged bins (each edge
 * exact in it: cpu_hist.c rounded it there); for one-per-value bins the
 * int64 edges of np.arange(min, max + 2), with which np.histogram counts
 * exactly these bins. Returns 0, or an exit status. */
static int edges_write(struct cli *c, struct out *o)
{
	const struct hist_state *hs = c->state;

	return edges_file_write(c, o, hs->edges_path, c->job.ranged ?
				edges_float_descr(&c->job) : "<i8", hs->edges,
				hist_bin_value(&c->job, 0), hs->nbins);
}

/* ---- the result --------------------------------------------------------- */

/* The counts, in the table, json, binary or chart that c asks for. */
static int hist_done(struct cli *c, void *acc, struct sbuf *b,
		     struct gs_err *err)
{
	struct hist_state *hs = c->state;
	struct hist_acc *h = acc;

	if (hs->two_pass && check_pass2(c, h, err) < 0)
		return -1;
	hs->nbins = h->nbins;
	count_outside(hs, h);
	if (c->job.ranged) {
		free(hs->edges);	/* --per-file's earlier result's */
		hs->edges = malloc((h->nbins + 1) * sizeof(*hs->edges));
		if (!hs->edges)
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		hist_edges(&c->job, hs->edges);
	}
	if (hs->plot) {
		struct plot_opts po;

		plot_opts_detect(&po, c->output ? -1 : 1, hs->log);
		plot_hist(b, &c->job, h, hs->edges, &po);
		return 0;
	}
	return hist_put(c, b, h, hs->edges, hs->nonzero, hs->density, err);
}

/* The edges file first, then the result; the edges file is renamed into
 * place only once the result is out, and the note goes with a result. */
static int hist_finish(struct cli *c, const struct sbuf *b)
{
	struct hist_state *hs = c->state;
	bool edges = hs->edges_path && !c->operand_failed;
	struct gs_err err;
	struct out eo;
	int rc;

	if (edges && (rc = edges_write(c, &eo)) != 0)
		return rc;
	free(hs->edges);
	hs->edges = NULL;
	rc = cli_finish(c, b);
	if (edges) {
		if (rc != 0)
			out_abort(&eo);		/* no result: FILE stays as it was */
		else if (out_close(&eo, &err) < 0)
			rc = cli_report(c, &err);
	}
	if (rc == 0 && c->job.ranged && (c->format != FMT_JSON || hs->plot))
		note_outside(c);
	return rc;
}

/* ---- checks and the plan ------------------------------------------------ */

/* --nonzero leaves rows out of a table; where the bins are positions in
 * an array (binary, npy, ranged json beside its edges) or rows of a chart,
 * it would be ignored, so it is refused. */
static int check_nonzero(const struct cli *c, struct gs_err *err)
{
	const struct hist_state *hs = c->state;

	if (!hs->nonzero)
		return 0;
	if (hs->plot)
		return gs_fail(err, GS_EUSAGE, "hist", "--nonzero does not go "
			       "with --plot (every bin is a bar)");
	if (c->format == FMT_BINARY || c->format == FMT_NPY)
		return gs_fail(err, GS_EUSAGE, "hist", "--nonzero does not go "
			       "with -f %s: the counts are an array of every bin",
			       c->format == FMT_NPY ? "npy" : "binary");
	return 0;
}

/* --edges FILE must not overwrite an input or the -o output. */
static int check_edges_path(const struct cli *c, struct gs_err *err)
{
	const char *p = ((const struct hist_state *)c->state)->edges_path;

	if (!p)
		return 0;
	if (strcmp(p, "-") == 0 ||
	    out_same_file(p, c->output && strcmp(c->output, "-") ? c->output : NULL))
		return gs_fail(err, GS_EUSAGE, "hist", "--edges needs a file of "
			       "its own, not the output");
	return out_check_inputs("--edges", p, c->operands, c->noperands, err);
}

/* Usage errors, before anything is opened. */
static int hist_check(struct cli *c, struct gs_err *err)
{
	const struct hist_state *hs = c->state;

	if (hs->log && !hs->plot)
		return gs_fail(err, GS_EUSAGE, "hist", "--log goes with --plot");
	if (hs->plot && (hs->weights || hs->density))
		return gs_fail(err, GS_EUSAGE, "hist", "--plot draws counts; it "
			       "does not go with %s", hs->weights ? "--weights" :
			       "--density");
	if (histw_check(c, hs->weights, hs->density, err) < 0)
		return -1;
	if (hs->plot && c->per_file)
		return gs_fail(err, GS_EUSAGE, "hist", "--plot draws one "
			       "histogram, not --per-file's");
	if (hs->plot && c->format_set)
		return gs_fail(err, GS_EUSAGE, "hist", "--plot draws text; it "
			       "takes no --format");
	if (c->format == FMT_STATE && (hs->nonzero || hs->edges_path))
		return gs_fail(err, GS_EUSAGE, "hist", "%s does not go with -f "
			       "state: give it to the run that prints the result",
			       hs->nonzero ? "--nonzero" : "--edges");
	if (check_nonzero(c, err) < 0)
		return -1;
	return check_edges_path(c, err);
}

static const struct pass count_pass[] = {
	{ .op = CMD_HIST, .start = check_edges, .done = hist_done },
	{ .done = NULL },
};

static const struct pass range_then_count[] = {
	{ .op = CMD_MINMAX, .start = range_start, .done = range_done },
	{ .op = CMD_HIST, .start = check_edges, .done = hist_done },
	{ .done = NULL },
};

/* --weights: the same passes, the counts made weight sums */
static const struct pass weighted_pass[] = {
	{ .op = CMD_HISTW, .start = check_edges, .done = hist_done },
	{ .done = NULL },
};

static const struct pass range_then_weighted[] = {
	{ .op = CMD_MINMAX, .start = range_start, .done = range_done },
	{ .op = CMD_HISTW, .start = check_edges, .done = hist_done },
	{ .done = NULL },
};

/* Once the type is known: per-value or ranged bins, and whether a range
 * pass comes first (no --range). */
static int hist_plan(struct cli *c, const struct pass **passes,
		     struct gs_err *err)
{
	const struct hist_state *hs = c->state;
	bool two = !hs->range_set;

	if (histw_plan(c, hs->weights, err) < 0)
		return -1;
	c->job.ranged = hs->bins_set || hs->range_set ||
			!per_value_type(c->job.dtype.type);
	/* ranged counts pair with edges in json */
	if (hs->nonzero && c->format == FMT_JSON && c->job.ranged)
		return gs_fail(err, GS_EUSAGE, "hist", "--nonzero does not go "
			       "with -f json for ranged bins: the counts pair "
			       "with the edges");
	/* each shard would find its own range: the bins would not add up */
	if (c->format == FMT_STATE && c->job.ranged && !hs->range_set)
		return gs_fail(err, GS_EUSAGE, "hist", "-f state of ranged bins "
			       "needs --range LO:HI (without it each shard's bins "
			       "would span its own min and max)");
	/* one edges file, but each operand binned over its own min and max */
	if (c->per_file && c->noperands > 1 && hs->edges_path &&
	    c->job.ranged && !hs->range_set)
		return gs_fail(err, GS_EUSAGE, "hist", "--edges writes one set of "
			       "edges; --per-file without --range bins each "
			       "operand over its own min and max (give --range "
			       "LO:HI)");
	if (c->job.ranged && !hs->bins_set)
		c->job.bins = 10;	/* numpy's default */
	if (c->job.ranged && hs->range_set)
		widen(&c->job);
	two = two && c->job.ranged;
	if (c->job.weighted)
		*passes = two ? range_then_weighted : weighted_pass;
	else
		*passes = two ? range_then_count : count_pass;
	return 0;
}

const struct command hist_command = {
	.name = "hist",
	.summary = "counts per value, or numpy.histogram bins",
	.usage = "[OPTION]... [FILE]...",
	.about = "Histogram of the stream (one per column with -c). 8- and "
		 "16-bit integer\ntypes get one bin per value; otherwise, or "
		 "with --bins, N equal bins over\n--range LO:HI count exactly "
		 "like numpy.histogram (last bin closed).\nValues outside the "
		 "range and NaNs are counted and reported. --weights COL\n"
		 "sums a column of weights into the bins, exactly; --density "
		 "gives numpy's\ndensity=True.",
	.examples = "cat data.bin | gpustat hist\n"
		    "gpustat hist -t f32 --bins 20 --range 0:1 samples.f32\n"
		    "gpustat hist -t f32 -c 2 --weights 2 --bins 100 pairs.f32\n"
		    "gpustat hist photo.ppm -f csv\n"
		    "convert photo.jpg pgm:- | gpustat hist --plot",
	.opts = hist_opts,
	.default_type = GS_U8,
	.default_format = FMT_TEXT,
	.formats = RESULT_FORMATS,
	.formats_help = RESULT_FORMATS_HELP,
	.mixed = true,		/* with --weights (hist_weights.c) */
	.state_size = sizeof(struct hist_state),
	.option = hist_option,
	.check = hist_check,
	.plan = hist_plan,
	.passes = count_pass,
	.other_state = true,	/* --weights: hist_done prints either */
	.other_state_op = CMD_HISTW,
	.finish = hist_finish,
};
