/*
 * cmd_quantile.c - `gpustat quantile` and `gpustat median`: exact
 * quantiles with numpy's methods (quantile_math.c), per column, by radix
 * select over the values' ordered keys (cpu/select.h, cpu_select.c).
 *
 * Passes: the first counts the elements and NaNs of each column and a
 * histogram of the keys' top digit; it tells, for every order statistic a
 * quantile needs, the bucket that holds it and its rank there. Each later
 * pass histograms the next digit of the keys in those buckets only. 8- and
 * 16-bit types take one pass, 32-bit two, 64-bit up to four: once the
 * wanted buckets hold at most COLLECT_MAX keys in all, one more pass keeps
 * those keys and sorts them (a gaussian sample of 8M f64 takes two passes).
 * Memory is one histogram of 2^16 counts per wanted bucket and column, or
 * the collected keys, whatever the input's length. A later pass that does
 * not find the counts of the first (the file changed) is an error. A pipe
 * is kept in an unlinked temporary file for the passes after the first
 * (spill.c).
 *
 * NaNs are counted and left out, as numpy.nanquantile does; a column of no
 * other value gives nan.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "quantile_math.h"
#include "report.h"
#include "select.h"
#include "spill.h"

enum { OPT_Q = 1, OPT_METHOD };

#define MAX_Q 4096

static const struct opt_spec quantile_opts[] = {
	{ .name = "quantiles",
	  .short_name = 'q',
	  .has_arg = required_argument,
	  .arg = "P,...",
	  .help = "the quantiles, each in [0, 1], comma-separated\n"
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
struct target {
	uint64_t prefix, rem, expect;
};

struct quantile_state {
	double q[MAX_Q];
	unsigned nq;
	enum qmethod method;
	bool median;
	/* the passes */
	unsigned npasses, pass;
	struct select_plan plan;
	uint64_t *prefix, *first_of, *coff;
	struct pass passes[5];	/* the 64-bit plan, cut short by a collect pass */
	uint64_t records;	/* of the first pass */
	uint64_t *count, *nan;	/* per column, from the first pass */
	struct qpick *picks;	/* [column][q] */
	struct target *t;	/* [column][q][lo, hi] */
	uint64_t nan_total;
};

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
		double q;

		if (n >= sizeof(buf) || s->nq == MAX_Q)
			return gs_fail(err, GS_EUSAGE, "", "--quantiles: at most %d "
				       "numbers, not '%s'", MAX_Q, arg);
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (parse_double(buf, &q) < 0 || !(q >= 0 && q <= 1))
			return gs_fail(err, GS_EUSAGE, "", "--quantiles: expected "
				       "numbers in [0, 1], not '%s'", buf);
		s->q[s->nq++] = q;
		p += n;
		if (!*p)
			return 0;
	}
}

