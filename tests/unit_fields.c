/*
 * unit_fields.c - -F LIST (fields.h) and --header's line (headline.h):
 * lists and their errors, names split as CSV or by white space, header
 * lines gathered from pieces and compared, and the projection read with
 * every read size from 1 byte up, over records that straddle the reads,
 * against the columns gathered here by hand; a partial last record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fields.h"
#include "headline.h"
#include "input.h"
#include "unit.h"

/* The columns LIST selects from records of width values, as "c,c,..."
 * (1-based), or the error's text. */
static const char *resolve(const char *list, unsigned width,
			   const struct headline *h)
{
	static char out[sizeof(((struct gs_err *)0)->what)];
	struct fields *f = NULL;
	struct gs_err err;
	unsigned *cols, n, i;
	size_t len = 0;

	if (fields_parse(list, &f, &err) < 0 ||
	    fields_resolve(f, width, h, "x", &cols, &n, &err) < 0) {
		snprintf(out, sizeof(out), "%s", err.what);
		fields_free(f);
		return out;
	}
	out[0] = '\0';
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%u",
					i ? "," : "", cols[i] + 1);
	free(cols);
	fields_free(f);
	return out;
}

#define EXPECT(list, width, h, want) \
	CHECKF(strstr(resolve(list, width, h), want) != NULL, \
	       "'%s' of %u: '%s', wanted '%s'", list, width, \
	       resolve(list, width, h), want)

static void test_lists(void)
{
	EXPECT("2", 4, NULL, "2");
	EXPECT("3,1", 4, NULL, "3,1");
	EXPECT("2-4", 4, NULL, "2,3,4");
	EXPECT("3-", 4, NULL, "3,4");
	EXPECT("-2", 4, NULL, "1,2");
	EXPECT("4,1-2,4", 4, NULL, "4,1,2,4");
	EXPECT("1-1", 1, NULL, "1");
	EXPECT("0", 4, NULL, "'0' is not a column number");
	EXPECT("1-2-3", 4, NULL, "'1-2-3' is not a column number");
	EXPECT("-", 4, NULL, "'-' is not a column number");
	EXPECT("9999999", 4, NULL, "is not a column number");
	EXPECT("3-2", 4, NULL, "range '3-2' runs backwards");
	EXPECT("1,", 4, NULL, "an empty item");
	EXPECT("", 4, NULL, "an empty item");
	EXPECT("5", 4, NULL, "column 5 is past the record's 4 values");
	EXPECT("2-5", 4, NULL, "column 5 is past");
	EXPECT("5-", 4, NULL, "column 5 is past");
	EXPECT("x", 4, NULL, "'x' is a column name, and the input has no header");
}

/* A header made of line, fed in pieces of k bytes. */
static struct headline *header_of(const char *line, size_t k, int *rc,
				  struct gs_err *err)
{
	struct headline *h = headline_new(true);
	size_t n = strlen(line), at = 0, used;

	do {
		size_t m = n - at < k ? n - at : k;

		*rc = headline_take(h, "x", (const uint8_t *)line + at, m,
				    at + m == n, &used, err);
		at += used;
	} while (*rc == 0);
	return h;
}

static void test_headers(void)
{
	static const size_t pieces[] = { 1, 2, 5, 1000 };
	struct gs_err err;
	struct headline *h;
	int rc;

	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		h = header_of("\xef\xbb\xbf a , \"b,c\" ,\"d\"\"e\",,f g\r\n1,2",
			      pieces[i], &rc, &err);
		CHECKF(rc == 1 && headline_width(h) == 5, "%d %u %s", rc,
		       headline_width(h), err.what);
		if (rc == 1 && headline_width(h) == 5) {
			CHECK(strcmp(headline_name(h, 0), "a") == 0);
			CHECK(strcmp(headline_name(h, 1), "b,c") == 0);
			CHECK(strcmp(headline_name(h, 2), "d\"e") == 0);
			CHECK(strcmp(headline_name(h, 3), "") == 0);
			CHECK(strcmp(headline_name(h, 4), "f g") == 0);
			EXPECT("d\"e,a,f g", 5, h, "3,1,5");
			EXPECT("a,5", 5, h, "1,5");
			EXPECT("b", 5, h, "no column 'b' in the header (a, b,c, d\"e, , f g)");
		}
		headline_free(h);
	}
	/* white space: runs of it, quotes around a name with a space */
	h = header_of("x  \"y z\"\tw\n", 3, &rc, &err);
	CHECK(rc == 1 && headline_width(h) == 3 &&
	      strcmp(headline_name(h, 1), "y z") == 0);
	EXPECT("w,y z", 3, h, "3,2");
	headline_free(h);
	/* the same name twice */
	h = header_of("a,b,a\n", 4, &rc, &err);
	EXPECT("a", 3, h, "'a' names columns 1 and 3");
	EXPECT("b", 3, h, "2");
	headline_free(h);
	/* errors: empty, binary, a quote that does not close */
	h = header_of(" \r\n1\n", 2, &rc, &err);
	CHECK(rc < 0 && strstr(err.what, "the first line is empty"));
	headline_free(h);
	h = header_of("ab\001c\n", 9, &rc, &err);
	CHECK(rc < 0 && strstr(err.what, "byte 0x01 at 2"));
	headline_free(h);
	h = header_of("a,\"b\n", 9, &rc, &err);
	CHECK(rc < 0 && strstr(err.what, "a quote that does not close"));
	headline_free(h);
}

