/*
 * textdetect.c - is an operand decimal text? (see textdetect.h)
 *
 * Two passes over the prefix: its bytes (ASCII text or valid UTF-8), then
 * its fields, each parsed by the f64 parser of --text. Once per operand,
 * on at most TEXT_PREFIX bytes, so plain loops.
 */
#include <stdio.h>
#include <string.h>
#include "fmthdr.h"
#include "textdetect.h"
#include "textnum.h"
#include "textquote.h"

_Static_assert(TEXT_PREFIX <= FMT_HEADER_MAX,
	       "input.c peeks the prefix into its header buffer");

static const uint8_t bom[3] = { 0xef, 0xbb, 0xbf };

/* The largest field or line quoted in a message. */
#define QUOTE_MAX 40

static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_sep(uint8_t c)
{
	return is_blank(c) || c == ',' || c == '\n';
}

/* Bytes of the character at p[0..n) when it is text (printable ASCII,
 * white space, or a UTF-8 sequence that is neither overlong nor a
 * surrogate nor past U+10FFFF); 0 when it is not; -1 when n cuts it. */
static int text_char(const uint8_t *p, size_t n)
{
	uint8_t c = p[0], lo = 0x80, hi = 0xbf;
	int len, i;

	if ((c >= 0x20 && c < 0x7f) || c == '\n' || is_blank(c))
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i < len; i++, lo = 0x80, hi = 0xbf) {
		if ((size_t)i >= n)
			return -1;
		if (p[i] < lo || p[i] > hi)
			return 0;
	}
	return len;
}

/* Whether p[0..n) is all text; a character cut by the end of the prefix
 * is text unless the operand ends there (cut_ok false). */
static bool all_text(const uint8_t *p, size_t n, bool cut_ok)
{
	size_t i;
	int k;

	for (i = 0; i < n; i += (size_t)k)
		if ((k = text_char(p + i, n - i)) <= 0)
			return k < 0 && cut_ok;
	return true;
}

/* s[0..n) quoted into buf (QUOTE_MAX + 4 bytes) for a message: cut with
 * "..." before a character, never inside one, once QUOTE_MAX - 4 bytes
 * are written; a tab shown as \t. */
static void quote(char *buf, const uint8_t *s, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (k >= QUOTE_MAX - 4 && (s[i] & 0xc0) != 0x80 && i + 1 < n) {
			strcpy(buf + k, "...");
			return;
		}
		if (s[i] == '\t')
			buf[k++] = '\\', buf[k++] = 't';
		else
			buf[k++] = (char)s[i];
	}
	buf[k] = '\0';
}

/* A field that is not a number, and where. */
struct bad_field {
	bool set;
	unsigned long long line, field;
	char tok[QUOTE_MAX + 4];
};

/* The fields of the prefix, as a header line and the lines after it. */
struct fields {
	const uint8_t *head;	/* the first line with fields */
	size_t head_len;
	size_t rest;		/* fields in the lines after it */
	bool lines;		/* a line of fields ended with a newline */
	bool rest_empty;	/* an empty field in the lines after it */
	struct bad_field head_bad, rest_bad;	/* the first of each */
};

static void note_field(struct fields *f, const uint8_t *s, size_t n,
		       unsigned long long line, unsigned long long field,
		       bool in_head)
{
	struct bad_field *b = in_head ? &f->head_bad : &f->rest_bad;
	double v;

	f->rest += !in_head;
	if (n == 0) {	/* --text's error: left to it, but no number */
		f->rest_empty |= !in_head;
		return;
	}
	if (b->set || textnum_parser(GS_F64, false)((const char *)s, n, &v) ==
		      TEXTNUM_OK)
		return;
	b->set = true;
	b->line = line;
	b->field = field;
	quote(b->tok, s, n);
}

/* Every field of p[0..n) but a last one that end does not close. Fields
 * are counted as --text counts them: two commas, or one that begins or
 * ends a line, hold an empty field. */
