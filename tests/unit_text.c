/*
 * unit_text.c - --text: textnum's fields against values computed apart
 * (the bits below come from exact rational rounding in Python, fractions:
 * halfway cases, f32 double-rounding traps, subnormals, overflow), integer
 * limits, what is refused, and the text layer through input.h (pieces,
 * operands, byte order; a pipe written in steps between the reads: what
 * each step lets out, on 1, 2 and 4 threads).
 *
 * textquote's fields: their values made in place, where they end, and
 * where a line of them may be cut.
 *
 * unit_text --bits TYPE reads one field per line on stdin and prints each
 * value's bits in hex ("error" for a refused one): tests/test_text.sh
 * compares thousands of random fields with Python that way.
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "input.h"
#include "textnum.h"
#include "textquote.h"
#include "unit.h"

struct fcase {
	const char *s;
	uint64_t f64;
	uint32_t f32, f16, bf16;
};

static const struct fcase fcases[] = {
	{ "1.00000005960464477550", 0x3ff0000010000000u, 0x3f800001u, 0x3c00u, 0x3f80u },
	{ "1.0000000596046447755", 0x3ff0000010000000u, 0x3f800001u, 0x3c00u, 0x3f80u },
	{ "1.000000059604644775390625", 0x3ff0000010000000u, 0x3f800000u, 0x3c00u, 0x3f80u },
	{ "1.000000059604644775390624", 0x3ff0000010000000u, 0x3f800000u, 0x3c00u, 0x3f80u },
	{ "1.000000059604644775390626", 0x3ff0000010000000u, 0x3f800001u, 0x3c00u, 0x3f80u },
	{ "0.1", 0x3fb999999999999au, 0x3dcccccdu, 0x2e66u, 0x3dcdu },
	{ "1e-45", 0x3696d601ad376ab9u, 0x1u, 0x0u, 0x0u },
	{ "1.4e-45", 0x369ff868bf4d956au, 0x1u, 0x0u, 0x0u },
	{ "7.006492321624085e-46", 0x3690000000000000u, 0x0u, 0x0u, 0x0u },
	{ "7.006492321624086e-46", 0x3690000000000000u, 0x1u, 0x0u, 0x0u },
	{ "7.00649232162408535461864791644958065640130970938257885878534141944895541342930300743319094181060791015625e-46", 0x3690000000000000u, 0x0u, 0x0u, 0x0u },
	{ "3.4028235677973366e38", 0x47effffff0000000u, 0x7f7fffffu, 0x7c00u, 0x7f80u },
	{ "3.4028235677973367e38", 0x47effffff0000000u, 0x7f800000u, 0x7c00u, 0x7f80u },
	{ "340282356779733661637539395458142568448", 0x47effffff0000000u, 0x7f800000u, 0x7c00u, 0x7f80u },
	{ "340282356779733661637539395458142568447", 0x47effffff0000000u, 0x7f7fffffu, 0x7c00u, 0x7f80u },
	{ "65504", 0x40effc0000000000u, 0x477fe000u, 0x7bffu, 0x4780u },
	{ "65519.99", 0x40effdffae147ae1u, 0x477feffdu, 0x7bffu, 0x4780u },
	{ "65520", 0x40effe0000000000u, 0x477ff000u, 0x7c00u, 0x4780u },
	{ "65520.0001", 0x40effe0000d1b717u, 0x477ff000u, 0x7c00u, 0x4780u },
	{ "5.960464477539063e-08", 0x3e70000000000000u, 0x33800000u, 0x1u, 0x3380u },
	{ "2.98023223876953125e-08", 0x3e60000000000000u, 0x33000000u, 0x0u, 0x3300u },
	{ "2.98023223876953126e-08", 0x3e60000000000000u, 0x33000000u, 0x1u, 0x3300u },
	{ "2.98023223876953124e-08", 0x3e60000000000000u, 0x33000000u, 0x0u, 0x3300u },
	{ "5e-324", 0x1u, 0x0u, 0x0u, 0x0u },
	{ "2.4703282292062327e-324", 0x0u, 0x0u, 0x0u, 0x0u },
	{ "2.4703282292062328e-324", 0x1u, 0x0u, 0x0u, 0x0u },
	{ "4.9406564584124654e-324", 0x1u, 0x0u, 0x0u, 0x0u },
	{ "1.7976931348623157e308", 0x7fefffffffffffffu, 0x7f800000u, 0x7c00u, 0x7f80u },
	{ "1.7976931348623158e308", 0x7fefffffffffffffu, 0x7f800000u, 0x7c00u, 0x7f80u },
	{ "1.7976931348623158079e308", 0x7fefffffffffffffu, 0x7f800000u, 0x7c00u, 0x7f80u },
	{ "1.797693134862315807937289714053e308", 0x7fefffffffffffffu, 0x7f800000u, 0x7c00u, 0x7f80u },
	{ "1e400", 0x7ff0000000000000u, 0x7f800000u, 0x7c00u, 0x7f80u },
	{ "-1e400", 0xfff0000000000000u, 0xff800000u, 0xfc00u, 0xff80u },
	{ "1e-400", 0x0u, 0x0u, 0x0u, 0x0u },
	{ "-0", 0x8000000000000000u, 0x80000000u, 0x8000u, 0x8000u },
	{ "0", 0x0u, 0x0u, 0x0u, 0x0u },
	{ "-0.0", 0x8000000000000000u, 0x80000000u, 0x8000u, 0x8000u },
	{ "16777217", 0x4170000010000000u, 0x4b800000u, 0x7c00u, 0x4b80u },
	{ "16777219", 0x4170000030000000u, 0x4b800002u, 0x7c00u, 0x4b80u },
	{ "9007199254740993", 0x4340000000000000u, 0x5a000000u, 0x7c00u, 0x5a00u },
	{ "9007199254740993.0000000000000000000000000000001", 0x4340000000000001u, 0x5a000000u, 0x7c00u, 0x5a00u },
	{ "18446744073709551615", 0x43f0000000000000u, 0x5f800000u, 0x7c00u, 0x5f80u },
	{ "inf", 0x7ff0000000000000u, 0x7f800000u, 0x7c00u, 0x7f80u },
	{ "-Infinity", 0xfff0000000000000u, 0xff800000u, 0xfc00u, 0xff80u },
	{ "NaN", 0x7ff8000000000000u, 0x7fc00000u, 0x7e00u, 0x7fc0u },
	{ "-nan", 0xfff8000000000000u, 0xffc00000u, 0xfe00u, 0xffc0u },
	{ "+inf", 0x7ff0000000000000u, 0x7f800000u, 0x7c00u, 0x7f80u },
	{ "INFINITY", 0x7ff0000000000000u, 0x7f800000u, 0x7c00u, 0x7f80u },
	{ ".5", 0x3fe0000000000000u, 0x3f000000u, 0x3800u, 0x3f00u },
	{ "5.", 0x4014000000000000u, 0x40a00000u, 0x4500u, 0x40a0u },
	{ "+.5e+1", 0x4014000000000000u, 0x40a00000u, 0x4500u, 0x40a0u },
	{ "000000000000000000000000001.5e0", 0x3ff8000000000000u, 0x3fc00000u, 0x3e00u, 0x3fc0u },
	{ "2.2250738585072011e-308", 0xfffffffffffffu, 0x0u, 0x0u, 0x0u },
	{ "2.2250738585072012e-308", 0x10000000000000u, 0x0u, 0x0u, 0x0u },
	{ "4.4501477170144023e-308", 0x1fffffffffffffu, 0x0u, 0x0u, 0x0u },
	{ "1.00390625", 0x3ff0100000000000u, 0x3f808000u, 0x3c04u, 0x3f80u },
	{ "1.003906250000000000001", 0x3ff0100000000000u, 0x3f808000u, 0x3c04u, 0x3f81u },
	{ "1.01171875", 0x3ff0300000000000u, 0x3f818000u, 0x3c0cu, 0x3f82u },
	{ "3.3895313892515355e38", 0x47efe00000000000u, 0x7f7f0000u, 0x7c00u, 0x7f7fu },
	{ "3.3961775292304266e38", 0x47efefffffffffa7u, 0x7f7f8000u, 0x7c00u, 0x7f7fu },
	{ "0.00006103515625", 0x3f10000000000000u, 0x38800000u, 0x400u, 0x3880u },
	{ "0.000061035156249999999", 0x3f10000000000000u, 0x38800000u, 0x400u, 0x3880u },
	{ "123456789012345678901234567890e-30", 0x3fbf9add3746f65fu, 0x3dfcd6eau, 0x2fe7u, 0x3dfdu },
	{ "1e23", 0x44b52d02c7e14af6u, 0x65a96816u, 0x7c00u, 0x65a9u },
	{ "8.98846567431158e307", 0x7fe0000000000000u, 0x7f800000u, 0x7c00u, 0x7f80u },
	{ "2.5e-1", 0x3fd0000000000000u, 0x3e800000u, 0x3400u, 0x3e80u },
};

static uint64_t bits_of(enum gs_type t, const char *s, int *rc)
{
	uint64_t v = 0;

	*rc = textnum_parser(t, false)(s, strlen(s), &v);
	return v;
}

static void test_floats(void)
{
	size_t i;
	int rc;

	for (i = 0; i < sizeof(fcases) / sizeof(fcases[0]); i++) {
		const struct fcase *c = &fcases[i];
		uint64_t a = bits_of(GS_F64, c->s, &rc), b, h, bf;

		CHECKF(rc == 0 && a == c->f64, "f64 '%s': %" PRIx64, c->s, a);
		b = bits_of(GS_F32, c->s, &rc);
		CHECKF(rc == 0 && b == c->f32, "f32 '%s': %" PRIx64, c->s, b);
		h = bits_of(GS_F16, c->s, &rc);
		CHECKF(rc == 0 && h == c->f16, "f16 '%s': %" PRIx64, c->s, h);
		bf = bits_of(GS_BF16, c->s, &rc);
		CHECKF(rc == 0 && bf == c->bf16, "bf16 '%s': %" PRIx64, c->s, bf);
	}
}

/* Fields longer than the digits kept: strtod on the whole is the answer. */
static void test_long(void)
{
	static char s[4000];
	double want, got;
	int rc, k;

	for (k = 0; k < 3; k++) {
		memset(s, "195"[k], 1500);
		s[0] = '0';
		s[1] = '.';
		sprintf(s + 1500, "e%d", k * 7 - 300);
		want = strtod(s, NULL);
		rc = textnum_parser(GS_F64, false)(s, strlen(s), &got);
		CHECKF(rc == 0 && memcmp(&got, &want, 8) == 0, "long %d: %a %a",
		       k, got, want);
	}
	/* 2^-1074's halfway point and a digit far out past it */
	strcpy(s,
	       "2.4703282292062327208828439643411068618252990130716238221279"
	       "284125033775363510437593264991818081799618989828234772285886"
	       "546332835517796989819938739800539093906315035659515570226392"
	       "290858392449105184435931802849936536152500319370457678249219"
	       "365623669863658480757001585769269903706311928279558551332927"
	       "834338409351978015531246597263579574622766465272827220056374"
	       "006485499977096599470454020828166226237857393450736339007967"
	       "761930577506740176324673600968951340535537458516661134223766"
	       "678604162159680461914467291840300530057530849048765391711386"
	       "591646239524912623653881879636239373280423891018672348497668"
	       "235089863388587925628302755995657524455507255189313690836254"
	       "779186948667994968324049705821028513185451396213837722826145"
	       "437693412532098591327667236328125e-324");
	rc = textnum_parser(GS_F64, false)(s, strlen(s), &got);
	CHECKF(rc == 0 && got == 0.0, "2^-1075 exactly rounds to even 0: %a", got);
	memcpy(s + strlen(s) - 5, "1e-324", 7);	/* ...125 -> ...1251 */
	rc = textnum_parser(GS_F64, false)(s, strlen(s), &got);
	CHECKF(rc == 0 && got == 0x1p-1074, "just above 2^-1075: %a", got);
}

