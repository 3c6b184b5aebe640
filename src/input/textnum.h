/*
 * textnum.h - one decimal field to the nearest value of an element type
 * (--text). Floats are correctly rounded (round to nearest, ties to even,
 * from the exact decimal value, as strtod promises), f16/bf16/f32 rounded
 * once, never through a double's rounding. Integers are exact.
 *
 * What a float field may be is what Python's float() accepts, less its
 * digit separators: an optional sign, then digits with an optional '.'
 * (at least one digit), an optional exponent (e or E, optional sign,
 * digits), or "inf", "infinity", "nan" in any case. An integer field is an
 * optional sign and digits, as Python's int() takes them ("1.0" and "1e3"
 * are not integers). The field holds no white space or separators: the
 * caller cuts the line into fields.
 */
#ifndef TEXTNUM_H
#define TEXTNUM_H

#include <stdbool.h>
#include <stddef.h>
#include "gs.h"

enum { TEXTNUM_OK = 0, TEXTNUM_INVALID = -1, TEXTNUM_RANGE = -2 };

/* Parse s[0..n) and store the value in out in host byte order: TEXTNUM_OK,
 * TEXTNUM_INVALID (not a number of the type's syntax) or TEXTNUM_RANGE (an
 * integer the type cannot hold). */
typedef int (*textnum_fn)(const char *s, size_t n, void *out);

/* The parser for a type; boolean: numpy's bool (u8 of 0 and 1 only). */
textnum_fn textnum_parser(enum gs_type t, bool boolean);

#endif