static void scan_fields(const uint8_t *p, size_t n, bool end, struct fields *f)
{
	unsigned long long line = 1, field = 0, head_line = 0;
	size_t i = 0, s, v, vn = 0;
	bool prev = false, comma = false, word = false;

	memset(f, 0, sizeof(*f));
	while (i < n) {
		if (p[i] == '\n') {
			if (comma)
				note_field(f, p + i, 0, line, ++field,
					   !f->head || line == head_line);
			f->lines |= word;
			line++;
			field = 0;
			prev = comma = word = false;
			i++;
			continue;
		}
		if (p[i] == ',') {
			if (!prev || comma)
				note_field(f, p + i, 0, line, ++field,
					   !f->head || line == head_line);
			prev = comma = true;
			i++;
			continue;
		}
		if (is_sep(p[i])) {
			i++;
			continue;
		}
		s = i;
		v = i;
		if (p[i] == '"') {	/* a quoted field: its value (textquote.h) */
			i = textquote_close((const char *)p, i, n) + 1;
			v = p[i - 1] == '"' && i - 1 > s && (i == n || is_sep(p[i]))
			    ? s + 1 : s;
			vn = i - 1 - v;
		}
		for (; i < n && !is_sep(p[i]); i++)
			;
		if (i == n && !end)
			break;
		if (v == s)	/* as it is */
			vn = i - s;
		if (!f->head) {
			const uint8_t *nl = memchr(p + s, '\n', n - s);

			for (f->head = p + s; f->head > p && f->head[-1] != '\n';)
				f->head--;
			f->head_len = (size_t)((nl ? nl : p + n) - f->head);
			head_line = line;
		}
		note_field(f, p + v, vn, line, ++field, line == head_line);
		prev = word = true;
		comma = false;
	}
	if (end && comma)
		note_field(f, p + n, 0, line, ++field, !f->head || line == head_line);
	if (f->head_len && f->head[f->head_len - 1] == '\r')
		f->head_len--;
}

/* The bytes of a UTF-8 BOM at p[0..n) into v->bom; TEXT_MORE where the
 * bytes so far could begin one and more may come. */
static void skip_bom(const uint8_t *p, size_t n, bool end,
		     struct text_verdict *v)
{
	size_t k = n < sizeof(bom) ? n : sizeof(bom);

	v->kind = TEXT_NUMBERS;
	if (memcmp(p, bom, k) != 0)
		return;
	if (k == sizeof(bom))
		v->bom = k;
	else if (!end)
		v->kind = TEXT_MORE;
}

/* The verdict on text whose fields are f (whole: the operand's every
 * byte): the first field that is not a number decides. */
static void judge(const struct fields *f, bool whole, struct text_verdict *v)
{
	const struct bad_field *b = f->head_bad.set ? &f->head_bad : &f->rest_bad;
	char head[QUOTE_MAX + 4];

	/* printable bytes by chance (a few binary values) make no fields, or
	 * none but numbers, or (a short operand) no line of them */
	if (!f->head || (b->set && whole && !f->lines)) {
		v->kind = TEXT_BINARY;
		return;
	}
	if (!b->set)
		return;
	/* --header takes the operand's first line, so it is offered for a
	 * line of names that is the first, over lines of numbers only (an
	 * empty field is none: `a,1` over `,2` is a column of words) */
	if (!f->rest_bad.set && !f->rest_empty && f->rest &&
	    f->head_bad.line == 1) {
		quote(head, f->head, f->head_len);
		v->kind = TEXT_HEADER;
		snprintf(v->msg, sizeof(v->msg),
			 "looks like text with a header line '%s': use --header (-H) to skip it, or --raw to read the bytes as binary data",
			 head);
		return;
	}
	v->kind = TEXT_WORDS;
	snprintf(v->msg, sizeof(v->msg),
		 "looks like text, not numbers ('%s' in line %llu field %llu): gpustat reads numbers split by white space or commas (%s--raw reads the bytes as binary data)",
		 b->tok, b->line, b->field,
		 b == &f->head_bad && !f->rest_bad.set && !f->rest_empty &&
		 b->line == 1 ?
		 "--header (-H) skips a line of column names; " : "");
}

void textdetect(const uint8_t *p, size_t n, bool end,
		const struct input_opts *o, struct text_verdict *v)
{
	/* at TEXT_PREFIX bytes the rest is not looked at, even where the
	 * operand ends there: whether a pipe's end came with them or later
	 * must not matter */
	bool whole = end && n < TEXT_PREFIX;
	struct fields f;

	v->bom = 0;
	v->msg[0] = '\0';
	v->kind = TEXT_BINARY;
	if (o->text) {
		skip_bom(p, n, end, v);
		return;
	}
	n = n < TEXT_PREFIX ? n : TEXT_PREFIX;
	if ((n == 0 && end) || !all_text(p, n, !whole))
		return;
	v->kind = TEXT_MORE;
	if (!whole && n < TEXT_PREFIX)
		return;
	skip_bom(p, n, true, v);
	scan_fields(p + v->bom, n - v->bom, whole, &f);
	judge(&f, whole, v);
}