struct icase {
	enum gs_type t;
	const char *s;
	int rc;
	uint64_t v;		/* the value's bits, zero-extended */
};

static const struct icase icases[] = {
	{ GS_I64, "-9223372036854775808", 0, 0x8000000000000000u },
	{ GS_I64, "9223372036854775807", 0, 0x7fffffffffffffffu },
	{ GS_I64, "9223372036854775808", TEXTNUM_RANGE, 0 },
	{ GS_I64, "-9223372036854775809", TEXTNUM_RANGE, 0 },
	{ GS_U64, "18446744073709551615", 0, UINT64_MAX },
	{ GS_U64, "18446744073709551616", TEXTNUM_RANGE, 0 },
	{ GS_U64, "99999999999999999999999", TEXTNUM_RANGE, 0 },
	{ GS_U64, "-1", TEXTNUM_RANGE, 0 },
	{ GS_U64, "-0", 0, 0 },
	{ GS_U64, "+7", 0, 7 },
	{ GS_U8, "255", 0, 255 },
	{ GS_U8, "256", TEXTNUM_RANGE, 0 },
	{ GS_U8, "000000000000000000000000000255", 0, 255 },
	{ GS_I8, "-128", 0, 0x80 },
	{ GS_I8, "128", TEXTNUM_RANGE, 0 },
	{ GS_I16, "-32768", 0, 0x8000 },
	{ GS_U16, "65536", TEXTNUM_RANGE, 0 },
	{ GS_I32, "2147483647", 0, 0x7fffffff },
	{ GS_I32, "-2147483649", TEXTNUM_RANGE, 0 },
	{ GS_U32, "4294967295", 0, 0xffffffffu },
	{ GS_I32, "1.0", TEXTNUM_INVALID, 0 },
	{ GS_I32, "1e3", TEXTNUM_INVALID, 0 },
	{ GS_I32, "", TEXTNUM_INVALID, 0 },
	{ GS_I32, "-", TEXTNUM_INVALID, 0 },
	{ GS_I32, "0x10", TEXTNUM_INVALID, 0 },
	{ GS_I32, "inf", TEXTNUM_INVALID, 0 },
};

