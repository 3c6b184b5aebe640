/*
 * unit_textdetect.c - textdetect.h: what the first bytes of a stream are
 * (binary, numbers, a header line over numbers, words), and that the
 * answer depends on the first TEXT_PREFIX bytes alone: every shorter part
 * of them says "more" (or binary, where the whole says so too), and bytes
 * past them, or where the operand ends after them, change nothing. Then
 * --header through input.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "input.h"
#include "textdetect.h"
#include "unit.h"

static const struct input_opts plain;

static const char *kind_name(enum text_kind k)
{
	static const char *const names[] = { "more", "binary", "numbers",
					     "header", "words" };

	return names[k];
}

struct dcase {
	const char *s;
	size_t n;		/* 0: strlen(s) */
	enum text_kind want;
	const char *msg;	/* a part of the message, or NULL */
};

#define B(s) s, sizeof(s) - 1

static const struct dcase dcases[] = {
	{ "1\n2\n3\n", 0, TEXT_NUMBERS, NULL },
	{ "1 2 3", 0, TEXT_NUMBERS, NULL },
	{ "0123456789", 0, TEXT_NUMBERS, NULL },
	{ "1.5,-2e3\r\n+.5,6.\r\n", 0, TEXT_NUMBERS, NULL },
	{ "1\n-inf\n2.5\n3000\n", 0, TEXT_NUMBERS, NULL },
	{ "NaN\n+Inf\n-infinity\nINF\n-nan\nInFiNiTy\n", 0, TEXT_NUMBERS, NULL },
	{ "\xef\xbb\xbf" "1\r\n2\r\n", 0, TEXT_NUMBERS, NULL },
	{ "\xef\xbb\xbf" "x,y\r\n1,2\r\n", 0, TEXT_HEADER, "header line 'x,y'" },
	{ "x,y\n1,2\n3,4\n5,6\n", 0, TEXT_HEADER,
	  "looks like text with a header line 'x,y': use --header (-H)" },
	/* names after blank lines: --header would take the blank one */
	{ "\n\n  x y \n1 2\n", 0, TEXT_WORDS, "('x' in line 3 field 1): gpustat reads numbers split by white space or commas (--raw" },
	{ "a\tb\n1\t2\n", 0, TEXT_HEADER, "header line 'a\\tb'" },
	{ "température,x\n1,2\n", 0, TEXT_HEADER, "'température,x'" },
	/* a long line quoted in part, not inside a character */
	{ "ééééééééééééééééééééééééé\n1\n", 0, TEXT_HEADER,
	  "line 'éééééééééééééééééé...'" },
	{ "x,y\n1,2\nq,4\n", 0, TEXT_WORDS, "('x' in line 1 field 1)" },
	{ "hello world\n", 0, TEXT_WORDS,
	  "looks like text, not numbers ('hello' in line 1 field 1)" },
	{ "hello world\n", 0, TEXT_WORDS, "--raw" },
	{ "1 2\n3 four\n", 0, TEXT_WORDS, "('four' in line 2 field 2)" },
	{ "x\n", 0, TEXT_WORDS, "('x' in line 1 field 1)" },
	{ "0x10\n", 0, TEXT_WORDS, "'0x10'" },
	{ "1,,2\n", 0, TEXT_NUMBERS, NULL },	/* --text's error */
	/* an empty field is no number: the lines under a first line of
	 * words are not numbers, so it is no header line (a column of words
	 * that -F or --by reads); fields counted as --text counts them */
	{ "a,1\n,2\n", 0, TEXT_WORDS, "('a' in line 1 field 1)" },
	{ "a,1\n2,\n", 0, TEXT_WORDS, "('a' in line 1 field 1)" },
	{ "a,1\n\"\",2\n", 0, TEXT_WORDS, "('a' in line 1 field 1)" },
	{ "x,y\n1,2\n3,,4\n", 0, TEXT_WORDS, "('x' in line 1 field 1)" },
	{ "x,y\n1,2\n3,", 0, TEXT_WORDS, "('x' in line 1 field 1)" },
	{ ",x,y\n0,1,2\n", 0, TEXT_HEADER, "header line ',x,y'" },
	{ ",,a\n", 0, TEXT_WORDS, "('a' in line 1 field 3)" },
	{ "1,,2\n,x\n", 0, TEXT_WORDS, "('x' in line 2 field 2)" },
	/* binary: a byte that is not text, or printable bytes by chance */
	{ B("1 2\0003\n"), TEXT_BINARY, NULL },
	{ "1 2\x01\n", 0, TEXT_BINARY, NULL },
	{ "1 2\x7f\n", 0, TEXT_BINARY, NULL },
	{ "1 2\xc0\x80\n", 0, TEXT_BINARY, NULL },	/* overlong */
	{ "1 2\xed\xa0\x80\n", 0, TEXT_BINARY, NULL },	/* surrogate */
	{ "1 2\xf4\x90\x80\x80\n", 0, TEXT_BINARY, NULL },
	{ "1 2\xe2\x82", 0, TEXT_BINARY, NULL },	/* cut by the end */
	{ "1 2\x80\n", 0, TEXT_BINARY, NULL },
	{ "9!v:", 0, TEXT_BINARY, NULL },
	{ "%R%R%R%R", 0, TEXT_BINARY, NULL },
	{ "\n\"", 0, TEXT_BINARY, NULL },
	{ "\t", 0, TEXT_BINARY, NULL },
	{ "  \n\n", 0, TEXT_BINARY, NULL },
	{ "\xef\xbb\xbf", 0, TEXT_BINARY, NULL },
	{ "abcd", 0, TEXT_BINARY, NULL },
	{ "hello world", 0, TEXT_BINARY, NULL },
};

