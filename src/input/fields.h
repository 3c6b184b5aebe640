/*
 * fields.h - -F/--fields LIST: which columns of each record a command
 * sees, and in what order (fields.c).
 *
 * LIST is items separated by commas, each a 1-based column number, a
 * range as cut -f writes them (2-4, 3- to the last column, -2 from the
 * first), or a column name of --header's line (an item that is not a
 * number or range). Columns come out in the order of LIST, ranges
 * ascending; a column listed twice comes out twice (dot --pairs -F 1,1
 * is a sum of squares). Names cannot hold a comma.
 *
 * The projection: the input's records of width values, read whole from
 * the operands, cut to the listed columns as they are handed on. Records
 * straddle reads: a partial one waits for the rest.
 */
#ifndef FIELDS_H
#define FIELDS_H

#include <sys/types.h>
#include "gs.h"

struct fields;
struct headline;

/* Parse LIST; a usage error (err) for an empty item, a column 0, a range
 * that runs backwards. */
int fields_parse(const char *list, struct fields **f, struct gs_err *err);
void fields_free(struct fields *f);
/* item (as LIST writes one) after the columns *f lists: *f is replaced
 * by the longer list (hist --weights adds its column so). 0, or -1 with
 * err (*f unchanged). */
int fields_append(struct fields **f, const char *item, struct gs_err *err);

/* The highest column number f lists, at least 1: the width taken for
 * text that has no line to count (an empty input). */
unsigned fields_max(const struct fields *f);

/* The columns (0-based) f selects from records of width values, whose
 * header names are those of h (NULL: none), into a new array *cols of
 * *n. A usage error naming where (the operand) for a column past width,
 * a name h does not have (the names listed) or has twice. */
int fields_resolve(const struct fields *f, unsigned width,
		   const struct headline *h, const char *where,
		   unsigned **cols, unsigned *n, struct gs_err *err);

/* ---- the projection ---------------------------------------------------- */

struct proj;
struct input;
/* What the projection reads whole records from (input.c's reads). */
typedef ssize_t (*proj_read_fn)(struct input *in, void *buf, size_t n,
				int stall_ms, struct gs_err *err);

/* Records of width elements of type, read by read(in), cut to cols[0..n);
 * a partial last record is an error naming in's operand. NULL when out of
 * memory. */
struct proj *proj_new(const unsigned *cols, unsigned n, unsigned width,
		      enum gs_type type, proj_read_fn read, struct input *in);

/* As input_read: the cut records' bytes (> 0), 0 at the end, INPUT_STALL
 * or -1 with err filled. */
ssize_t proj_read(struct proj *p, void *buf, size_t n, int stall_ms,
		  struct gs_err *err);
void proj_reset(struct proj *p);	/* back to the first record */
void proj_free(struct proj *p);

#endif