static void test_ints(void)
{
	size_t i;

	for (i = 0; i < sizeof(icases) / sizeof(icases[0]); i++) {
		const struct icase *c = &icases[i];
		uint64_t v = 0;
		int rc = textnum_parser(c->t, false)(c->s, strlen(c->s), &v);

		if (rc == 0 && type_size(c->t) < 8)
			v &= ((uint64_t)1 << (8 * type_size(c->t))) - 1;
		CHECKF(rc == c->rc && (rc || v == c->v), "%s '%s': rc %d, %" PRIx64,
		       type_name(c->t), c->s, rc, v);
	}
	uint8_t b = 9;

	CHECK(textnum_parser(GS_U8, true)("1", 1, &b) == 0 && b == 1);
	CHECK(textnum_parser(GS_U8, true)("2", 1, &b) == TEXTNUM_RANGE);
}

static void test_invalid(void)
{
	static const char *const bad[] = {
		"", "+", "-", ".", "+.", "e5", ".e5", "1e", "1e+", "1e-", "0x10",
		"0x1p3", "1_000", "1.5.6", "--1", "+-1", "nan1", "infinit", "in",
		"infinityy", "1 ", " 1", "1,", "1e5.5", "1.0f", "abc", "1d5",
	};
	size_t i;
	double v;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECKF(textnum_parser(GS_F64, false)(bad[i], strlen(bad[i]), &v) ==
		       TEXTNUM_INVALID, "'%s' is refused", bad[i]);
}

