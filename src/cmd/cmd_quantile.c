/*
 * cmd_quantile.c - `gpustat quantile` and `gpustat median`: exact
 * quantiles with numpy's methods (quantile_math.c), per column, by radix
 * select over the values' ordered keys (cpu/select.h, cpu_select.c).
 *
 * The passes of radix select are quantile_passes.c's; this file holds
 * the options and the output.
 *
 * NaNs are counted and left out, as numpy.nanquantile does; a column of no
 * other value gives nan.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"
#include "gvals_out.h"
#include "quantile.h"
#include "writer.h"

enum { OPT_Q = 1, OPT_METHOD };

static const struct opt_spec quantile_opts[] = {
	{ .name = "quantiles",
	  .short_name = 'q',
	  .has_arg = required_argument,
	  .arg = "P,...",
	  .help = "the quantiles, each a decimal in [0, 1] taken\n"
		  "exactly as typed (0.1 is one tenth), comma-separated\n"
		  "(default 0.5); one output line each, in this order",
	  .id = OPT_Q,
	  .brief = "the quantiles to compute, P,..." },
	{ .name = "method",
	  .has_arg = required_argument,
	  .arg = "NAME",
	  .help = "numpy.quantile's method: linear (default), lower,\n"
		  "higher, midpoint, nearest, inverted_cdf,\n"
		  "averaged_inverted_cdf, closest_observation,\n"
		  "interpolated_inverted_cdf, hazen, weibull,\n"
		  "median_unbiased, normal_unbiased",
	  .values = QMETHOD_WORDS,
	  .id = OPT_METHOD,
	  .brief = "numpy.quantile's method (default linear)" },
	GROUP_OPT,
	{ .name = NULL },
};

static const struct opt_spec median_opts[] = {
	{ .name = "method",
	  .has_arg = required_argument,
	  .arg = "NAME",
	  .help = "numpy.quantile's method (default linear); see\n"
		  "gpustat quantile --help",
	  .values = QMETHOD_WORDS,
	  .id = OPT_METHOD,
	  .brief = "numpy.quantile's method (default linear)" },
	GROUP_OPT,
	{ .name = NULL },
};

/* One order statistic being found: its rank among the column's sorted
 * non-NaN values, the key bits found so far, the rank within the bucket
 * those bits name, and how many keys that bucket holds. */
static int quantile_option(struct cli *c, int id, const char *arg,
			   struct gs_err *err)
{
	struct quantile_state *s = c->state;

	if (id == OPT_BY)
		return group_option(c, arg, err);
	if (id == OPT_METHOD) {
		if (qmethod_parse(arg, &s->method) < 0)
			return gs_fail(err, GS_EUSAGE, "", "--method: expected one "
				       "of %s, not '%s'", QMETHOD_WORDS, arg);
		return 0;
	}
	s->nq = 0;
	for (const char *p = arg;; p++) {
		char buf[64];
		size_t n = strcspn(p, ",");

		if (s->nq == MAX_Q)
			return gs_fail(err, GS_EUSAGE, "", "--quantiles: at most %d "
				       "numbers, not '%s'", MAX_Q, arg);
		snprintf(buf, sizeof(buf), "%.*s", (int)n, p);
		if (n >= sizeof(buf))
			return gs_fail(err, GS_EUSAGE, "", "--quantiles: '%s...' "
				       "is longer than %d characters", buf,
				       (int)sizeof(buf) - 1);
		if (qdec_parse(buf, &s->q[s->nq]) < 0)
			return gs_fail(err, GS_EUSAGE, "", "--quantiles: expected "
				       "decimals in [0, 1], not '%s'", buf);
		s->nq++;
		p += n;
		if (!*p)
			return 0;
	}
}

static void quantile_init(struct cli *c)
{
	struct quantile_state *s = c->state;

	qdec_parse("0.5", &s->q[0]);
	s->nq = 1;
	s->method = QM_LINEAR;
}

static void median_init(struct cli *c)
{
	quantile_init(c);
	((struct quantile_state *)c->state)->median = true;
}

/* quantiles are not sums of shards: no partial result would merge */
static int quantile_check(struct cli *c, struct gs_err *err)
{
	if (c->format == FMT_STATE)
		return gs_fail(err, GS_EUSAGE, c->command->name, "has no -f state: "
			       "quantiles of shards do not merge; run it over the "
			       "whole input");
	return group_check(c, err);
}

/* --by: every key's values collected and sorted (gvals_out.c); else the
 * passes of radix select */