/* A second operand's line: the first's (BOM and CRLF aside) or an error
 * naming both. */
static void test_second(void)
{
	struct headline *h = headline_new(true);
	struct gs_err err;
	size_t used;
	int rc;

	headline_take(h, "a", (const uint8_t *)"x,y\n1,2\n", 8, true, &used, &err);
	CHECK(used == 4 && strcmp(headline_line(h), "x,y") == 0);
	rc = headline_take(h, "b", (const uint8_t *)"\xef\xbb\xbfx,y\r\n", 8,
			   true, &used, &err);
	CHECK(rc == 1 && used == 8);
	rc = headline_take(h, "c", (const uint8_t *)"x,z\n", 4, true, &used, &err);
	CHECK(rc < 0 && strcmp(err.where, "c") == 0 &&
	      strstr(err.what, "header 'x,z' is not the first operand's 'x,y'"));
	/* an empty operand has none */
	rc = headline_take(h, "d", (const uint8_t *)"", 0, true, &used, &err);
	CHECK(rc == 1 && used == 0);
	headline_free(h);
}

/* A count: the first non-empty line's fields, nothing taken. */
static void test_count(void)
{
	struct headline *h = headline_new(false);
	struct gs_err err;
	size_t used;

	CHECK(headline_due(h));
	CHECK(headline_take(h, "a", (const uint8_t *)"\n 1, 2 3", 8, false,
			    &used, &err) == 0);
	CHECK(headline_take(h, "a", (const uint8_t *)"\n 1, 2 3\n4", 10, false,
			    &used, &err) == 1 && used == 0);
	CHECK(headline_width(h) == 3 && !headline_due(h));
	headline_free(h);
	h = headline_new(false);
	CHECK(headline_take(h, "a", (const uint8_t *)"1,2", 3, true, &used,
			    &err) == 1 && headline_width(h) == 2);
	headline_free(h);
}

static void warn_cb(void *ctx, const struct gs_err *e)
{
	*(struct gs_err *)ctx = *e;
}

/* Records of width u16 values cut to cols, read k bytes at a time,
 * against the gather done here. */
static void check_proj(const char *path, const uint16_t *v, size_t nrec,
		       unsigned width, const unsigned *cols, unsigned n,
		       size_t k)
{
	struct gs_err err, warned = { 0 };
	char *paths[1] = { (char *)path };
	struct input_opts o = { .raw = true, .warn = warn_cb,
				.warn_ctx = &warned };
	struct input *in;
	uint16_t *got = malloc(nrec * n * 2 + 16), *want = malloc(nrec * n * 2 + 1);
	size_t have = 0, r, c;
	ssize_t m;

	if (input_open(&in, paths, 1, &o, &err) < 0)
		return;
	input_set_dtype(in, (struct gs_dtype){ .type = GS_U16 }, width);
	CHECK(input_project(in, cols, n, width, &err) == 0);
	while ((m = input_read(in, (uint8_t *)got + have, k, -1, &err)) > 0)
		have += (size_t)m;
	for (r = 0; r < nrec; r++)
		for (c = 0; c < n; c++)
			want[r * n + c] = v[r * width + cols[c]];
	CHECKF(m == 0 && have == nrec * n * 2 &&
	       memcmp(got, want, have) == 0, "read %zu: %zd, %zu bytes", k,
	       m, have);
	input_close(in);
	free(got);
	free(want);
}

static void test_projection(void)
{
	enum { W = 5, R = 1001 };
	static const unsigned cols[] = { 4, 1, 1, 3 };
	static const size_t reads[] = { 1, 2, 3, 7, 8, 9, 10, 4096, 1 << 20 };
	char path[] = "/tmp/unit_fields.XXXXXX";
	uint16_t *v = malloc(W * R * 2);
	int fd = mkstemp(path);
	struct gs_err err, warned = { 0 };
	char *paths[1] = { path };
	struct input_opts o = { .raw = true, .warn = warn_cb,
				.warn_ctx = &warned };
	struct input *in;
	uint8_t buf[64];
	ssize_t m;

	for (size_t i = 0; i < (size_t)W * R; i++)
		v[i] = (uint16_t)(i * 2654435761u >> 7);
	CHECK(fd >= 0 && write(fd, v, W * R * 2) == W * R * 2);
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		check_proj(path, v, R, W, cols, 4, reads[i]);
		check_proj(path, v, R, W, cols + 3, 1, reads[i]);
	}
	/* a partial last record: the whole ones, then the error */
	CHECK(write(fd, v, 3) == 3);
	if (input_open(&in, paths, 1, &o, &err) == 0) {
		size_t have = 0;

		input_set_dtype(in, (struct gs_dtype){ .type = GS_U16 }, W);
		input_project(in, cols, 4, W, &err);
		while ((m = input_read(in, buf, sizeof(buf), -1, &err)) > 0)
			have += (size_t)m;
		CHECKF(m < 0 && have == R * 4 * 2 &&
		       strstr(err.what, "trailing 3 bytes do not make a whole "
			      "record (5 x u16 is 10 bytes)"), "%zu %s", have,
		       err.what);
		input_close(in);
	}
	close(fd);
	unlink(path);
	free(v);
}

int main(void)
{
	test_lists();
	test_headers();
	test_second();
	test_count();
	test_projection();
	UNIT_END();
}