/* ---- the text layer ------------------------------------------------------ */

static char dir[] = "/tmp/unit_text.XXXXXX";

static char *write_file(const char *name, const char *text, size_t n)
{
	static char paths[8][64];
	static int k;
	char *p = paths[k++ % 8];
	FILE *f;

	snprintf(p, 64, "%s/%s", dir, name);
	f = fopen(p, "wb");
	if (f) {
		fwrite(text, 1, n, f);
		fclose(f);
	}
	return p;
}

/* Read paths with --text as type t (columns, lines as -c) on threads:
 * the records into *out (malloc'd), their bytes returned; -1 on an error,
 * its message in msg. */
static ssize_t read_text(char **paths, int n, struct gs_dtype dt,
			 unsigned columns, bool lines, int threads,
			 uint8_t **out, char *msg, size_t msgsize)
{
	struct input_opts o = { .text = true, .text_lines = lines,
				.threads = threads };
	struct input *in;
	struct input_info info;
	struct gs_err err;
	size_t cap = 1 << 16, got = 0;
	ssize_t r = -1;

	*out = malloc(cap);
	msg[0] = '\0';
	if (input_open(&in, paths, n, &o, &err) < 0)
		return -1;
	if (input_probe(in, &info, &err) == 0) {
		input_set_dtype(in, dt, columns);
		while ((r = input_read(in, *out + got, cap - got, -1, &err)) > 0) {
			got += (size_t)r;
			if (got == cap)
				*out = realloc(*out, cap *= 2);
		}
	}
	if (r < 0)
		snprintf(msg, msgsize, "%s: %s", err.where, err.what);
	input_close(in);
	return r < 0 ? -1 : (ssize_t)got;
}

