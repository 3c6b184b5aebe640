/*
 * plot.h - `hist --plot`: a histogram as horizontal bars on the terminal.
 * Many bins are grouped into at most PLOT_MAX_ROWS rows (256 byte values
 * become 32 rows of 8), ranged bins are labelled with their edges, each
 * column of a multi-column stream gets its own chart.
 */
#ifndef PLOT_H
#define PLOT_H

#include "acc.h"
#include "report.h"

#define PLOT_MAX_ROWS 32
/* The width a chart is drawn to, whatever COLUMNS or the terminal says:
 * narrower leaves no room for bars beside the labels, wider is no screen. */
#define PLOT_MIN_WIDTH 40
#define PLOT_MAX_WIDTH 1000

struct plot_opts {
	int width;		/* terminal columns */
	bool log;		/* bar length from log(1 + count) */
	bool color;		/* ANSI colour (stdout is a terminal, no NO_COLOR) */
	bool utf8;		/* block characters with eighth steps */
};

/* Settle width/color/utf8 from the terminal and environment (COLUMNS,
 * NO_COLOR, LC_ALL/LC_CTYPE/LANG) for output on fd. The width is the
 * terminal's, else COLUMNS (a decimal number; anything else is ignored),
 * else 80, clamped to PLOT_MIN_WIDTH..PLOT_MAX_WIDTH. */
void plot_opts_detect(struct plot_opts *o, int fd, bool log);

/* The value that per-value bin `bin` counts (i8 bin 0 is -128). */
int64_t hist_bin_value(const struct gs_job *job, uint64_t bin);

void plot_hist(struct sbuf *b, const struct gs_job *job, struct hist_acc *h,
	       const double *edges, const struct plot_opts *o);

#endif
