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

#include "quantile.h"
#include "report.h"

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
	{ .name = NULL },
};

/* One order statistic being found: its rank among the column's sorted
 * non-NaN values, the key bits found so far, the rank within the bucket
 * those bits name, and how many keys that bucket holds. */
static int quantile_option(struct cli *c, int id, const char *arg,
			   struct gs_err *err)
{
	struct quantile_state *s = c->state;

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
	return 0;
}

/* ---- the result ----------------------------------------------------------- */

/* One result: its f64, and an integer element's exact digits. */
struct qcell {
	double f;
	bool is_int;
	char text[24];
};

static void key_value(enum gs_type t, uint64_t key, struct qvalue *v)
{
	int64_t i;
	uint64_t u;

	v->f = select_key_value(t, key, &i, &u);
	v->is_int = !type_is_float(t);
	v->neg = type_is_signed(t) && i < 0;
	v->mag = !type_is_signed(t) ? u : v->neg ? 0 - (uint64_t)i : (uint64_t)i;
}

static void result_cell(const struct cli *c, const struct qpick *p,
			const struct target *t, struct qcell *cell)
{
	enum gs_type type = c->job.dtype.type;
	struct qvalue lo, hi;

	key_value(type, t[0].prefix, &lo);
	key_value(type, t[1].prefix, &hi);
	cell->is_int = false;
	if (p->element && lo.is_int) {
		cell->is_int = true;
		snprintf(cell->text, sizeof(cell->text), "%s%llu", lo.neg ? "-" : "",
			 (unsigned long long)lo.mag);
	}
	cell->f = p->element ? lo.f : qlerp(p, &lo, &hi);
}

static void sb_cell(struct sbuf *b, const struct qcell *x, bool json)
{
	if (x->is_int)
		sb_add(b, x->text);
	else if (json)
		sb_json_double(b, x->f);
	else
		sb_double(b, x->f);
}

static void emit_table(const struct cli *c, struct sbuf *b,
		       const struct qcell *cells)
{
	const struct quantile_state *s = c->state;
	unsigned cols = c->job.columns;
	char sep = report_sep(c->format);
	bool label = !s->median && report_has_header(c->format);

	if (report_has_header(c->format)) {
		if (label)
			sb_addf(b, "q%c", sep);
		report_value_names(b, c->format, s->median ? "median" : "quantile",
				   cols);
		sb_add(b, "\n");
	}
	for (unsigned j = 0; j < s->nq; j++) {
		if (label) {
			sb_add(b, s->q[j].text);
			sb_addn(b, &sep, 1);
		}
		for (unsigned k = 0; k < cols; k++) {
			if (k)
				sb_addn(b, &sep, 1);
			sb_cell(b, &cells[(size_t)k * s->nq + j], false);
		}
		sb_add(b, "\n");
	}
}

static void json_u64s(struct sbuf *b, const char *name, const uint64_t *v,
		      unsigned n)
{
	sb_addf(b, ",\"%s\":[", name);
	for (unsigned k = 0; k < n; k++) {
		if (k)
			sb_add(b, ",");
		sb_u64(b, v[k]);
	}
	sb_add(b, "]");
}

/* quantile: "quantiles" is [q][column], as numpy.quantile(a, q, axis=0);
 * median: "median" is [column]. */
static void emit_json(const struct cli *c, struct sbuf *b,
		      const struct qcell *cells)
{
	const struct quantile_state *s = c->state;
	unsigned cols = c->job.columns;

	sb_addf(b, "{\"command\":\"%s\",\"type\":\"%s\",\"columns\":%u,"
		"\"method\":\"%s\"", c->command->name, type_name(c->job.dtype.type),
		cols, qmethod_names[s->method]);
	if (!s->median) {
		sb_add(b, ",\"q\":[");
		for (unsigned j = 0; j < s->nq; j++) {
			sb_add(b, j ? "," : "");
			sb_add(b, s->q[j].text);
		}
		sb_add(b, "]");
	}
	sb_add(b, s->median ? ",\"median\":[" : ",\"quantiles\":[");
	for (unsigned j = 0; j < s->nq; j++) {
		sb_add(b, j ? "," : "");
		sb_add(b, s->median ? "" : "[");
		for (unsigned k = 0; k < cols; k++) {
			sb_add(b, k ? "," : "");
			sb_cell(b, &cells[(size_t)k * s->nq + j], true);
		}
		sb_add(b, s->median ? "" : "]");
	}
	sb_add(b, "]");
	json_u64s(b, "count", s->count, cols);
	json_u64s(b, "nan", s->nan, cols);
	sb_add(b, "}\n");
}

/* f64 little-endian, [q][column]: shape (len(q), columns), (len(q),) for
 * one column; median: (columns,). */
static void emit_binary(const struct cli *c, struct sbuf *b,
			const struct qcell *cells)
{
	const struct quantile_state *s = c->state;
	unsigned cols = c->job.columns;

	if (c->format == FMT_NPY) {
		uint64_t dims[2] = { s->nq, cols };

		if (s->median)
			npy_header(b, "<f8", dims + 1, 1, 0);
		else
			npy_header(b, "<f8", dims, cols == 1 ? 1 : 2, 0);
	}
	for (unsigned j = 0; j < s->nq; j++)
		for (unsigned k = 0; k < cols; k++)
			sb_addn(b, &cells[(size_t)k * s->nq + j].f, 8);
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
				result_cell(c, &s->picks[i], &s->t[2 * i], &cells[i]);
		}
	if (c->format == FMT_JSON)
		emit_json(c, b, cells);
	else if (c->format == FMT_BINARY || c->format == FMT_NPY)
		emit_binary(c, b, cells);
	else
		emit_table(c, b, cells);
	free(cells);
	return 0;
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
	"first copied to an unlinked temporary file in $TMPDIR. No -f state."

const struct command quantile_command = {
	.name = "quantile",
	.summary = "exact quantiles with numpy's methods",
	.usage = "[OPTION]... [FILE]...",
	.about = "Quantiles of all elements (per column with -c), as "
		 "numpy.quantile(a, q,\naxis=0, method=...): one line per P, "
		 "one value per column.\n" QUANTILE_ABOUT_TAIL,
	.examples = "gpustat quantile -q 0.25,0.5,0.75 -t f64 data.f64\n"
		    "gpustat quantile -q 0.99 --method nearest -t u32 -c 2 pairs.u32\n"
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
	.plan = quantile_plan,
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
		    "gpustat median -t i16 -c 2 stereo.raw",
	.opts = median_opts,
	.default_type = GS_F32,
	.default_format = FMT_TEXT,
	.formats = "text tsv csv json binary npy",
	.formats_help = "text (default), tsv, csv, json, binary, npy",
	.state_size = sizeof(struct quantile_state),
	.init = median_init,
	.option = quantile_option,
	.check = quantile_check,
	.plan = quantile_plan,
	.passes = NULL,	/* quantile_plan makes them */
	.finish = quantile_finish,
};
