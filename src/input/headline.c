/*
 * headline.c - the first line of a text operand (see headline.h).
 *
 * A header line is gathered whole (it may be longer than the bytes the
 * input peeks at once), checked as it comes to be text (a raw file read
 * with --header fails at its first control byte, not after megabytes),
 * then split into names once, for the first operand; later operands'
 * lines are only compared with the first's.
 */
#include <stdlib.h>
#include <string.h>
#include "fmthdr.h"
#include "headline.h"
#include "textquote.h"

/* The longest header line: a million one-letter names and their commas
 * (-c's cap is 2^20 columns) fit twice over. */
#define HEADLINE_MAX ((size_t)4 << 20)

struct headline {
	bool names;		/* --header, else a count */
	bool counted;		/* a count: the first line was looked at */
	unsigned width;
	char *first;		/* the first operand's line, NUL-ended */
	char *namebuf;		/* its names, each NUL-ended */
	size_t *name_at;	/* [width]: where each begins in namebuf */
	char *line;		/* the line being gathered */
	size_t len, cap;
};

struct headline *headline_new(bool names)
{
	struct headline *h = calloc(1, sizeof(*h));

	if (h)
		h->names = names;
	return h;
}

void headline_free(struct headline *h)
{
	if (!h)
		return;
	free(h->first);
	free(h->namebuf);
	free(h->name_at);
	free(h->line);
	free(h);
}

bool headline_due(const struct headline *h)
{
	return h && (h->names || !h->counted);
}

void headline_begin(struct headline *h)
{
	h->len = 0;
}

unsigned headline_width(const struct headline *h)
{
	return h ? h->width : 0;
}

bool headline_named(const struct headline *h)
{
	return h && h->names && h->first;
}

const char *headline_line(const struct headline *h)
{
	return h && h->first ? h->first : "";
}

const char *headline_name(const struct headline *h, unsigned i)
{
	return h->namebuf + h->name_at[i];
}

/* The separators of textin.h's fields. */
static bool is_sep(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' ||
	       c == ',';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* ---- a count --------------------------------------------------------- */

/* The fields of the first non-empty line of p[0..n), counted as textin.c
 * counts them; full: p is all the bytes there can be room for. */
static int count_line(struct headline *h, const char *name, const uint8_t *p,
		      size_t n, bool end, struct gs_err *err)
{
	bool full = n >= FMT_HEADER_MAX, prev = false, comma = false;
	unsigned f = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\n') {
			f += comma;	/* a comma at the end: an empty field */
			if (f)
				break;
			prev = comma = false;
		} else if (p[i] == ',') {	/* two commas: an empty field */
			f += !prev || comma;
			prev = comma = true;
		} else if (!is_sep(p[i]) && (i == 0 || is_sep(p[i - 1]) ||
					     p[i - 1] == '\n')) {
			f++;
			prev = true;
			comma = false;
			if (p[i] == '"')	/* one field, whatever it holds */
				i = textquote_close((const char *)p, i, n);
		}
	}
	if (i == n && end)
		f += comma;
	if (i == n && !end && !full)
		return 0;
	if (i == n && !end)
		return gs_fail(err, GS_ERUNTIME, name, "--fields: the first line "
			       "is longer than %d bytes, too long to count its "
			       "fields: give -c N", FMT_HEADER_MAX);
	h->counted = f > 0;	/* else the next operand's first line */
	h->width = f;
	return 1;
}

/* ---- a header -------------------------------------------------------- */

/* Whether s holds a comma outside double quotes: then names are split at
 * commas, else at white space. */
static bool has_comma(const char *s)
{
	bool quoted = false;

	for (; *s; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (*s == ',' && !quoted)
			return true;
	}
	return false;
}

/* A name in double quotes at s (past the opening one) into *o: where it
 * ends, past the closing quote, or NULL when none closes it. */
static const char *quoted_name(const char *s, char **o)
{
	for (; *s; s++) {
		if (*s == '"' && s[1] != '"')
			return s + 1;
		if (*s == '"')
			s++;
		*(*o)++ = *s;
	}
	return NULL;
}

/* The names of line s into namebuf and name_at (width of them). */
static int split_names(struct headline *h, const char *s, const char *name,
		       struct gs_err *err)
{
	bool csv = has_comma(s);
	size_t n = strlen(s), k = 0;
	char *o;

