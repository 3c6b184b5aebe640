/*
 * textquote.c - quoted fields of text input (see textquote.h).
 */
#include <stdbool.h>
#include "textquote.h"

/* textin.c's separators: white space, a comma, a newline. */
static bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' ||
	       c == ',' || c == '\n';
}

int textquote_field(char **pp, const char *end, const char **s, size_t *n)
{
	char *q = *pp + 1, *w = NULL;	/* w: where the value goes on, */

	*s = q;				/* once a "" moved it back */
	for (; q < end && *q != '\n'; q++) {
		if (*q != '"') {
			if (w)
				*w++ = *q;
			continue;
		}
		if (q + 1 < end && q[1] == '"') {
			if (!w)
				w = q;
			*w++ = '"';
			q++;
			continue;
		}
		*n = (size_t)((w ? w : q) - *s);
		*pp = q + 1;
		return *pp < end && !is_sep(**pp) ? TQ_AFTER : TQ_OK;
	}
	*pp = q;
	return TQ_OPEN;
}

size_t textquote_close(const char *p, size_t i, size_t n)
{
	for (i++; i < n && p[i] != '\n'; i++) {
		if (p[i] != '"')
			continue;
		if (i + 1 < n && p[i + 1] == '"')
			i++;
		else
			return i;
	}
	return i - 1;
}

size_t textquote_cut(const char *p, size_t from, size_t n)
{
	size_t cut = 0;

	for (size_t i = from; i < n; i++) {
		if (is_sep(p[i])) {
			if (i > from && !is_sep(p[i - 1]))
				cut = i;
			continue;
		}
		if (p[i] == '"' && (i == from || is_sep(p[i - 1])))
			i = textquote_close(p, i, n);
		/* else inside a field: its bytes */
	}
	return cut;
}
