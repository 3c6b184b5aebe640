/*
 * numfmt.h - doubles as the shortest decimal text that reads back to the
 * same bits (OUTPUT.md, "Numbers").
 */
#ifndef NUMFMT_H
#define NUMFMT_H

#include <stddef.h>

/* Enough for any double: sign, 17 digits, point, exponent, NUL. */
#define FMT_DOUBLE_MAX 32

/* Write v as "%.{p}g" with the smallest p in 1..17 that round-trips, or
 * "nan", "inf", "-inf" ("-0" for negative zero). Returns the length, as
 * snprintf does (the output is cut to n - 1 bytes if n is too small). */
int fmt_double(char *buf, size_t n, double v);

#endif