	h->namebuf = malloc(n + 1);
	h->name_at = malloc((n + 1) * sizeof(*h->name_at));
	if (!h->namebuf || !h->name_at)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	o = h->namebuf;
	for (;;) {
		char *start = o;

		while (is_blank(*s))
			s++;
		h->name_at[k++] = (size_t)(start - h->namebuf);
		if (*s == '"' && !(s = quoted_name(s + 1, &o)))
			return gs_fail(err, GS_ERUNTIME, name, "header line: a "
				       "quote that does not close");
		for (; *s && (csv ? *s != ',' : !is_blank(*s)); s++)
			*o++ = *s;
		while (csv && o > start && is_blank(o[-1]))
			o--;
		*o++ = '\0';
		while (is_blank(*s))
			s++;
		if (!*s)
			break;
		s += csv;	/* the comma */
	}
	h->width = (unsigned)k;
	return 0;
}

int headline_mismatch(const char *line, const char *first, const char *name,
		      struct gs_err *err)
{
	return gs_fail(err, GS_ERUNTIME, name, "--header: header '%.80s%s' is "
		       "not the first operand's '%.80s%s'", line,
		       strlen(line) > 80 ? "..." : "", first,
		       strlen(first) > 80 ? "..." : "");
}

/* The gathered line as the header: empty is an error, the first is kept
 * and split, the others must be it. */
static int header_done(struct headline *h, const char *name,
		       struct gs_err *err)
{
	char *s = h->line;
	size_t n = h->len, i;

	if (n && s[n - 1] == '\n')
		n--;
	if (n && s[n - 1] == '\r')
		n--;
	if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3, n -= 3;
	s[n] = '\0';
	h->len = 0;
	for (i = 0; i < n && is_blank(s[i]); i++)
		;
	if (i == n)
		return gs_fail(err, GS_ERUNTIME, name, "--header: the first "
			       "line is empty, not column names");
	if (!h->first) {
		if (!(h->first = strdup(s)))
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		return split_names(h, s, name, err);
	}
	return strcmp(s, h->first) ? headline_mismatch(s, h->first, name, err)
				   : 0;
}

/* Bytes of a header line: text only (white space, printable ASCII, UTF-8);
 * a control byte says the operand is binary. */
static int header_bytes(const uint8_t *p, size_t n, size_t at,
			const char *name, struct gs_err *err)
{
	for (size_t i = 0; i < n; i++)
		if ((p[i] < ' ' && p[i] != '\t' && p[i] != '\r' &&
		     p[i] != '\n') || p[i] == 0x7f)
			return gs_fail(err, GS_ERUNTIME, name, "--header: the "
				       "first line is not text (byte 0x%02x at "
				       "%zu): --header reads text only", p[i],
				       at + i);
	return 0;
}

static int take_header(struct headline *h, const char *name, const uint8_t *p,
		       size_t n, bool end, size_t *used, struct gs_err *err)
{
	const uint8_t *nl = memchr(p, '\n', n);
	size_t k = nl ? (size_t)(nl - p) + 1 : n;

	*used = 0;
	if (header_bytes(p, k, h->len, name, err) < 0)
		return -1;
	if (h->len + k >= HEADLINE_MAX)
		return gs_fail(err, GS_ERUNTIME, name, "--header: the first "
			       "line is longer than %zu bytes", HEADLINE_MAX);
	if (h->len + k + 1 > h->cap) {
		size_t cap = (h->len + k + 1) * 2;
		char *line = realloc(h->line, cap);

		if (!line)
			return gs_fail(err, GS_ERUNTIME, "", "out of memory");
		h->line = line;
		h->cap = cap;
	}
	memcpy(h->line + h->len, p, k);
	h->len += k;
	*used = k;
	if (!nl && !end)
		return 0;
	if (h->len == 0)	/* an empty operand: no header, no records */
		return 1;
	return header_done(h, name, err) < 0 ? -1 : 1;
}

int headline_take(struct headline *h, const char *name, const uint8_t *p,
		  size_t n, bool end, size_t *used, struct gs_err *err)
{
	if (h->names)
		return take_header(h, name, p, n, end, used, err);
	*used = 0;
	return count_line(h, name, p, n, end, err);
}