static const struct gs_dtype f64 = { .type = GS_F64 };

/* Lines of i, or of several fields on long lines, cut into pieces at every
 * place: the values are 1, 2, 3 ... in order, whatever the threads. */
static void test_pieces(void)
{
	size_t cap = 40 << 20, n = 0, k;
	char *text = malloc(cap), msg[800];
	char *p[1];
	uint8_t *out;
	double *v;
	ssize_t r;
	int threads, i, ok;

	/* 2.3M values: short lines, then one line of 300K fields (longer than
	 * a piece), then CRLF lines of commas */
	for (k = 1; k <= 2000000; k++)
		n += (size_t)sprintf(text + n, "%zu\n", k);
	for (; k <= 2300000; k++)
		n += (size_t)sprintf(text + n, "%zu ", k);
	text[n++] = '\n';
	for (; k <= 2400000; k += 2)
		n += (size_t)sprintf(text + n, "%zu , %zu\r\n", k, k + 1);
	p[0] = write_file("pieces", text, n);
	for (threads = 1; threads <= 4; threads += 3) {
		r = read_text(p, 1, f64, 1, false, threads, &out, msg, sizeof(msg));
		v = (double *)out;
		ok = r == (ssize_t)(2400000 * sizeof(double));
		for (i = 0; ok && i < 2400000; i++)
			ok = v[i] == i + 1;
		CHECKF(ok, "threads %d: %zd bytes, %s, v[%d] = %g", threads, r,
		       msg, i, ok || r <= 0 ? 0 : v[i - 1]);
		free(out);
	}
	/* lines longer than a piece: -c 300000 records, a field named by its
	 * number far along a line, a line one field short */
	for (n = 0, k = 0; k < 600000; k++)
		n += (size_t)sprintf(text + n, "%zu%c", k % 7, k % 300000 == 299999 ? '\n' : ' ');
	r = read_text((p[0] = write_file("wide", text, n), p), 1, f64, 300000,
		      true, 2, &out, msg, sizeof(msg));
	v = (double *)out;
	CHECKF(r == 600000 * 8 && v[599999] == 599999 % 7, "-c 300000: %zd %s", r, msg);
	free(out);
	memcpy(text + 2 * 250000, "x", 1);
	r = read_text((p[0] = write_file("wide2", text, n), p), 1, f64, 300000,
		      true, 2, &out, msg, sizeof(msg));
	CHECKF(r < 0 && strstr(msg, "in line 1 field 250001: 'x'"), "%s", msg);
	free(out);
	memcpy(text + 2 * 250000, "1", 1);
	text[n - 3] = '\n';
	n -= 2;
	r = read_text((p[0] = write_file("wide3", text, n), p), 1, f64, 300000,
		      true, 2, &out, msg, sizeof(msg));
	CHECKF(r < 0 && strstr(msg, "line 2 has 299999 fields, not 300000"), "%s", msg);
	free(out);
	/* -c 3 lines of growing length crossing the pieces; a line of 2
	 * fields far in: named by its number */
	for (n = 0, k = 0; k < 300000; k++)
		n += (size_t)sprintf(text + n, "%zu %zu.5 %.*s1\n", k, k,
				     (int)(k % 50), "00000000000000000000000000000000000000000000000000");
	r = read_text((p[0] = write_file("lines", text, n), p), 1, f64, 3,
		      true, 4, &out, msg, sizeof(msg));
	v = (double *)out;
	CHECKF(r == 900000 * 8 && v[3 * 299999] == 299999 && v[3 * 299999 + 1] == 299999.5 &&
	       v[3 * 299999 + 2] == 1, "-c 3: %zd, %s", r, msg);
	free(out);
	n += (size_t)sprintf(text + n, "7 8\n");
	r = read_text((p[0] = write_file("lines2", text, n), p), 1, f64, 3,
		      true, 2, &out, msg, sizeof(msg));
	CHECKF(r < 0 && strstr(msg, "lines2: line 300001 has 2 fields, not 3"),
	       "a short line: %s", msg);
	free(out);
	/* an invalid field in a late line, and in the middle of the long one */
	memcpy(strstr(text, "\n123456 ") + 1, "12x456", 6);
	p[0] = write_file("bad", text, n);
	r = read_text(p, 1, f64, 1, false, 2, &out, msg, sizeof(msg));
	CHECKF(r < 0 && strstr(msg, "line 123457 field 1: '12x456'"), "%s", msg);
	free(out);
	free(text);
}

