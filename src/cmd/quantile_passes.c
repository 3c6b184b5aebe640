/*
 * quantile_passes.c - the passes of quantile and median: radix select
 * over the values' ordered keys (cpu/select.h, cpu_select.c).
 *
 * The first pass counts the elements and NaNs of each column and a
 * histogram of the keys' top digit; it tells, for every order statistic a
 * quantile needs (quantile_math.c's picks), the bucket that holds it and
 * its rank there. Each later pass histograms the next digit of the keys in
 * those buckets only, until every key is whole: 8- and 16-bit types take
 * one pass, 32-bit two, 64-bit up to four. Once the wanted buckets hold at
 * most COLLECT_MAX keys in all while more than one digit is left, one more
 * pass keeps those keys and sorts them instead (a gaussian sample of 8M
 * f64 takes two passes). A digit is 16 bits while the pass's histograms
 * fit HIST_BUDGET, fewer where many buckets are wanted (many quantiles and
 * columns), so memory is bounded whatever the input's length; the passes
 * are as many as the digits need.
 *
 * The driver runs the table s->passes until an entry with no done: each
 * pass, once done, writes the entry after it (the next pass, or the end).
 * A later pass that does not find the counts of the first (the file
 * changed) is an error. A pipe that more than one pass reads is first
 * copied to an unlinked temporary file (spill.c).
 */
#include <stdlib.h>
#include <string.h>

#include "quantile.h"
#include "results.h"
#include "spill.h"

/* the histograms of one pass: 32 MiB per accumulator, so that 16 threads'
 * copies stay well inside ENGINE_ACC_LIMIT */
#define HIST_BUDGET ((uint64_t)32 << 20)

static int first_start(struct cli *c, struct gs_err *err);
static int next_start(struct cli *c, struct gs_err *err);
static int collect_start(struct cli *c, struct gs_err *err);
static int select_done(struct cli *c, void *acc, struct sbuf *b,
		       struct gs_err *err);
static int collect_done(struct cli *c, void *acc, struct sbuf *b,
			struct gs_err *err);

static uint64_t quantile_extra(const struct cli *c);

static const struct pass first_pass = {
	.op = CMD_SELECT, .start = first_start, .extra = quantile_extra,
	.done = select_done };
static const struct pass next_pass = {
	.op = CMD_SELECT, .start = next_start, .extra = quantile_extra,
	.done = select_done };
static const struct pass collect_pass = {
	.op = CMD_COLLECT, .start = collect_start, .extra = quantile_extra,
	.done = collect_done };
static const struct pass end_pass = { .done = NULL };

void quantile_free(struct quantile_state *s)
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

/* The widest digit, at most the bits left, whose nhist histograms fit
 * HIST_BUDGET. */
static unsigned pick_digit(uint64_t nhist, unsigned left)
{
	unsigned d = SELECT_DIGIT_BITS < left ? SELECT_DIGIT_BITS : left;

	/* at least 4 bits: 16 passes and a collect fit MAX_PASSES (more
	 * buckets than that fits the budget are for the engine's limit) */
	while (d > 4 && (nhist << d) * 8 > HIST_BUDGET)
		d -= 4;
	return d;
}

/* The table's first entries: the first pass, and a second where the
 * first cannot find every key (each pass writes the one after it). */
static void set_table(struct cli *c)
{
	struct quantile_state *s = c->state;
	unsigned bits = select_key_bits(c->job.dtype.type);

	s->passes[0] = first_pass;
	s->passes[1] = pick_digit(c->job.columns, bits) < bits ? next_pass : end_pass;
	s->passes[2] = end_pass;
}

/*
 * What a run keeps for each column and quantile: beside the accumulators
 * (counted by the engine), the pick, its two targets, their buckets'
 * prefixes and offsets, and the result (cell and text, 64 bytes); and
 * where a later pass runs, its histograms of those two buckets at the
 * narrowest digit (4 bits), the command's copy and one thread's. Many
 * columns times many quantiles would take gigabytes after reading the
 * input once: the bound is checked before the first pass.
 */
#define QCELL_STATE (sizeof(struct qpick) + 2 * sizeof(struct target) + \
		     4 * sizeof(uint64_t) + 64)
#define QCELL_HIST (2 * 2 * 16 * sizeof(uint64_t))

static uint64_t quantile_extra(const struct cli *c)
{
	const struct quantile_state *s = c->state;

	return (uint64_t)c->job.columns * s->nq * QCELL_STATE;
}

