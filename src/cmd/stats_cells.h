/*
 * stats_cells.h - the ten statistics of one column as stats prints them
 * (cmd_stats.c), for the commands that print them too (group.c: one row
 * per key).
 */
#ifndef STATS_CELLS_H
#define STATS_CELLS_H

#include "acc.h"
#include "ksum.h"
#include "writer.h"

enum { NSTATS = 10 };
/* count nan min max sum mean pvar svar pstdev sstdev */
extern const char *const stat_names[NSTATS];

/* One statistic of one column: the f64 (what binary output writes and text
 * prints, formatted only then) or an exact integer's digits. Small, as a
 * run over a million columns keeps ten of them per column: an integer here
 * is a count, a min or max, or a sum of at most 2^63 values below 2^64 in
 * magnitude, so below 2^127: 39 digits and a sign. */
#define CELL_INT_MAX 48
struct cell {
	double f;
	bool is_int;		/* text holds it exactly (json prints it too) */
	bool none;		/* no value (the min of no data): an empty
				 * field, json's null, NaN in binary */
	char text[CELL_INT_MAX];
};

/* The statistics of a column of type t with state s into cells[NSTATS]
 * (zeroed by the caller), and one of them as the writer's value. */
void column_cells(enum gs_type t, const struct stats_col *s,
		  struct cell *cells);
struct wval cell_value(const struct cell *c);
/* The same cells from a key's compact sums s1, s2 (ksum.h; s's xsums
 * unread): false, cells untouched, where they do not hold them (a wide
 * or special sum, no values: column_cells then). */
bool column_cells_compact(enum gs_type t, const struct stats_col *s,
			  const struct ksum *s1, const struct ksum *s2,
			  struct cell *cells);

#endif