static void test_operands(void)
{
	char *p[3], msg[800];
	uint8_t *out;
	ssize_t r;
	struct gs_dtype be = { .type = GS_I16, .big_endian = true };

	/* a file without its last newline ends its line */
	p[0] = write_file("a", "1 2", 3);
	p[1] = write_file("b", "\n\n3,4\r\n", 7);
	p[2] = write_file("c", "", 0);
	r = read_text(p, 3, be, 1, false, 2, &out, msg, sizeof(msg));
	CHECKF(r == 8 && memcmp(out, "\0\1\0\2\0\3\0\4", 8) == 0,
	       "big-endian i16 of 3 operands: %zd %s", r, msg);
	free(out);
	r = read_text(p, 2, f64, 2, true, 1, &out, msg, sizeof(msg));
	CHECKF(r == 32 && ((double *)out)[3] == 4, "-c 2 reads a then b: %s",
	       msg);
	free(out);
	p[1] = write_file("b", "5\n6 x\n", 6);
	r = read_text(p, 2, f64, 1, false, 2, &out, msg, sizeof(msg));
	CHECKF(r < 0 && strstr(msg, "/b: invalid numeric value in line 2 field 2: 'x'"),
	       "line numbers per operand: %s", msg);
	free(out);
	p[1] = write_file("b", "1,,2\n", 5);
	r = read_text(p + 1, 1, f64, 1, false, 2, &out, msg, sizeof(msg));
	CHECKF(r < 0 && strstr(msg, "empty field in line 1 field 2"), "%s", msg);
	free(out);
	char *big = malloc(600000);

	memset(big, '7', 600000);
	p[1] = write_file("b", big, 600000);
	r = read_text(p + 1, 1, f64, 1, false, 2, &out, msg, sizeof(msg));
	CHECKF(r < 0 && strstr(msg, "a field longer than 524288 bytes in line 1"),
	       "%s", msg);
	free(out);
	memset(big, ' ', 600000);
	memcpy(big + 599990, "5\n", 2);
	p[1] = write_file("b", big, 600000);
	r = read_text(p + 1, 1, f64, 1, true, 2, &out, msg, sizeof(msg));
	CHECKF(r == 8 && ((double *)out)[0] == 5, "blanks longer than a piece: %s", msg);
	free(out);
	free(big);
	p[1] = write_file("b", "1,2,\n", 5);
	r = read_text(p + 1, 1, f64, 1, false, 2, &out, msg, sizeof(msg));
	CHECKF(r < 0 && strstr(msg, "empty field in line 1 field 3"), "%s", msg);
	free(out);
}

/* ---- a producer that stalls ---------------------------------------------- */

/* The test writes to a pipe and reads between its writes, so each read
 * finds what was written and nothing comes while it waits: what textin
 * hands out after each write is fixed, whatever the threads. A read that
 * blocks with whole fields in hand is the failure: the alarm ends it. */
static void stuck(int sig)
{
	static const char m[] = "FAIL unit_text.c: a read blocked with whole fields in hand\n";

	(void)sig;
	(void)!write(STDOUT_FILENO, m, sizeof(m) - 1);
	_exit(1);
}

struct producer {
	int wfd;
	struct input *in;
	bool ok;
	char say[200];		/* the first difference */
};

/* As the engine reads a pipe: the first read, holding no record, may wait
 * for ever (wait, used only where a whole field was written); then reads
 * go on while the input gives, until it stalls (or ends, ended). The u8
 * values are to be want's bytes (n of them). */
static void take(struct producer *pr, const uint8_t *want, size_t n,
		 bool wait, bool ended, const char *step)
{
	uint8_t got[4096];
	size_t k = 0;
	int stall = wait ? -1 : 0;
	struct gs_err err;
	ssize_t r;

	while ((r = input_read(pr->in, got + k, sizeof(got) - k, stall,
			       &err)) > 0) {
		k += (size_t)r;
		stall = 0;
	}
	if (!pr->ok)
		return;
	if (r != (ended ? 0 : INPUT_STALL) || k != n || memcmp(got, want, n)) {
		pr->ok = false;
		snprintf(pr->say, sizeof(pr->say),
			 "after '%s': read %zd, %zu values (%u ...), wanted %zu (%u ...)",
			 step, r, k, k ? got[0] : 0, n, n ? want[0] : 0);
	}
}

