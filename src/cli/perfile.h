/*
 * perfile.h - --per-file: one result per operand, then their total, as
 * wc(1) prints one line per file and a total line.
 *
 * Each result is written exactly as a run over that operand alone would
 * print it (driver.c, cmd_merge.c, cmd_scan.c run them); this file keeps
 * them, and the writer of the format (writer.h) labels and joins them:
 *
 *   text       every line of a result ends with a tab and the operand's
 *              name ("total" for the total), so a one-line result reads as
 *              wc's "VALUE<TAB>NAME" and a table as grep -H's lines
 *   tsv, csv   the header once, with a last column "file"; every row ends
 *              with its operand's name (csv quotes it where it must)
 *   json       a list of the results, each with "file": the name, the
 *              total last with "file": null
 *   binary     the results one after another, the total last
 *   npy        one array: the results stacked along a new first axis
 *   state      each operand's state, no total (gpustat merge makes it)
 *
 * As wc's, the total comes only with two or more operands.
 */
#ifndef PERFILE_H
#define PERFILE_H

#include "cli.h"
#include "report.h"

struct perfile {
	int n;			/* results so far */
	struct sbuf *body;	/* each as its command formats it */
	const char **name;	/* its operand, or NULL for the total */
	struct sbuf *direct;	/* or every result straight into this */
};

/* Make room for n results; -1 when out of memory. */
int perfile_init(struct perfile *pf, int n);
/* Where c->format's results are joined as they come, one after another
 * (binary, state), each result straight into b (perfile_next's buffer:
 * --by's rows then stream, result_out.h), none kept apart. */
void perfile_direct(struct perfile *pf, const struct cli *c, struct sbuf *b);
/* The next result: a buffer to format it into, labelled name (NULL: the
 * total). Call with pf having room. */
struct sbuf *perfile_next(struct perfile *pf, const char *name);
/* The results, labelled and joined for c->format, into b; -1 with err
 * when an npy result is not one this program writes. */
int perfile_join(const struct cli *c, const struct perfile *pf,
		 struct sbuf *b, struct gs_err *err);
void perfile_free(struct perfile *pf);

#endif
