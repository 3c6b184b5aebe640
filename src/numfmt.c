/*
 * numfmt.c - shortest round-trip formatting of doubles: try "%.{p}g" for
 * p = 1, 2, ... and keep the first that strtod reads back to the same bits.
 * 17 digits always round-trip, so the loop ends. glibc's printf and strtod
 * are both correctly rounded, which is what makes this shortest.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "numfmt.h"

int fmt_double(char *buf, size_t n, double v)
{
	char tmp[FMT_DOUBLE_MAX];
	int p, len = 0;

	if (isnan(v))
		return snprintf(buf, n, "nan");
	if (isinf(v))
		return snprintf(buf, n, v < 0 ? "-inf" : "inf");
	for (p = 1; p <= 17; p++) {
		len = snprintf(tmp, sizeof(tmp), "%.*g", p, v);
		if (memcmp(&(double){ strtod(tmp, NULL) }, &v, sizeof(v)) == 0)
			break;
	}
	return snprintf(buf, n, "%s", tmp) < 0 ? -1 : len;
}