static bool producer_open(struct producer *pr, int threads, bool lines,
			  unsigned columns, const char *first, size_t nfirst)
{
	struct input_opts o = { .text = true, .text_lines = lines,
				.threads = threads };
	static char path[32];
	char *paths[1] = { path };
	struct input_info info;
	struct gs_err err;
	int fd[2];

	pr->ok = true;
	pr->say[0] = '\0';
	if (pipe(fd) < 0)
		return false;
	/* the probe waits for the first bytes: they are there */
	(void)!write(fd[1], first, nfirst);
	snprintf(path, sizeof(path), "/dev/fd/%d", fd[0]);
	pr->wfd = fd[1];
	if (input_open(&pr->in, paths, 1, &o, &err) < 0) {
		close(fd[0]);
		close(fd[1]);
		return false;
	}
	if (input_probe(pr->in, &info, &err) < 0) {
		input_close(pr->in);
		close(fd[0]);
		close(fd[1]);
		return false;
	}
	close(fd[0]);		/* the probe opened the path: its own one */
	input_set_dtype(pr->in, (struct gs_dtype){ .type = GS_U8 }, columns);
	return true;
}

/* A script: each write, then the values it lets out (the bytes of a
 * string: none is 0). The first write is made before the probe; NULL as
 * the write ends the input. */
struct step {
	const char *write;
	const char *out;
};

static const struct { bool lines; unsigned columns; struct step s[8]; } scripts[] = {
	/* the slow producer of test_text.sh, then more of its last field */
	{ false, 1, { { "1\n2 3", "\1\2" }, { "4", "" }, { " 5\n", "\42\5" },
		      { NULL, "" } } },
	{ false, 1, { { "1\n2 3", "\1\2" }, { NULL, "\3" } } },
	/* a byte at a time */
	{ false, 1, { { "1", "" }, { "2", "" }, { ",", "\14" }, { " ", "" },
		      { "3", "" }, { "\n", "\3" }, { "4", "" }, { NULL, "\4" } } },
	/* empty lines; a field that a newline alone ends */
	{ false, 1, { { "7\n", "\7" }, { "\n8", "" }, { "\r\n", "\10" },
		      { NULL, "" } } },
	/* -c 2: a line cut by a stall is checked when its second part
	 * comes */
	{ true, 2, { { "1 2\n3", "\1\2" }, { " 4", "\3" }, { "\n5 6", "\4\5" },
		     { NULL, "\6" } } },
};

/* Each script on 1, 2 and 4 threads. */
static void test_stall_scripts(void)
{
	struct producer pr;
	size_t i, j;
	int threads;

	for (i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++)
		for (threads = 1; threads <= 4; threads *= 2) {
			const struct step *s = scripts[i].s;

			if (!producer_open(&pr, threads, scripts[i].lines,
					   scripts[i].columns, s[0].write,
					   strlen(s[0].write))) {
				CHECKF(0, "script %zu: no pipe", i);
				continue;
			}
			for (j = 0; j == 0 || s[j - 1].write; j++) {
				if (j > 0 && s[j].write)
					(void)!write(pr.wfd, s[j].write, strlen(s[j].write));
				if (!s[j].write)
					close(pr.wfd);
				take(&pr, (const uint8_t *)s[j].out, strlen(s[j].out),
				     s[j].out[0] || !s[j].write, !s[j].write,
				     s[j].write ? s[j].write : "(the end)");
			}
			input_close(pr.in);
			CHECKF(pr.ok, "script %zu on %d threads: %s", i, threads, pr.say);
		}
}

static uint32_t rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Random fields (1 to 99) and separators written in runs of 1 to 12
 * bytes: after each run, the fields a separator has ended come out, the
 * last one only at the end. */
