/*
 * numfmt.c - shortest round-trip formatting of doubles.
 *
 * The digits: try "%.{p-1}e" for p = 1, 2, ... and keep the first that
 * strtod reads back to the same bits (17 digits always do; glibc's printf and
 * strtod are correctly rounded, which makes this the shortest). When the
 * nearest p digits miss, the other neighbour may still hit: 2^-24 is
 * 5.9604644775390625e-08, and printf's tie goes to ...062, which reads back
 * lower, while ...063 reads back exact. So each p also tries the p-digit
 * strings rounded up and down (glibc's printf honours the rounding mode). The
 * layout
 * is Python's repr without a trailing ".0": plain decimals for exponents
 * -4..15 ("100", "0.0001", "1234.5"), scientific otherwise ("1e+16",
 * "1e-05"), made by moving the decimal point in the digits found.
 */
#include <fenv.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "numfmt.h"

static bool reads_back(const char *s, double v)
{
	double back = strtod(s, NULL);

	return memcmp(&back, &v, sizeof(v)) == 0;
}

/* p significant digits of v rounded in direction dir, into tmp. */
static void digits(char *tmp, size_t n, int p, double v, int dir)
{
	int saved = fegetround();

	fesetround(dir);
	snprintf(tmp, n, "%.*e", p - 1, v);
	fesetround(saved);
}

int fmt_double(char *buf, size_t n, double v)
{
	static const int dirs[3] = { FE_TONEAREST, FE_UPWARD, FE_DOWNWARD };
	char tmp[FMT_DOUBLE_MAX];
	int p, exp;

	if (isnan(v))
		return snprintf(buf, n, "nan");
	if (isinf(v))
		return snprintf(buf, n, v < 0 ? "-inf" : "inf");
	for (p = 1; p <= 17; p++) {
		int d;

		for (d = 0; d < 3; d++) {
			digits(tmp, sizeof(tmp), p, v, dirs[d]);
			if (reads_back(tmp, v))
				break;
		}
		if (d < 3)
			break;
	}
	exp = atoi(strchr(tmp, 'e') + 1);
	if (exp >= -4 && exp < 16) {
		/* the same digits laid out plainly: move the point */
		char plain[FMT_DOUBLE_MAX + 24], *o = plain;
		const char *m = tmp;

		if (*m == '-')
			*o++ = *m++;
		char dig[20];
		int nd = 0;

		for (; *m != 'e'; m++)
			if (*m != '.')
				dig[nd++] = *m;
		if (exp < 0) {
			*o++ = '0';
			*o++ = '.';
			for (int i = 0; i < -exp - 1; i++)
				*o++ = '0';
			for (int i = 0; i < nd; i++)
				*o++ = dig[i];
		} else {
			for (int i = 0; i <= exp; i++)
				*o++ = i < nd ? dig[i] : '0';
			if (nd > exp + 1) {
				*o++ = '.';
				for (int i = exp + 1; i < nd; i++)
					*o++ = dig[i];
			}
		}
		*o = '\0';
		return snprintf(buf, n, "%s", plain);
	}
	return snprintf(buf, n, "%s", tmp);
}