static void verdict(const char *s, size_t n, bool end, const struct input_opts *o,
		    struct text_verdict *v)
{
	textdetect((const uint8_t *)s, n, end, o, v);
}

/* Each case whole, and every part of it before its end: "more", or
 * binary where the whole is binary. */
static void test_cases(void)
{
	struct text_verdict v, w;
	size_t i, k, n;

	for (i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++) {
		const struct dcase *c = &dcases[i];
		const struct input_opts *o = &plain;

		n = c->n ? c->n : strlen(c->s);
		verdict(c->s, n, true, o, &v);
		CHECKF(v.kind == c->want, "case %zu '%s': %s, want %s (%s)", i,
		       c->s, kind_name(v.kind), kind_name(c->want), v.msg);
		CHECKF(!c->msg || strstr(v.msg, c->msg), "case %zu: '%s' not in '%s'",
		       i, c->msg, v.msg);
		for (k = 0; k < n; k++) {
			verdict(c->s, k, false, o, &w);
			CHECKF(w.kind == TEXT_MORE ||
			       (w.kind == TEXT_BINARY && v.kind == TEXT_BINARY),
			       "case %zu cut at %zu: %s", i, k, kind_name(w.kind));
		}
	}
}

/* A prefix of TEXT_PREFIX bytes: whatever follows it, and whether the
 * operand ends with it or later, the answer is the same; its last field
 * may be cut and is not looked at. */
static void test_prefix(void)
{
	static char buf[3 * TEXT_PREFIX];
	static const char *const tails[] = { "f 3\n", "abc\n", "\001\002", "",
					     "x,y\n" };
	static const char *const ends[] = { "in", "1", "1e", "x", "-" };
	struct text_verdict v, w;
	size_t i, j, n, extra;

	for (j = 0; j < sizeof(ends) / sizeof(ends[0]); j++) {
		/* numbers up to TEXT_PREFIX, ending in a field that goes on */
		for (n = 0; n < TEXT_PREFIX - 16; n += 5)
			memcpy(buf + n, "1234\n", 5);
		memset(buf + n, ' ', TEXT_PREFIX - n);
		memcpy(buf + TEXT_PREFIX - strlen(ends[j]), ends[j], strlen(ends[j]));
		verdict(buf, TEXT_PREFIX, false, &plain, &v);
		CHECKF(v.kind == TEXT_NUMBERS, "'%s' at the cut: %s", ends[j],
		       kind_name(v.kind));
		for (i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
			strcpy(buf + TEXT_PREFIX, tails[i]);
			for (extra = 0; extra <= strlen(tails[i]); extra++) {
				verdict(buf, TEXT_PREFIX + extra, true, &plain, &w);
				CHECKF(w.kind == v.kind, "'%s' then %zu of '%s', ended: %s",
				       ends[j], extra, tails[i], kind_name(w.kind));
				verdict(buf, TEXT_PREFIX + extra, false, &plain, &w);
				CHECKF(w.kind == v.kind, "'%s' then %zu of '%s': %s",
				       ends[j], extra, tails[i], kind_name(w.kind));
			}
		}
		/* the same bytes one short of it, ended: the last field is
		 * looked at */
		verdict(buf + 1, TEXT_PREFIX - 1, true, &plain, &w);
		CHECKF(w.kind == (strcmp(ends[j], "1") ? TEXT_WORDS : TEXT_NUMBERS),
		       "'%s' ending a shorter operand: %s", ends[j], kind_name(w.kind));
	}
	/* a byte that is not text past the prefix, within it */
	for (n = 0; n < 2 * TEXT_PREFIX; n += 2)
		memcpy(buf + n, "7\n", 2);
	buf[TEXT_PREFIX] = '\0';
	verdict(buf, 2 * TEXT_PREFIX, true, &plain, &v);
	CHECK(v.kind == TEXT_NUMBERS);
	buf[TEXT_PREFIX - 1] = '\0';
	verdict(buf, 2 * TEXT_PREFIX, true, &plain, &v);
	CHECK(v.kind == TEXT_BINARY);
	/* a header line longer than the prefix: words that name --header */
	for (n = 0; n + 8 < sizeof(buf); n += 8)
		memcpy(buf + n, "column, ", 8);
	memcpy(buf + 2 * TEXT_PREFIX, "\n1, 2\n", 7);
	verdict(buf, 2 * TEXT_PREFIX + 7, true, &plain, &v);
	CHECKF(v.kind == TEXT_WORDS && strstr(v.msg, "--header (-H)") &&
	       strstr(v.msg, "'column' in line 1 field 1"), "%s", v.msg);
	/* a UTF-8 character cut by the prefix's end is text so far */
	for (n = 0; n < 2 * TEXT_PREFIX; n += 2)
		memcpy(buf + n, "7\n", 2);
	memcpy(buf + TEXT_PREFIX - 2, "\n\xc3\xa9", 3);
	memcpy(buf, "x\n", 2);
	verdict(buf, TEXT_PREFIX + 1, false, &plain, &v);
	CHECKF(v.kind == TEXT_HEADER, "%s", kind_name(v.kind));
}

