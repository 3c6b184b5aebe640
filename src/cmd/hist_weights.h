/*
 * hist_weights.h - hist --weights COL and --density, and hist's result in
 * each format, counts too (hist_weights.c): what cmd_hist.c asks of them.
 * The kernels: cpu/cpu_hist_w.c.
 */
#ifndef HIST_WEIGHTS_H
#define HIST_WEIGHTS_H

#include "acc.h"
#include "cli.h"
#include "report.h"
#include "writer.h"

/* hist's and hist2d's --weights COL and --density, as ALGORITHM_OPT is
 * every command's --algorithm: the command's own ids, and help texts that
 * say what COL numbers and what a density divides by. */
#define HISTW_OPTS(WEIGHTS_ID, WEIGHTS_HELP, DENSITY_ID, DENSITY_HELP) \
	{ .name = "weights", .has_arg = required_argument, .arg = "COL", \
	  .help = WEIGHTS_HELP, .id = WEIGHTS_ID, \
	  .brief = "sum the weights in column COL per bin" }, \
	{ .name = "density", .has_arg = no_argument, .help = DENSITY_HELP, \
	  .id = DENSITY_ID, .brief = "bin densities, as numpy's density=True" }

/* Before anything is opened: the usage errors of --weights COL (NULL:
 * none) and --density, and -F's list made to end with COL, so that the
 * weights are the last column the job reads. 0, or -1 with err. */
int histw_check(struct cli *c, const char *col, bool density,
		struct gs_err *err);

/* Once the input is open: the job's weight column (job.weighted, wcol)
 * and, for records of mixed types, the values' type as job.dtype. 0, or
 * -1 with err. */
int histw_plan(struct cli *c, const char *col, struct gs_err *err);

/* hist's result in c->format into b: a row per bin (its value, or its
 * lo and hi edges, then each column's count), json, binary or npy, with
 * each bin's weight sum (job.weighted) or density in place of its count
 * where asked. edges: a ranged hist's nbins + 1. 0, or -1 with err. */
int hist_put(const struct cli *c, struct sbuf *b, struct hist_acc *h,
	     const double *edges, bool nonzero, bool density,
	     struct gs_err *err);

/* A 128-bit integer sum (two words, the low first; signed or not) as the
 * writer's value: u64 or i64 where it fits, else its decimal digits,
 * written into dec (I128_DEC bytes), and its value rounded once. */
#define I128_DEC 42	/* "-" and 39 digits, NUL */
struct wval histw_i128_value(const uint64_t *w, bool sign, char *dec);
double histw_i128_double(const uint64_t *w, bool sign);

#endif
