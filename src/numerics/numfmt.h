/*
 * numfmt.h - numbers as text: doubles as the shortest decimal text that
 * reads back to the same bits (OUTPUT.md, "Numbers"), and integers.
 */
#ifndef NUMFMT_H
#define NUMFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Enough for any double: sign, 17 digits, point, exponent, NUL. */
#define FMT_DOUBLE_MAX 32
/* Enough for any uint64_t: 20 digits and a NUL. */
#define FMT_U64_MAX 21

/* Write v as "%.{p}g" with the smallest p in 1..17 that round-trips (the
 * p-digit decimal nearest v among those that do), laid out as Python's repr
 * without ".0", or "nan", "inf", "-inf" ("-0" for negative zero). Returns
 * the length, as snprintf does (the output is cut to n - 1 bytes if n is too
 * small). */
int fmt_double(char *buf, size_t n, double v);

/* fmt_double's text by integer arithmetic alone, into out; -1 where that
 * cannot decide (fmt_double then asks fmt_double_slow). */
int fmt_double_fast(char out[FMT_DOUBLE_MAX], double v);

/* The same text by printf and strtod, trying p = min_digits..17 digits
 * (min_digits 1 is the whole search; the reference that tests compare the
 * fast path with). Some 50 us a number. */
int fmt_double_slow(char *buf, size_t n, double v, int min_digits);

/* v in decimal into out; returns the length. */
int fmt_u64(char out[FMT_U64_MAX], uint64_t v);

/* Enough for any 128-bit magnitude with a sign: 39 digits, '-', NUL. */
#define FMT_U128_MAX 41

/* (neg ? -m : m) in decimal into buf (>= FMT_U128_MAX bytes): exact
 * integer results (sums, products, scans' overflow messages). */
void u128_to_dec(unsigned __int128 m, bool neg, char *buf);

#endif
