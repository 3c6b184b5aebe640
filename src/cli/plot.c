/*
 * plot.c - see plot.h.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "plot.h"

#define LABEL_MAX 48

/* COLUMNS as a whole decimal number (LONG_MAX when it is larger; the
 * caller clamps it), else 0: unset, empty, signed or junk is ignored. */
static long env_columns(void)
{
	const char *s = getenv("COLUMNS");
	char *end;
	long v;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end)
		return 0;
	return errno == ERANGE ? LONG_MAX : v;
}

void plot_opts_detect(struct plot_opts *o, int fd, bool log)
{
	struct winsize ws;
	const char *lc = getenv("LC_ALL");
	long cols = env_columns();

	o->log = log;
	o->width = 80;
	if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		o->width = ws.ws_col;
	else if (cols > 0)
		o->width = cols < PLOT_MAX_WIDTH ? (int)cols : PLOT_MAX_WIDTH;
	/* the chart's size follows the width: keep it what a screen shows */
	if (o->width < PLOT_MIN_WIDTH)
		o->width = PLOT_MIN_WIDTH;
	if (o->width > PLOT_MAX_WIDTH)
		o->width = PLOT_MAX_WIDTH;
	if (!lc || !*lc)
		lc = getenv("LC_CTYPE");
	if (!lc || !*lc)
		lc = getenv("LANG");
	o->utf8 = lc && (strstr(lc, "UTF-8") || strstr(lc, "utf8") ||
			 strstr(lc, "UTF8") || strstr(lc, "utf-8"));
	o->color = isatty(fd) && !getenv("NO_COLOR");
}

int64_t hist_bin_value(const struct gs_job *job, uint64_t bin)
{
	int64_t v = (int64_t)bin;

	if (job->dtype.type == GS_I8)
		v -= 128;
	else if (job->dtype.type == GS_I16)
		v -= 32768;
	return v;
}

/* The label of rows [first, last] of bins. */
static void label(char *s, const struct gs_job *job, const double *edges,
		  uint64_t first, uint64_t last)
{
	struct sbuf b;

	sb_init(&b);
	if (job->ranged) {
		sb_add(&b, "[");
		sb_double(&b, edges[first]);
		sb_add(&b, ", ");
		sb_double(&b, edges[last + 1]);
		sb_add(&b, last + 1 == job->bins ? "]" : ")");
	} else if (first == last) {
		sb_addf(&b, "%lld", (long long)hist_bin_value(job, first));
	} else {
		sb_addf(&b, "%lld-%lld", (long long)hist_bin_value(job, first),
			(long long)hist_bin_value(job, last));
	}
	snprintf(s, LABEL_MAX, "%s", b.p ? b.p : "");
	sb_free(&b);
}

static double scale(const struct plot_opts *o, uint64_t v)
{
	return o->log ? log1p((double)v) : (double)v;
}

/* A bar of len eighths of a cell. */
static void bar(struct sbuf *b, const struct plot_opts *o, long eighths)
{
	static const char *const part[8] = { "", "\u258f", "\u258e", "\u258d",
					     "\u258c", "\u258b", "\u258a", "\u2589" };

	for (long i = 0; i < eighths / 8; i++)
		sb_add(b, o->utf8 ? "\u2588" : "#");
	if (o->utf8)
		sb_add(b, part[eighths % 8]);
	else if (eighths % 8 >= 4)
		sb_add(b, "#");
}

static const char *column_color(const struct gs_job *job, uint64_t col)
{
	static const char *const rgb[3] = { "\033[31m", "\033[32m", "\033[34m" };

	return job->columns == 3 ? rgb[col] : "\033[36m";
}

static void chart(struct sbuf *b, const struct gs_job *job, struct hist_acc *h,
		  const double *edges, const struct plot_opts *o, uint64_t col)
{
	uint64_t group = (h->nbins + PLOT_MAX_ROWS - 1) / PLOT_MAX_ROWS;
	uint64_t rows = (h->nbins + group - 1) / group, max = 0;
	const uint64_t *cnt = hist_counts(h, col);
	char lab[LABEL_MAX];
	int lw = 0, cw = 1;

	uint64_t *sum = calloc(rows, sizeof(*sum));

	if (!sum)
		return;
	for (uint64_t r = 0; r < rows; r++) {
		uint64_t last = (r + 1) * group - 1 < h->nbins ? (r + 1) * group - 1 : h->nbins - 1;

		for (uint64_t i = r * group; i <= last; i++)
			sum[r] += cnt[i];
		max = sum[r] > max ? sum[r] : max;
		label(lab, job, edges, r * group, last);
		lw = (int)strlen(lab) > lw ? (int)strlen(lab) : lw;
	}
	for (uint64_t m = max; m >= 10; m /= 10)
		cw++;
	if (h->columns > 1)
		sb_addf(b, "column %llu\n", (unsigned long long)col);

	int room = o->width - lw - cw - 3;

	if (room < 10)
		room = 10;
	for (uint64_t r = 0; r < rows; r++) {
		uint64_t last = (r + 1) * group - 1 < h->nbins ? (r + 1) * group - 1 : h->nbins - 1;
		long eighths = max ? (long)(scale(o, sum[r]) / scale(o, max) * room * 8 + 0.5) : 0;

		label(lab, job, edges, r * group, last);
		sb_addf(b, "%*s %*llu ", lw, lab, cw, (unsigned long long)sum[r]);
		if (o->color)
			sb_add(b, column_color(job, col));
		bar(b, o, eighths);
		if (o->color)
			sb_add(b, "\033[0m");
		sb_add(b, "\n");
	}
	free(sum);
}

void plot_hist(struct sbuf *b, const struct gs_job *job, struct hist_acc *h,
	       const double *edges, const struct plot_opts *o)
{
	for (uint64_t col = 0; col < h->columns; col++) {
		if (col)
			sb_add(b, "\n");
		chart(b, job, h, edges, o, col);
	}
}
