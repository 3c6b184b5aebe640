/*
 * perfile.h - --per-file: one result per operand, then their total, as
 * wc(1) prints one line per file and a total line.
 *
 * Each result is written exactly as a run over that operand alone would
 * print it (driver.c and cmd_merge.c run them; scan's --per-file never
 * comes here: cmd_scan.c streams each operand's scan to the output),
 * into a buffer that hands its bytes on to the format's writer (writer.h)
 * a MiB at a time as they are made, so no result is held whole (--by's
 * rows, a row per key, stream through it into the output: result_out.h);
 * the writer labels and joins them:
 *
 *   text       every line of a result ends with a tab and the operand's
 *              name ("total" for the total), so a one-line result reads as
 *              wc's "VALUE<TAB>NAME" and a table as grep -H's lines
 *   tsv, csv   the header once, with a last column "file"; every row ends
 *              with its operand's name (csv quotes it where it must)
 *   json       a list of the results, each with "file": the name, the
 *              total last with "file": null
 *   binary     the results one after another, the total last
 *   npy        one array: the results stacked along a new first axis (its
 *              header from the first result's, whose shape every other
 *              result's must have)
 *   state      each operand's state, no total (gpustat merge makes it)
 *
 * As wc's, the total comes only with two or more operands.
 */
#ifndef PERFILE_H
#define PERFILE_H

#include "cli.h"
#include "report.h"
#include "writer.h"

struct perfile {
	const struct wformat *f;
	struct wjoin j;		/* the results joined into j.b */
	struct sbuf cur;	/* the result being made, drained into j */
	struct sbuf *direct;	/* or every result straight into this */
	bool started;		/* the result's start was called */
	bool failed;		/* the join failed: err says why */
	struct gs_err err;
};

/* Results of c's run over `operands` operands (the total after them where
 * there are two or more, but for states) to be joined into b. */
void perfile_init(struct perfile *pf, const struct cli *c, int operands,
		  struct sbuf *b);
/* The next result: a buffer to format it into, labelled name (NULL: the
 * total); perfile_end() after it. */
struct sbuf *perfile_next(struct perfile *pf, const char *name);
/* The end of the result that perfile_next() began, which returned rc:
 * rc, or -1 with err where joining it failed (an npy result of another
 * shape than the first's, or none this program writes; an image). */
int perfile_end(struct perfile *pf, int rc, struct gs_err *err);
/* After the last result's end: what closes the joined results. */
int perfile_join(struct perfile *pf, struct gs_err *err);
void perfile_free(struct perfile *pf);

#endif