static int quantile_plan_by(struct cli *c, const struct pass **passes,
			    struct gs_err *err)
{
	if (c->by)
		return gvals_plan(c, passes, err);
	return quantile_plan(c, passes, err);
}

/* ---- the result ----------------------------------------------------------- */

static void key_value(enum gs_type t, uint64_t key, struct qvalue *v)
{
	int64_t i;
	uint64_t u;

	v->f = select_key_value(t, key, &i, &u);
	v->is_int = !type_is_float(t);
	v->neg = type_is_signed(t) && i < 0;
	v->mag = !type_is_signed(t) ? u : v->neg ? 0 - (uint64_t)i : (uint64_t)i;
}

void quantile_cell(enum gs_type type, const struct qpick *p, uint64_t lo_key,
		   uint64_t hi_key, struct qcell *cell)
{
	struct qvalue lo, hi;

	key_value(type, lo_key, &lo);
	key_value(type, hi_key, &hi);
	cell->is_int = false;
	if (p->element && lo.is_int) {
		cell->is_int = true;
		snprintf(cell->text, sizeof(cell->text), "%s%llu", lo.neg ? "-" : "",
			 (unsigned long long)lo.mag);
	}
	cell->f = p->element ? lo.f : qlerp(p, &lo, &hi);
}

struct wval quantile_wval(const struct qcell *x)
{
	if (x->is_int)
		return (struct wval){ .kind = W_DEC, .s = x->text, .f = x->f };
	return wv_f64(x->f);
}

struct table {
	const struct quantile_state *s;
	const struct qcell *cells;	/* [column][q] */
	unsigned cols, label;		/* label: 1 for the q column */
};

/* A row per quantile: q (quantile only), then its value in each column. */
static bool row(void *ctx, uint64_t r, struct wval *cells)
{
	const struct table *t = ctx;

	if (t->label)
		cells[0] = (struct wval){ .kind = W_DEC, .s = t->s->q[r].text };
	for (unsigned k = 0; k < t->cols; k++)
		cells[t->label + k] = quantile_wval(&t->cells[(size_t)k * t->s->nq + r]);
	return true;
}

/* json: "q", then "quantiles" as [q][column] (numpy.quantile(a, q,
 * axis=0)) or "median" as [column] */
static bool get(void *ctx, int id, uint64_t i, uint64_t j, struct wval *v)
{
	const struct table *t = ctx;

	if (id == 0)
		*v = (struct wval){ .kind = W_DEC, .s = t->s->q[j].text };
	else
		*v = quantile_wval(&t->cells[(size_t)j * t->s->nq + i]);
	return true;
}

/* The table; binary, npy: f64 [q][column], shape (len(q), columns),
 * (len(q),) for one column; median: (columns,). */
static int put(struct cli *c, const struct qcell *cells, struct sbuf *b,
	       struct gs_err *err)
{
	const struct quantile_state *s = c->state;
	unsigned cols = c->job.columns, label = !s->median;
	struct table t = { s, cells, cols, label };
	const struct wfield fields[] = {
		{ .name = "method", .str = qmethod_names[s->method] },
		{ .name = "q", .depth = 1, .m = s->nq, .get = get, .id = 0 },
		{ .name = s->median ? "median" : "quantiles",
		  .depth = s->median ? 1 : 2, .n = s->nq, .m = cols, .get = get,
		  .id = 1 },
		{ .name = "count", .depth = 1, .m = cols, .base = s->count,
		  .stride = 8 },
		{ .name = "nan", .depth = 1, .m = cols, .base = s->nan,
		  .stride = 8 },
	};
	const struct wfield median[] = { fields[0], fields[2], fields[3],
					 fields[4] };	/* no "q" */
	struct wresult r = {
		.ctx = &t, .rows = s->nq, .cells = label + cols,
		.text_from = label, .array_from = label, .row = row,
		.names = s->median ? (const char *const[]){ "median" }
				   : (const char *const[]){ "q", "quantile" },
		.nnames = 1 + label, .labels = label, .descr = "<f8", .ndim = cols == 1 ? 1 : 2,
		.dims = { s->nq, cols }, .fields = fields, .nfields = 5,
	};

	if (s->median) {
		r.ndim = 1;
		r.dims[0] = cols;
		r.fields = median;
		r.nfields = 4;
	}
	return writer_put(c, &r, b, err);
}