/* A first line of words over lines with an empty field is not offered
 * to --header, which would refuse the empty field or (with -F) drop the
 * first line's numbers; a comma that the prefix cuts off from what
 * follows it is not looked at. */
static void test_empty(void)
{
	static char buf[TEXT_PREFIX + 8];
	static const char *const words[] = { "a,1\n,2\n", "x,y\n1,\n",
					     "k v\n1,,2\n" };
	struct text_verdict v;
	size_t i, n;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		verdict(words[i], strlen(words[i]), true, &plain, &v);
		CHECKF(v.kind == TEXT_WORDS && !strstr(v.msg, "--header"),
		       "'%s': %s (%s)", words[i], kind_name(v.kind), v.msg);
	}
	memcpy(buf, "x,y\n", 4);
	for (n = 4; n + 4 <= TEXT_PREFIX; n += 4)
		memcpy(buf + n, "1,2\n", 4);
	memcpy(buf + TEXT_PREFIX - 2, "1,", 2);
	for (i = 0; i < 2; i++) {
		strcpy(buf + TEXT_PREFIX, i ? ",\n" : "2\n");
		verdict(buf, TEXT_PREFIX + 2, i == 0, &plain, &v);
		CHECKF(v.kind == TEXT_HEADER, "a comma at the cut (%zu): %s", i,
		       kind_name(v.kind));
	}
}

/* A stream known to be text: only a BOM is looked for; later operands of
 * a stream and empty ones are not looked at. */
static void test_known(void)
{
	struct input_opts text = { .text = true };
	struct text_verdict v;

	textdetect((const uint8_t *)"\xef\xbb\xbf" "1", 4, false, &text, &v);
	CHECK(v.kind == TEXT_NUMBERS && v.bom == 3);
	textdetect((const uint8_t *)"\xef\xbb", 2, false, &text, &v);
	CHECK(v.kind == TEXT_MORE);
	textdetect((const uint8_t *)"\xef\xbb", 2, true, &text, &v);
	CHECK(v.kind == TEXT_NUMBERS && v.bom == 0);
	textdetect((const uint8_t *)"abc", 3, true, &text, &v);
	CHECK(v.kind == TEXT_NUMBERS && v.bom == 0);
	textdetect((const uint8_t *)"1\n", 2, true, &plain, &v);
	CHECK(v.kind == TEXT_NUMBERS);
	textdetect((const uint8_t *)"", 0, true, &plain, &v);
	CHECK(v.kind == TEXT_BINARY);
	textdetect((const uint8_t *)"\xef\xbb\xbf" "1\n", 5, true, &plain, &v);
	CHECK(v.kind == TEXT_NUMBERS && v.bom == 3);
}

static void warn(void *ctx, const struct gs_err *e)
{
	snprintf(ctx, 800, "%s: %s", e->where, e->what);
}

/* input.h: a header line is refused (one warning, the stream then has
 * no operand) unless opts.header says it names the columns (with text,
 * as the CLI gives it). */
static void test_input(void)
{
	char path[] = "/tmp/unit_textdetect.XXXXXX", said[800] = "";
	static const char csv[] = "x,y\n1,2\n3,4\n";
	int fd = mkstemp(path);
	char *paths[1] = { path };
	struct input *in;
	struct input_info info;
	struct gs_err err;
	int h;

	if (fd < 0 || write(fd, csv, sizeof(csv) - 1) != sizeof(csv) - 1) {
		CHECK(!"a temporary file");
		return;
	}
	close(fd);
	for (h = 0; h < 2; h++) {
		struct input_opts o = { .header = h, .text = h, .warn = warn,
					.warn_ctx = said };

		said[0] = '\0';
		CHECK(input_open(&in, paths, 1, &o, &err) == 0);
		CHECK(input_probe(in, &info, &err) == 0);
		CHECKF(info.text == (h == 1), "header %d: text %d", h, info.text);
		CHECKF(input_failed(in) == (h == 0), "header %d: '%s'", h, said);
		CHECKF(h == 1 || strstr(said, "header line 'x,y'"), "'%s'", said);
		input_close(in);
	}
	unlink(path);
}

int main(void)
{
	test_cases();
	test_prefix();
	test_empty();
	test_known();
	test_input();
	UNIT_END();
}