int quantile_plan(struct cli *c, const struct pass **passes, struct gs_err *err)
{
	struct quantile_state *s = c->state;
	unsigned __int128 need;

	set_table(c);
	need = (unsigned __int128)c->job.columns * s->nq *
	       (QCELL_STATE + (s->passes[1].done ? QCELL_HIST : 0));
	if (need > ENGINE_ACC_LIMIT)
		return gs_fail(err, GS_ERUNTIME, c->command->name, "%u columns "
			       "and %u quantiles need %.2f GiB, over the limit "
			       "of %.0f GiB (use fewer columns or quantiles)",
			       c->job.columns, s->nq,
			       (double)need / (double)((uint64_t)1 << 30),
			       (double)ENGINE_ACC_LIMIT / (double)((uint64_t)1 << 30));
	*passes = s->passes;
	return 0;
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

			qpick_of(s->method, &s->q[j], n, p);
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

/* The keys that pass s->pass would collect: those of the targets'
 * buckets. */
static uint64_t bucket_keys(const struct quantile_state *s, unsigned cols)
{
	size_t n = 2 * (size_t)s->nq;
	uint64_t *prefix = malloc(n * sizeof(*prefix));
	uint64_t *expect = malloc(n * sizeof(*expect));
	struct target *tmp = malloc(n * sizeof(*tmp));
	uint64_t total = 0;

	if (!prefix || !expect || !tmp)
		total = UINT64_MAX;	/* no collect pass then */
	for (unsigned k = 0; k < cols && total != UINT64_MAX; k++) {
		uint64_t m = column_prefixes(s, k, prefix, expect, tmp);

		for (uint64_t i = 0; i < m; i++)
			total += expect[i];
	}
	free(prefix);
	free(expect);
	free(tmp);
	return total;
}

/* ---- the passes ------------------------------------------------------------ */

/* The pass's plan: after the first, the buckets; then its digit. */
static int plan_pass(struct cli *c, struct gs_err *err)
{
	struct quantile_state *s = c->state;
	struct select_plan *pl = &s->plan;

	pl->key_bits = select_key_bits(c->job.dtype.type);
	pl->first = s->known == 0;
	pl->nhist = c->job.columns;
	c->job.select = pl;
	if (!pl->first && plan_buckets(c, err) < 0)
		return -1;
	pl->digit_bits = pick_digit(pl->nhist, pl->key_bits - s->known);
	pl->shift = pl->key_bits - s->known - pl->digit_bits;
	return 0;
}

/* Each run over the input starts here (--per-file runs one per operand):
 * the table afresh, and a pipe kept for the later passes. */
static int first_start(struct cli *c, struct gs_err *err)
{
	struct quantile_state *s = c->state;

	quantile_free(s);
	s->known = 0;
	set_table(c);
	if (s->passes[1].done && !input_rewindable(c->in) &&
	    spill_input(c, err) < 0)
		return -1;
	return plan_pass(c, err);
}

static int next_start(struct cli *c, struct gs_err *err)
{
	return plan_pass(c, err);
}

/* The buckets whole: every key below the known bits kept. */
static int collect_start(struct cli *c, struct gs_err *err)
{
	struct quantile_state *s = c->state;
	struct select_plan *pl = &s->plan;

	if (plan_pass(c, err) < 0)
		return -1;
	pl->digit_bits = 0;
	pl->shift = pl->key_bits - s->known;
	return 0;
}

/* A histogram pass done: every target one digit further; then the result,
 * or the next pass in the table (a collect pass where the buckets left are
 * small and more than one digit is left). */
static int select_done(struct cli *c, void *acc, struct sbuf *b,
		       struct gs_err *err)
{
	struct quantile_state *s = c->state;
	const struct select_plan *pl = &s->plan;
	unsigned left;

	if (pl->first && c->records == 0)
		return result_no_data(c, c->command->name, err);
	if (pl->first) {	/* also --per-file's total of one-pass runs */
		s->pass = s->known = 0;
		if (set_targets(c, acc, err) < 0)
			return -1;
	}
	if (advance(c, acc, err) < 0)
		return -1;
	s->known += pl->digit_bits;
	s->pass++;
	left = pl->key_bits - s->known;
	if (!left) {
		s->passes[s->pass] = end_pass;
		return quantile_emit(c, b, err);
	}
	s->passes[s->pass] = left > SELECT_DIGIT_BITS &&
		bucket_keys(s, c->job.columns) <= COLLECT_MAX ? collect_pass
							      : next_pass;
	s->passes[s->pass + 1] = end_pass;
	c->mute_operands = true;	/* the first pass reported them */
	return input_rewind(c->in, err);
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
	return quantile_emit(c, b, err);
}
