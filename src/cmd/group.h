/*
 * group.h - --by COLS (-g, as datamash): sum, count, stats and reduce
 * --op sum|min|max per key (group.c, group_out.c; the operation: cpu_group.c),
 * quantile, median and mode per key (gvals_out.c; cpu_gvals.c).
 *
 * COLS lists key columns as -F lists columns (1-based numbers, ranges);
 * the value columns are the others, or, with -F, those -F picks (a key
 * column among them is a value too). The records are binary (-c N, -t
 * T1,T2,..., a structured .npy), or text, whose keys are strings (their
 * ids in the records: textkeys.h). One result row per key, keys ascending
 * (text: by their bytes), key columns first.
 */
#ifndef GROUP_H
#define GROUP_H

#include "command.h"

#define OPT_BY 901
#define GROUP_OPT                                                          \
	{ .name = "by", .short_name = 'g', .has_arg = required_argument,    \
	  .arg = "COLS",                                                    \
	  .help = "one result per key: COLS are the key columns (as -F\n"  \
		  "numbers them), the others (or -F's) the values; a row\n" \
		  "per key, keys ascending (text's are strings, by\n"      \
		  "their bytes), key columns first",                       \
	  .id = OPT_BY, .brief = "group by key columns" }

/* The rows of count's and stats' own options: --by alone. */
extern const struct opt_spec group_opts[];

/* --by's value (the command's option() hands OPT_BY here). */
int group_option(struct cli *c, const char *arg, struct gs_err *err);
/* Before opening: what --by cannot be combined with, and -F's columns
 * made the keys then -F's (a command's check). */
int group_check(struct cli *c, struct gs_err *err);
/* After opening, with --by: the job's key and value columns, and the one
 * pass of CMD_GROUP whose result is what's, into *passes; without --by
 * nothing. 0 or -1 with err. */
int group_plan(struct cli *c, enum gs_group_what what,
	       const struct pass **passes, struct gs_err *err);

/* With --by, for quantile, median and mode (gvals_out.c): the job's key
 * and value columns as group_plan's (ranks: gs_group.ranks), and own (a
 * pass of CMD_GVALS) into *passes. 0 or -1 with err. */
int group_plan_with(struct cli *c, const struct pass *own, bool ranks,
		    const struct pass **passes, struct gs_err *err);

/* The one pass of a grouped run, and whether cmd takes --by (merge:
 * the pass of a grouped run's states). */
extern const struct pass group_passes[];
bool group_by_option(const struct command *cmd);

/* Text input's keys (strings, their ids in the records), or NULL. */
struct textkeys;
const struct textkeys *group_text_keys(void);

/* Text keys (strings of tk): rows idx[0..n) put in the order of their
 * keys' bytes, column by column (a shorter key first where one is the
 * other's start), as sort(1) in the C locale; id(ctx, row, k) is key
 * column k's string id (group_out.c's rows, gvals_out.c's runs), read
 * once a row. 0, or -1: out of memory (idx as it was). */
int group_sort_text(const struct textkeys *tk, size_t *idx, size_t n,
		    unsigned nk,
		    uint64_t (*id)(const void *ctx, size_t row, unsigned k),
		    const void *ctx);

/* The result of a grouped pass (group_out.c): a row per key. */
int group_done(struct cli *c, void *acc, struct sbuf *b, struct gs_err *err);

#endif