static void test_stall_random(void)
{
	static const char *const seps[] = { " ", "\n", ", ", " ,", "\t", "\r\n", "\n\n" };
	char text[1000];
	size_t end[160], nf, n, w, k, done, i;
	uint8_t val[160];
	uint32_t x = 12345;
	struct producer pr;
	int round, threads;

	for (round = 0; round < 12; round++) {
		threads = 1 << (round % 3);
		k = 60 + rnd(&x) % 100;
		for (n = 0, nf = 0; nf < k; nf++) {
			if (nf)
				n += (size_t)sprintf(text + n, "%s", seps[rnd(&x) % 7]);
			val[nf] = (uint8_t)(1 + rnd(&x) % 99);
			n += (size_t)sprintf(text + n, "%u", val[nf]);
			end[nf] = n;
		}
		if (rnd(&x) % 2)
			text[n++] = '\n';
		w = 1 + rnd(&x) % 12;
		if (!producer_open(&pr, threads, false, 1, text, w)) {
			CHECKF(0, "round %d: no pipe", round);
			break;
		}
		/* after each run, the fields whose separator is in the w bytes
		 * written */
		for (done = 0; pr.ok && w <= n; ) {
			for (k = done; k < nf && end[k] < w; k++)
				;
			take(&pr, val + done, k - done, k > done && rnd(&x) % 3 == 0,
			     false, "a run");
			done = k;
			if (w == n)
				break;
			i = 1 + rnd(&x) % 12;
			i = i < n - w ? i : n - w;
			(void)!write(pr.wfd, text + w, i);
			w += i;
		}
		close(pr.wfd);
		take(&pr, val + done, nf - done, true, true, "(the end)");
		input_close(pr.in);
		CHECKF(pr.ok, "round %d on %d threads: %s", round, threads, pr.say);
	}
}

/* --bits TYPE: one field per line on stdin, its bits in hex. */
static int print_bits(const char *type)
{
	struct gs_dtype dt;
	bool order;
	char line[8192];
	uint64_t v;

	if (type_parse(type, &dt, &order) < 0)
		return 2;
	while (fgets(line, sizeof(line), stdin)) {
		v = 0;
		if (textnum_parser(dt.type, false)(line, strcspn(line, "\n"), &v))
			printf("error\n");
		else
			printf("%" PRIx64 "\n", v);
	}
	return 0;
}

static void test_quotes(void)
{
	static const struct {
		const char *text, *value;	/* value NULL: an error */
		int rc;
		size_t used;			/* bytes of the field */
	} q[] = {
		{ "\"a,b\",1", "a,b", TQ_OK, 5 },
		{ "\"\"", "", TQ_OK, 2 },
		{ "\"x\"\"y\"\"\" z", "x\"y\"", TQ_OK, 8 },
		{ "\"\"\"\"", "\"", TQ_OK, 4 },
		{ "\"\t \"\n", "\t ", TQ_OK, 4 },
		{ "\"1.5\"\r\n", "1.5", TQ_OK, 5 },
		{ "\"ab\nc\"", NULL, TQ_OPEN, 3 },
		{ "\"ab", NULL, TQ_OPEN, 3 },
		{ "\"ab\"\"", NULL, TQ_OPEN, 5 },
		{ "\"ab\"c", NULL, TQ_AFTER, 4 },
	};

	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		char buf[64], *p = buf;
		const char *v = NULL;
		size_t n = 0, len = strlen(q[i].text);
		int rc;

		memcpy(buf, q[i].text, len + 1);
		rc = textquote_field(&p, buf + len, &v, &n);
		CHECKF(rc == q[i].rc && (size_t)(p - buf) == q[i].used &&
		       (!q[i].value || (n == strlen(q[i].value) &&
					memcmp(v, q[i].value, n) == 0)),
		       "%zu: rc %d used %zu", i, rc, (size_t)(p - buf));
	}
	/* the last separator after a field, never inside quotes */
	CHECK(textquote_cut("1,\"a, b\"", 0, 8) == 1);
	CHECK(textquote_cut("1,\"a, b\",", 0, 9) == 8);
	CHECK(textquote_cut("\"a,\"\",b", 0, 8) == 0);
	CHECK(textquote_cut("x\n\"a b\" c", 2, 10) == 7);
	CHECK(textquote_cut("a\"b c\" d", 0, 9) == 6);	/* not quoted */
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--bits") == 0)
		return print_bits(argv[2]);
	test_floats();
	test_long();
	test_ints();
	test_invalid();
	test_quotes();
	if (mkdtemp(dir)) {
		test_pieces();
		test_operands();
		signal(SIGALRM, stuck);
		signal(SIGPIPE, SIG_IGN);	/* a write to a closed input fails */
		alarm(60);
		test_stall_scripts();
		test_stall_random();
		alarm(0);
		if (system(NULL)) {
			char cmd[100];

			snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
			CHECK(system(cmd) == 0);
		}
	}
	UNIT_END();
}
