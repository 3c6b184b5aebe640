/*
 * headline.h - the first line of a text operand, read before its records
 * (the input's HEADLINE state, operand.c). Private to the input layer and
 * the CLI.
 *
 * With --header (names) the first line of every text operand is its
 * column names: taken off the payload, so the records begin on line 2,
 * and each operand's line must be the first operand's (CSV shards each
 * carry their header). Names are separated by commas, or by white space
 * where the line has no comma outside quotes; a name in double quotes
 * may hold either ("" is a quote, as RFC 4180 has it); a UTF-8 BOM before
 * the line and a CR after it are not part of it.
 *
 * Without names (-F on text without -c), the stream's first non-empty
 * line is only looked at: its field count, as textin.h counts fields, is
 * the record width. It must lie within the bytes the input peeks
 * (FMT_HEADER_MAX); a longer one is an error (-c N gives the width).
 */
#ifndef HEADLINE_H
#define HEADLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gs.h"

struct headline;

/* names: --header; else the first line's fields are counted. NULL when
 * out of memory. */
struct headline *headline_new(bool names);
void headline_free(struct headline *h);

/* Whether the next text operand's first line is for headline_take: every
 * operand's with names, else until a line was counted. */
bool headline_due(const struct headline *h);
/* An operand's first line begins: what an operand that failed before its
 * line was whole left behind is dropped. */
void headline_begin(struct headline *h);

/* The operand's first bytes p[0..n); end: the operand ends with them.
 * Returns 1 when its first line is done with, 0 for more bytes, or -1
 * with err filled, naming the operand name (a line too long; names: one
 * that is empty, not text, or not the first operand's). *used: the bytes
 * taken off the payload (names: the line's, its newline included; a count
 * takes none). A count is done at FMT_HEADER_MAX bytes without a newline,
 * the most the input peeks at once. */
int headline_take(struct headline *h, const char *name, const uint8_t *p,
		  size_t n, bool end, size_t *used, struct gs_err *err);

/* The record width the line gives: the names of the first operand's
 * header, or the count; 0 while unknown. */
unsigned headline_width(const struct headline *h);
bool headline_named(const struct headline *h);	/* names were read */

/* The header's line (BOM and CR left out), for comparing two streams'. */
const char *headline_line(const struct headline *h);

/* The error of an operand (name) whose header line is not the first's. */
int headline_mismatch(const char *line, const char *first, const char *name,
		      struct gs_err *err);

/* Name i (0-based) of the header. */
const char *headline_name(const struct headline *h, unsigned i);

#endif
