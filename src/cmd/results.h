/*
 * results.h - one row of results, one value per column, as sum, reduce and
 * dot print it, described for the writer (writer.h): a line of values, one
 * json object with "result", or 8 bytes a value (f64, or i64/u64 for
 * integer types) for binary and npy. docs/OUTPUT.md has the formats.
 */
#ifndef RESULTS_H
#define RESULTS_H

#include "acc.h"
#include "cli.h"
#include "report.h"

/* r[0..n) into b in c->format: name is the value column's name, op the
 * reduce op's name for json (or NULL); the count is c->records. Returns 0,
 * or -1 with err filled (an integer that binary output cannot hold). */
int results_format(struct cli *c, const char *name, const char *op,
		   const struct result *r, unsigned n, struct sbuf *b,
		   struct gs_err *err);

/* r as the writer's value (an exact integer's digits, or an f64; NaN for
 * none): how the row above writes each column's. */
struct wval;
void results_value(const struct result *r, struct wval *v);

/* The error of a result that no data has (min, max, mode, quantile,
 * median: numpy raises on an empty array): "no data: empty input has no
 * WHAT", at the one operand (or stdin), else at none: --per-file names the
 * operand. Returns -1. */
int result_no_data(const struct cli *c, const char *what, struct gs_err *err);

#endif