static void quantile_init(struct cli *c)
{
	struct quantile_state *s = c->state;

	s->q[0] = 0.5;
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

/* ---- the passes ---------------------------------------------------------- */

static void free_plan(struct quantile_state *s)
{
	free(s->prefix);
	free(s->first_of);
	free(s->coff);
	free(s->count);
	free(s->picks);
	free(s->t);
	s->prefix = s->first_of = s->coff = s->count = NULL;
	s->picks = NULL;
	s->t = NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_target(const void *a, const void *b)
{
	return cmp_u64(&((const struct target *)a)->prefix,
		       &((const struct target *)b)->prefix);
}

/* The buckets of column k's targets: their distinct prefixes, sorted, at
 * out, and the keys each holds at expect (if not NULL); returns how many.
 * tmp has room for 2 * nq targets. */
static uint64_t column_prefixes(const struct quantile_state *s, unsigned k,
				uint64_t *out, uint64_t *expect,
				struct target *tmp)
{
	uint64_t n = 2 * (uint64_t)s->nq, m = 0;

	if (s->count[k] == s->nan[k])
		return 0;
	memcpy(tmp, &s->t[(size_t)k * n], n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), cmp_target);
	for (uint64_t i = 0; i < n; i++) {
		if (i && tmp[i].prefix == out[m - 1])
			continue;
		if (expect)
			expect[m] = tmp[i].expect;
		out[m++] = tmp[i].prefix;
	}
	return m;
}

/* The buckets of a pass after the first: every column's, and in s->coff
 * where each one's keys go in a collect pass. */
static int plan_buckets(struct cli *c, struct gs_err *err)
{
	struct quantile_state *s = c->state;
	struct select_plan *pl = &s->plan;
	unsigned cols = c->job.columns;
	size_t most = (size_t)cols * 2 * s->nq;
	struct target *tmp = malloc(2 * (size_t)s->nq * sizeof(*tmp));

	free(s->prefix);
	free(s->first_of);
	free(s->coff);
	s->prefix = malloc(most * sizeof(*s->prefix));
	s->first_of = malloc(((size_t)cols + 1) * sizeof(*s->first_of));
	s->coff = malloc((most + 1) * sizeof(*s->coff));
	if (!s->prefix || !s->first_of || !s->coff || !tmp) {
		free(tmp);
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	}
	s->first_of[0] = 0;
	for (unsigned k = 0; k < cols; k++)
		s->first_of[k + 1] = s->first_of[k] +
			column_prefixes(s, k, s->prefix + s->first_of[k],
					s->coff + 1 + s->first_of[k], tmp);
	free(tmp);
	pl->prefix = s->prefix;
	pl->first_of = s->first_of;
	pl->nhist = s->first_of[cols];
	s->coff[0] = 0;		/* the counts become offsets */
	for (uint64_t h = 0; h < pl->nhist; h++)
		s->coff[h + 1] += s->coff[h];
	pl->coff = s->coff;
	return 0;
}

/* The plan of pass s->pass: its digit and, after the first, the buckets. */
static int plan_pass(struct cli *c, struct gs_err *err)
{
	struct quantile_state *s = c->state;
	struct select_plan *pl = &s->plan;
	unsigned cols = c->job.columns;

	pl->key_bits = select_key_bits(c->job.dtype.type);
	pl->digit_bits = pl->key_bits == 8 ? 8 : SELECT_DIGIT_BITS;
	pl->shift = pl->key_bits - (s->pass + 1) * pl->digit_bits;
	pl->first = s->pass == 0;
	pl->nhist = cols;
	c->job.select = pl;
	if (pl->first)
		return 0;
	return plan_buckets(c, err);
}

static void set_four_passes(struct quantile_state *s);

static int first_start(struct cli *c, struct gs_err *err)
{
	struct quantile_state *s = c->state;

	free_plan(s);
	s->pass = 0;
	set_four_passes(s);
	s->npasses = select_key_bits(c->job.dtype.type) <= 16 ? 1 :
		     select_key_bits(c->job.dtype.type) / SELECT_DIGIT_BITS;
	if (s->npasses > 1 && !input_rewindable(c->in) && spill_input(c, err) < 0)
		return -1;
	return plan_pass(c, err);
}

static int next_start(struct cli *c, struct gs_err *err)
{
	return plan_pass(c, err);
}

/* After the first pass: the counts, and each quantile's order statistics
 * as targets in the whole key range. */
static int set_targets(struct cli *c, void *acc, struct gs_err *err)
{
	struct quantile_state *s = c->state;
	unsigned cols = c->job.columns;
	size_t nt = (size_t)cols * s->nq;

	free(s->count);		/* --per-file's total follows the operands' */
	free(s->picks);
	free(s->t);
	s->count = calloc(2 * (size_t)cols, sizeof(*s->count));
	s->picks = calloc(nt, sizeof(*s->picks));
	s->t = calloc(2 * nt, sizeof(*s->t));
	if (!s->count || !s->picks || !s->t)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	s->nan = s->count + cols;
	s->records = c->records;
	s->nan_total = 0;
	for (unsigned k = 0; k < cols; k++) {
		uint64_t n;

		s->count[k] = select_count(acc)[k];
		s->nan[k] = select_nan(acc, cols)[k];
		s->nan_total += s->nan[k];
		n = s->count[k] - s->nan[k];
		for (unsigned j = 0; n && j < s->nq; j++) {
			struct qpick *p = &s->picks[(size_t)k * s->nq + j];
			struct target *t = &s->t[((size_t)k * s->nq + j) * 2];

			qpick_of(s->method, s->q[j], n, p);
			t[0] = (struct target){ .rem = p->lo, .expect = n };
			t[1] = (struct target){ .rem = p->hi, .expect = n };
		}
	}
	return 0;
}

static int changed(struct gs_err *err, const char *name)
{
	return gs_fail(err, GS_ERUNTIME, name, "the input changed between "
		       "the passes (its counts differ)");
}

/* One target down one digit: the bin of the histogram h that holds its
 * rank. */
static int descend(const struct select_plan *pl, struct target *t,
		   const uint64_t *h, const char *name, struct gs_err *err)
{
	uint64_t cum = 0, total = 0, nbins = (uint64_t)1 << pl->digit_bits;
	uint64_t found = nbins;

	for (uint64_t d = 0; d < nbins; d++) {
		if (found == nbins && t->rem < cum + h[d])
			found = d;
		if (found == nbins)
			cum += h[d];
		total += h[d];
	}
	if (total != t->expect || found == nbins)
		return changed(err, name);
	t->prefix = t->prefix << pl->digit_bits | found;
	t->rem -= cum;
	t->expect = h[found];
	return 0;
}

/* A later pass must find the first one's records, elements and NaNs. */
static int check_counts(const struct cli *c, void *acc, struct gs_err *err)
{
	const struct quantile_state *s = c->state;

	if (c->records != s->records)
		return changed(err, c->command->name);
	for (unsigned k = 0; k < c->job.columns; k++)
		if (select_count(acc)[k] != s->count[k] ||
		    select_nan(acc, c->job.columns)[k] != s->nan[k])
			return changed(err, c->command->name);
	return 0;
}

/* The target's bucket: histogram or collected keys h of this pass. */
static uint64_t bucket_of(const struct quantile_state *s, unsigned k,
			  const struct target *t)
{
	const uint64_t *p = bsearch(&t->prefix, s->prefix + s->first_of[k],
				    s->first_of[k + 1] - s->first_of[k],
				    sizeof(uint64_t), cmp_u64);

	return (uint64_t)(p - s->prefix);
}

/* Every target of the pass just run one digit further. */
static int advance(struct cli *c, void *acc, struct gs_err *err)
{
	struct quantile_state *s = c->state;
	const struct select_plan *pl = &s->plan;
	unsigned cols = c->job.columns;

	if (check_counts(c, acc, err) < 0)
		return -1;
	for (unsigned k = 0; k < cols; k++) {
		if (s->count[k] == s->nan[k])
			continue;
		for (unsigned j = 0; j < 2 * s->nq; j++) {
			struct target *t = &s->t[(size_t)k * 2 * s->nq + j];
			uint64_t h = k;

			if (!pl->first)
				h = bucket_of(s, k, t);
			if (descend(pl, t, select_hist(acc, &c->job, h),
				    c->command->name, err) < 0)
				return -1;
		}
	}
	return 0;
}

static int collect_done(struct cli *c, void *acc, struct sbuf *b,
			struct gs_err *err);

/* The keys that pass s->pass would collect: those of the targets'
 * buckets. */
static uint64_t bucket_keys(const struct quantile_state *s, unsigned cols)
{
	uint64_t total = 0;

	for (unsigned k = 0; k < cols; k++) {
		if (s->count[k] == s->nan[k])
			continue;
		for (unsigned j = 0; j < 2 * s->nq; j++) {
			const struct target *t = &s->t[(size_t)k * 2 * s->nq + j];
			bool seen = false;

			for (unsigned i = 0; i < j && !seen; i++)
				seen = s->t[(size_t)k * 2 * s->nq + i].prefix == t->prefix;
			total += seen ? 0 : t->expect;
		}
	}
	return total;
}

static int collect_start(struct cli *c, struct gs_err *err)
{
	struct quantile_state *s = c->state;
	struct select_plan *pl = &s->plan;

	if (plan_pass(c, err) < 0)
		return -1;
	pl->shift = pl->key_bits - s->pass * pl->digit_bits;
	pl->digit_bits = 0;
	return 0;
}

/* 64-bit keys: where the buckets left are small, the next pass keeps their
 * keys whole and is the last (the driver stops at the entry after it). */
static void maybe_collect(struct cli *c)
{
	struct quantile_state *s = c->state;

	if (s->plan.key_bits != 64 || s->pass + 1 >= s->npasses ||
	    bucket_keys(s, c->job.columns) > COLLECT_MAX)
		return;
	s->passes[s->pass] = (struct pass){ .op = CMD_COLLECT,
					    .start = collect_start,
					    .done = collect_done };
	s->passes[s->pass + 1] = (struct pass){ .done = NULL };
}

static int mid_done(struct cli *c, void *acc, struct sbuf *b,
		    struct gs_err *err)
{
	struct quantile_state *s = c->state;

	(void)b;
	if (s->pass == 0 && set_targets(c, acc, err) < 0)
		return -1;
	if (advance(c, acc, err) < 0)
		return -1;
	s->pass++;
	maybe_collect(c);
	c->mute_operands = true;	/* the first pass reported them */
	return input_rewind(c->in, err);
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
			sb_double(b, s->q[j]);
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
			sb_json_double(b, s->q[j]);
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
static int emit_result(struct cli *c, struct sbuf *b, struct gs_err *err)
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

static int last_done(struct cli *c, void *acc, struct sbuf *b,
		     struct gs_err *err)
{
	struct quantile_state *s = c->state;

	if (s->pass == 0 && set_targets(c, acc, err) < 0)
		return -1;
	if (advance(c, acc, err) < 0)
		return -1;
	return emit_result(c, b, err);
}

/* The collected buckets, each sorted: a target's key is at its rank. */
static int collect_done(struct cli *c, void *acc, struct sbuf *b,
			struct gs_err *err)
{
	struct quantile_state *s = c->state;
	const struct select_plan *pl = &s->plan;
	const uint64_t *fill = collect_fill(acc, &c->job);

	if (check_counts(c, acc, err) < 0)
		return -1;
	for (uint64_t h = 0; h < pl->nhist; h++) {
		if (fill[h] != pl->coff[h + 1] - pl->coff[h])
			return changed(err, c->command->name);
		qsort(collect_keys(acc, &c->job, h), fill[h], sizeof(uint64_t),
		      cmp_u64);
	}
	for (unsigned k = 0; k < c->job.columns; k++) {
		if (s->count[k] == s->nan[k])
			continue;
		for (unsigned j = 0; j < 2 * s->nq; j++) {
			struct target *t = &s->t[(size_t)k * 2 * s->nq + j];

			t->prefix = collect_keys(acc, &c->job, bucket_of(s, k, t))[t->rem];
		}
	}
	return emit_result(c, b, err);
}

/* The result, then the note of NaNs left out (json has them as fields). */
static int quantile_finish(struct cli *c, const struct sbuf *b)
{
	struct quantile_state *s = c->state;
	int rc = cli_finish(c, b);

	if (rc == 0 && s->nan_total && c->format != FMT_JSON)
		cli_note(c, "note: %llu NaN%s left out", (unsigned long long)s->nan_total,
			 s->nan_total == 1 ? "" : "s");
	free_plan(s);
	return rc;
}

static const struct pass one_pass[] = {
	{ .op = CMD_SELECT, .start = first_start, .done = last_done },
	{ .done = NULL },
};
static const struct pass two_passes[] = {
	{ .op = CMD_SELECT, .start = first_start, .done = mid_done },
	{ .op = CMD_SELECT, .start = next_start, .done = last_done },
	{ .done = NULL },
};
/* 64-bit keys: up to four passes, in the state, where maybe_collect cuts
 * them short (first_start sets them again for each run over the input) */
static void set_four_passes(struct quantile_state *s)
{
	for (int i = 0; i < 4; i++)
		s->passes[i] = (struct pass){ .op = CMD_SELECT,
					      .start = i ? next_start : first_start,
					      .done = i < 3 ? mid_done : last_done };
	s->passes[4] = (struct pass){ .done = NULL };
}

/* One pass per digit of the type's key. */
static int quantile_plan(struct cli *c, const struct pass **passes,
			 struct gs_err *err)
{
	unsigned bits = select_key_bits(c->job.dtype.type);

	(void)err;
	set_four_passes(c->state);
	*passes = bits <= 16 ? one_pass : bits == 32 ? two_passes
			     : ((struct quantile_state *)c->state)->passes;
	return 0;
}

#define QUANTILE_ABOUT_TAIL \
	"Each result is numpy's value computed exactly (the virtual index from\n" \
	"P's double value, the interpolation between the two elements exact)\n" \
	"and rounded once to f64; lower, higher, nearest, inverted_cdf and\n" \
	"closest_observation give the element itself (integers exactly).\n" \
	"NaNs are counted and left out, as numpy.nanquantile does (a note\n" \
	"says how many; json has \"nan\"); no other value: nan. Exact in one\n" \
	"pass for 8/16-bit types, two for 32-bit, two to four for 64-bit\n" \
	"(radix select, bounded memory); a pipe is kept in an unlinked\n" \
	"temporary file in $TMPDIR for the later passes. No -f state. CPU\n" \
	"only."

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
	.passes = one_pass,
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
	.passes = one_pass,
	.finish = quantile_finish,
};
