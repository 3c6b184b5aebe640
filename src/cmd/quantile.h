/*
 * quantile.h - what cmd_quantile.c (options and output) and
 * quantile_passes.c (the passes of radix select) share: the command's
 * state.
 */
#ifndef QUANTILE_H
#define QUANTILE_H

#include "command.h"
#include "quantile_math.h"
#include "select.h"

#define MAX_Q 4096
/* The passes a run can take: one per digit of 4 bits or more of a 64-bit
 * key, a collect pass, and the end of the table. */
#define MAX_PASSES 18

/* One order statistic being found: the key bits found so far (known of
 * them), its rank within the bucket those bits name, and how many keys
 * that bucket holds. */
struct target {
	uint64_t prefix, rem, expect;
};

struct quantile_state {
	struct qdec q[MAX_Q];	/* as typed */
	unsigned nq;
	enum qmethod method;
	bool median;
	/* the passes: the table the driver runs, which each pass extends or
	 * ends (quantile_passes.c), and the bits of the keys found so far */
	struct pass passes[MAX_PASSES];
	unsigned pass, known;		/* the pass's entry; key bits found */
	struct select_plan plan;
	uint64_t *prefix, *first_of, *coff;
	uint64_t records;	/* of the first pass */
	uint64_t *count, *nan;	/* per column, from the first pass */
	struct qpick *picks;	/* [column][q] */
	struct target *t;	/* [column][q][lo, hi]: their keys at the end */
	uint64_t nan_total;
};

struct wval;	/* writer.h */

/* One result: its f64, and an integer element's exact digits. */
struct qcell {
	double f;
	bool is_int;
	char text[24];
};

/* The result p picks of values of type t whose select keys (select.h)
 * at its ranks lo and hi are lo_key and hi_key, and how every format
 * writes it (cmd_quantile.c). */
void quantile_cell(enum gs_type type, const struct qpick *p, uint64_t lo_key,
		   uint64_t hi_key, struct qcell *cell);
struct wval quantile_wval(const struct qcell *x);

/* The passes for c's type and columns (command.plan). */
int quantile_plan(struct cli *c, const struct pass **passes, struct gs_err *err);
/* Free what the passes made. */
void quantile_free(struct quantile_state *s);
/* The result once every target's key is found (cmd_quantile.c): b gets
 * it in c's format. */
int quantile_emit(struct cli *c, struct sbuf *b, struct gs_err *err);

#endif