/* The targets, all found: each quantile from its elements, formatted. */
int quantile_emit(struct cli *c, struct sbuf *b, struct gs_err *err)
{
	struct quantile_state *s = c->state;
	unsigned cols = c->job.columns;
	struct qcell *cells = calloc((size_t)cols * s->nq, sizeof(*cells));

	if (!cells)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (unsigned k = 0; k < cols; k++)
		for (unsigned j = 0; j < s->nq; j++) {
			size_t i = (size_t)k * s->nq + j;

			if (s->count[k] == s->nan[k])
				cells[i].f = NAN;
			else
				quantile_cell(c->job.dtype.type, &s->picks[i],
					      s->t[2 * i].prefix,
					      s->t[2 * i + 1].prefix, &cells[i]);
		}
	int rc = put(c, cells, b, err);

	free(cells);
	return rc;
}

/* The result, then the note of NaNs left out (json has them as fields). */
static int quantile_finish(struct cli *c, const struct sbuf *b)
{
	struct quantile_state *s = c->state;
	int rc = cli_finish(c, b);

	if (rc == 0 && s->nan_total && c->format != FMT_JSON)
		cli_note(c, "note: %llu NaN%s left out", (unsigned long long)s->nan_total,
			 s->nan_total == 1 ? "" : "s");
	quantile_free(s);
	return rc;
}

#define QUANTILE_ABOUT_TAIL \
	"P is the decimal typed (0.1 is one tenth, where numpy takes the double\n" \
	"nearest it), and each result is numpy's value computed exactly for it\n" \
	"(the virtual index and the interpolation between the two elements)\n" \
	"and rounded once to f64; lower, higher, nearest, inverted_cdf and\n" \
	"closest_observation give the element itself (integers exactly).\n" \
	"NaNs are counted and left out, as numpy.nanquantile does (a note\n" \
	"says how many; json has \"nan\"); no other value: nan; no data: an\n" \
	"error. Columns times quantiles are bounded (1 GiB). Exact in one\n" \
	"pass for 8/16-bit types, two for 32-bit, two to four for 64-bit\n" \
	"(radix select, bounded memory); a pipe read more than once is\n" \
	"first copied to an unlinked temporary file in $TMPDIR. --by COLS: the\n" \
	"same per key, its cells first (every key's values held in memory,\n" \
	"sorted). No -f state."

const struct command quantile_command = {
	.name = "quantile",
	.summary = "exact quantiles with numpy's methods",
	.usage = "[OPTION]... [FILE]...",
	.about = "Quantiles of all elements (per column with -c), as "
		 "numpy.quantile(a, q,\naxis=0, method=...): one line per P, "
		 "one value per column.\n" QUANTILE_ABOUT_TAIL,
	.examples = "gpustat quantile -q 0.25,0.5,0.75 -t f64 data.f64\n"
		    "gpustat quantile -q 0.99 --method nearest -t u32 -c 2 pairs.u32\n"
		    "gpustat quantile -q 0.5,0.9 --by 1 -t i32,f32 readings.bin\n"
		    "zstd -dc lat.f32.zst | gpustat quantile -q 0.5,0.9,0.99",
	.opts = quantile_opts,
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = "text tsv csv json binary npy",
	.formats_help = "text (default), tsv, csv, json, binary, npy",
	.state_size = sizeof(struct quantile_state),
	.init = quantile_init,
	.option = quantile_option,
	.check = quantile_check,
	.plan = quantile_plan_by,
	.passes = NULL,	/* quantile_plan makes them */
	.finish = quantile_finish,
};

const struct command median_command = {
	.name = "median",
	.summary = "exact median (quantile -q 0.5)",
	.usage = "[OPTION]... [FILE]...",
	.about = "The median of all elements (per column with -c): gpustat "
		 "quantile -q 0.5,\nnumpy.median's value with the default "
		 "method; one line, one value per\ncolumn.\n" QUANTILE_ABOUT_TAIL,
	.examples = "gpustat median -t f64 data.f64\n"
		    "gpustat median -t i16 -c 2 stereo.raw\n"
		    "gpustat median --header --by station -F temp data.csv",
	.opts = median_opts,
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = "text tsv csv json binary npy",
	.formats_help = "text (default), tsv, csv, json, binary, npy",
	.state_size = sizeof(struct quantile_state),
	.init = median_init,
	.option = quantile_option,
	.check = quantile_check,
	.plan = quantile_plan_by,
	.passes = NULL,	/* quantile_plan makes them */
	.finish = quantile_finish,
};
