/*
 * group_fold.h - --by's fast fold (group_fold.c): one integer key column
 * and one value column of a common type, folded by a loop made for those
 * types, keys in a small range through a direct array.
 */
#ifndef GROUP_FOLD_H
#define GROUP_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include "acc.h"

/* nrec records at d into g (its thread table made), as cpu_group.c's
 * loop would fold them, bit for bit: true; false, having done nothing,
 * where the job's columns are not of the kinds it knows. */
bool group_fold(const struct gs_job *job, struct group_acc *g,
		const unsigned char *d, size_t nrec);
/* The direct array a thread keeps (g->dense), freed. */
void group_fold_free(struct group_acc *g);

#endif
