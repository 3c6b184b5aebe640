/*
 * numbers.c - the strict number parsers of the options (see cli.h): the
 * whole string or nothing, no white space or sign that strto* would take,
 * range checked.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')	/* strtoull would skip white space and negate */
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);

	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

int parse_size(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')	/* strtoull would skip white space and negate */
		return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	unsigned shift = 0;

	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if ((*end == 'i' && end[1] == 'B' && shift) || (*end == 'B' && shift))
		end += *end == 'i' ? 2 : 1;
	if (*end || (shift && x > (UINT64_MAX >> shift)))
		return -1;
	*v = (uint64_t)x << shift;
	return 0;
}

int parse_double(const char *s, double *v)
{
	char *end;

	if (!*s || isspace((unsigned char)*s))	/* strtod skips it */
		return -1;
	errno = 0;
	double x = strtod(s, &end);

	if (errno == ERANGE && fabs(x) > 1)
		return -1;
	if (*end || !isfinite(x))
		return -1;
	*v = x;
	return 0;
}

int parse_range(const char *arg, double *lo, double *hi)
{
	char buf[128];
	const char *colon = strchr(arg + (arg[0] == '-'), ':');

	if (!colon || (size_t)(colon - arg) >= sizeof(buf))
		return -1;
	memcpy(buf, arg, (size_t)(colon - arg));
	buf[colon - arg] = '\0';
	return parse_double(buf, lo) < 0 || parse_double(colon + 1, hi) < 0 ? -1 : 0;
}
