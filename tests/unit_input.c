/*
 * unit_input.c - the input layer: operands written at run time into a temp
 * directory (raw, npy from numpy's own writer, pgm/ppm, zstd made here with
 * libzstd), read back and compared byte for byte with what was written;
 * operand errors checked by their exact messages; stdin as a pipe with a
 * pausing writer (INPUT_STALL) and as a redirected file (rewind).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>
#include "informat.h"
#include "input.h"
#include "unit.h"
#include "input_vectors.h"

static char tmpdir[64];
static uint64_t zwindow;	/* input_opts.zstd_window for open_in */

/* ---- helpers ------------------------------------------------------------ */

struct warns {
	int n;
	struct gs_err e[8];
};

static void warn_cb(void *ctx, const struct gs_err *err)
{
	struct warns *w = ctx;

	if (w->n < 8)
		w->e[w->n] = *err;
	w->n++;
}

static char *path_of(const char *name)
{
	static char buf[8][256];
	static int k;
	char *p = buf[k++ % 8];

	snprintf(p, 256, "%s/%s", tmpdir, name);
	return p;
}

static char *put(const char *name, const void *data, size_t len)
{
	char *p = path_of(name);
	FILE *f = fopen(p, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		abort();
	return p;
}

/* Bytes that compress somewhat and are not all alike. */
static uint8_t *pattern(size_t n, uint32_t seed)
{
	uint8_t *p = malloc(n);
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)((seed >> 16) % 23 + (i % 7));
	}
	return p;
}

static uint8_t *cat2(const void *a, size_t na, const void *b, size_t nb)
{
	uint8_t *p = malloc(na + nb + 1);

	memcpy(p, a, na);
	memcpy(p + na, b, nb);
	return p;
}

static struct input *open_in(char **paths, int n, bool raw, struct warns *w)
{
	struct input_opts o = { .raw = raw, .zstd_window = zwindow,
				.warn = warn_cb, .warn_ctx = w };
	struct input *in;
	struct gs_err err;

	memset(w, 0, sizeof(*w));
	if (input_open(&in, paths, n, &o, &err) < 0)
		abort();
	return in;
}

/* Read everything with reads of at most chunk bytes. */
static size_t read_all(struct input *in, uint8_t *out, size_t cap, size_t chunk)
{
	struct gs_err err;
	size_t got = 0;
	ssize_t r;

	for (;;) {
		size_t n = cap - got < chunk ? cap - got : chunk;

		if (n == 0)
			return got;
		r = input_read(in, out + got, n, -1, &err);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	CHECK(r == 0);
	return got;
}

/* Open paths, read all, compare with want; returns the input still open. */
static struct input *expect_stream(char **paths, int n, bool raw,
				   const void *want, size_t len, size_t chunk,
				   struct warns *w)
{
	struct input *in = open_in(paths, n, raw, w);
	size_t cap = len + 4096;
	uint8_t *got = malloc(cap);
	size_t k = read_all(in, got, cap, chunk);

	CHECKF(k == len && memcmp(got, want, len) == 0,
	       "%s: read %zu bytes, want %zu", paths ? paths[0] : "stdin", k, len);
	free(got);
	return in;
}

static bool warned(const struct warns *w, int i, const char *where,
		   const char *what)
{
	if (i >= w->n || i >= 8)
		return false;
	if (strcmp(w->e[i].where, where) || strncmp(w->e[i].what, what, strlen(what))) {
		printf("  warning %d: %s: %s\n", i, w->e[i].where, w->e[i].what);
		return false;
	}
	return w->e[i].code == GS_ERUNTIME;
}

/* A zstd stream of unknown size, so the frame keeps the window asked for. */
static uint8_t *zpack(const void *src, size_t n, int wlog, bool ldm,
		      size_t *out_len)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(n) + 64, r;
	uint8_t *dst = malloc(cap);
	ZSTD_inBuffer in = { src, n / 2, 0 };
	ZSTD_outBuffer out = { dst, cap, 0 };

	ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	if (wlog)
		ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, wlog);
	if (ldm)
		ZSTD_CCtx_setParameter(c, ZSTD_c_enableLongDistanceMatching, 1);
	while (in.pos < in.size)
		ZSTD_compressStream2(c, &out, &in, ZSTD_e_continue);
	in.size = n;
	do
		r = ZSTD_compressStream2(c, &out, &in, ZSTD_e_end);
	while (r != 0 && !ZSTD_isError(r));
	CHECK(!ZSTD_isError(r));
	ZSTD_freeCCtx(c);
	*out_len = out.pos;
	return dst;
}

/* A .npy v1.0 file made by hand, for headers numpy would not write. */
static uint8_t *make_npy(const char *dict, const void *payload, size_t n,
			 size_t *len)
{
	size_t dl = strlen(dict), hl = (10 + dl + 1 + 63) / 64 * 64;
	uint8_t *p = malloc(hl + n);

	memcpy(p, "\x93NUMPY\x01\x00", 8);
	p[8] = (uint8_t)(hl - 10);
	p[9] = (uint8_t)((hl - 10) >> 8);
	memset(p + 10, ' ', hl - 10);
	memcpy(p + 10, dict, dl);
	p[hl - 1] = '\n';
	memcpy(p + hl, payload, n);
	*len = hl + n;
	return p;
}

/* ---- raw and npy -------------------------------------------------------- */

static void test_raw(void)
{
	size_t n = 300001;
	uint8_t *d = pattern(n, 1);
	char *p[] = { put("raw.bin", d, n) };
	struct input_info info;
	struct gs_err err;
	struct warns w;
	struct input *in = open_in(p, 1, false, &w);

	CHECK(input_probe(in, &info, &err) == 0);
	CHECK(!info.has_type && strcmp(info.format, "raw") == 0);
	CHECK(info.total_bytes == (int64_t)n);
	input_close(in);
	input_close(expect_stream(p, 1, false, d, n, 4093, &w));
	input_close(expect_stream(p, 1, false, d, n, 1 << 20, &w));
	CHECK(w.n == 0);
	free(d);
}

static void test_npy_vectors(void)
{
	struct input_info info;
	struct gs_err err;
	struct warns w;
	size_t i;

	for (i = 0; i < sizeof(npy_vecs) / sizeof(npy_vecs[0]); i++) {
		const struct npy_vec *v = &npy_vecs[i];
		char *p[] = { put(v->name, v->file, v->file_len) };
		struct input *in = open_in(p, 1, false, &w);

		CHECK(input_probe(in, &info, &err) == 0);
		CHECKF(info.has_type && info.dtype.type == v->type &&
		       info.dtype.big_endian == v->big_endian &&
		       info.columns == v->columns &&
		       strcmp(info.format, "npy") == 0, "%s", v->name);
		CHECK(info.total_bytes == (int64_t)v->payload_len);
		input_close(in);
		input_close(expect_stream(p, 1, false, v->payload,
					  v->payload_len, 5, &w));
		CHECKF(w.n == 0, "%s", v->name);
	}
}

static void expect_info(char *path, const char *format, enum gs_type t,
			bool be, unsigned columns, int64_t total)
{
	struct input_info info;
	struct gs_err err;
	struct warns w;
	struct input *in = open_in(&path, 1, false, &w);

	CHECK(input_probe(in, &info, &err) == 0);
	CHECKF(info.has_type && info.dtype.type == t && info.dtype.big_endian == be &&
	       info.columns == columns && strcmp(info.format, format) == 0 &&
	       info.total_bytes == total, "%s: %s %d %u %lld", path, info.format,
	       info.dtype.type, info.columns, (long long)info.total_bytes);
	input_close(in);
}

static void test_npy_errors(void)
{
	const struct npy_vec *v = &npy_vecs[0];	/* 24 payload bytes */
	char *p[1];
	struct warns w;
	struct input *in;
	uint8_t *f;
	size_t n;

	p[0] = put("short.npy", v->file, v->file_len - 4);
	in = expect_stream(p, 1, false, v->payload, 20, 7, &w);
	CHECK(warned(&w, 0, p[0], "npy header says 24 data bytes, file has 20"));
	CHECK(input_failed(in));
	input_close(in);

	f = cat2(v->file, v->file_len, "xyz", 3);
	p[0] = put("long.npy", f, v->file_len + 3);
	in = expect_stream(p, 1, false, v->payload, 24, 1 << 16, &w);
	CHECK(warned(&w, 0, p[0], "npy header says 24 data bytes, file has 27"));
	CHECK(w.n == 1 && input_failed(in));
	input_close(in);
	free(f);

	/* np.asfortranarray(np.arange(6, dtype='<i4').reshape(2, 3)): read
	 * back in row-major order, 0 to 5, whatever the read size */
	p[0] = put("f2d.npy", npy_fortran_2d_file, sizeof(npy_fortran_2d_file));
	{
		static const uint8_t want[24] = { 0, 0, 0, 0, 1, 0, 0, 0, 2,
			0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0 };
		static const size_t sizes[] = { 1, 3, 4, 5, 12, 13, 24, 64 };

		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			input_close(expect_stream(p, 1, false, want, 24,
						  sizes[i], &w));
			CHECKF(w.n == 0, "read size %zu: %s", sizes[i], w.e[0].what);
		}
	}
	expect_info(p[0], "npy", GS_I32, false, 3, 24);
	/* a Fortran array in zstd cannot be read column by column */
	{
		size_t za;
		uint8_t *z = zpack(npy_fortran_2d_file,
				   sizeof(npy_fortran_2d_file), 0, false, &za);

		p[0] = put("f2d.npy.zst", z, za);
		input_close(expect_stream(p, 1, false, "", 0, 64, &w));
		CHECK(warned(&w, 0, p[0], "fortran-order npy with 2 axes can only be read from an uncompressed file, not from zstd (save np.ascontiguousarray(a) instead)"));
		free(z);
	}
	/* a Fortran file cut short is named before anything is read */
	p[0] = put("f2dcut.npy", npy_fortran_2d_file, sizeof(npy_fortran_2d_file) - 1);
	input_close(expect_stream(p, 1, false, "", 0, 64, &w));
	CHECK(warned(&w, 0, p[0], "npy header says 24 data bytes, file has 23"));

	f = make_npy("{'descr': '<f8', 'fortran_order': True, 'shape': (2,), }",
		     "abcdefghABCDEFGH", 16, &n);
	p[0] = put("f1d.npy", f, n);
	input_close(expect_stream(p, 1, false, "abcdefghABCDEFGH", 16, 64, &w));
	CHECK(w.n == 0);
	free(f);

	/* a structured dtype of numeric fields is records (mixed types);
	 * a string field is refused where it is */
	f = make_npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
		     "abcd", 4, &n);
	p[0] = put("rec.npy", f, n);
	input_close(expect_stream(p, 1, false, "abcd", 4, 64, &w));
	CHECK(w.n == 0);
	free(f);
	f = make_npy("{'descr': [('a', '|S4')], 'fortran_order': False, 'shape': (1,), }",
		     "abcd", 4, &n);
	p[0] = put("recs.npy", f, n);
	input_close(expect_stream(p, 1, false, "", 0, 64, &w));
	CHECK(warned(&w, 0, p[0], "bad npy header at byte 27: field 'a': "
		     "unsupported dtype '|S4'"));
	free(f);

	f = make_npy("{'descr': '<f4', 'shape': (1,), }", "abcd", 4, &n);
	p[0] = put("nofo.npy", f, n);
	input_close(expect_stream(p, 1, false, "", 0, 64, &w));
	CHECK(warned(&w, 0, p[0], "bad npy header at byte 10: missing key 'fortran_order'"));
	free(f);

	p[0] = put("trunc.npy", v->file, 40);
	input_close(expect_stream(p, 1, false, "", 0, 64, &w));
	CHECK(warned(&w, 0, p[0], "truncated npy header at byte 40"));
}

/* ---- Netpbm ------------------------------------------------------------- */

static void test_pnm(void)
{
	static const char pgm8[] = "P5\n# made by hand\n3 # width\n2\n#x\n255\nABCDEF";
	static const char pgm16[] = "P5 2 1 65535\t\x01\x02\x03\x04";
	static const char ppm[] = "P6\n2 1\n255\rRGBrgb";
	static const char two[] = "P6 1 1 255\nRGBP6 2 1 255\nxyzXYZ\n\n";
	static const char cut2[] = "P6 1 1 255\nRGBP6 2 1 255\nxyzXY";
	char *p[1];
	struct warns w;

	p[0] = put("a.pgm", pgm8, sizeof(pgm8) - 1);
	expect_info(p[0], "pgm", GS_U8, false, 1, 6);
	input_close(expect_stream(p, 1, false, "ABCDEF", 6, 4, &w));
	CHECK(w.n == 0);

	p[0] = put("b.pgm", pgm16, sizeof(pgm16) - 1);
	expect_info(p[0], "pgm", GS_U16, true, 1, 4);
	input_close(expect_stream(p, 1, false, "\x01\x02\x03\x04", 4, 3, &w));
	CHECK(w.n == 0);

	p[0] = put("c.ppm", ppm, sizeof(ppm) - 1);
	expect_info(p[0], "ppm", GS_U8, false, 3, 6);
	input_close(expect_stream(p, 1, false, "RGBrgb", 6, 100, &w));
	CHECK(w.n == 0);

	p[0] = put("two.ppm", two, sizeof(two) - 1);
	expect_info(p[0], "ppm", GS_U8, false, 3, -1);
	input_close(expect_stream(p, 1, false, "RGBxyzXYZ", 9, 2, &w));
	CHECK(w.n == 0);

	p[0] = put("cut2.ppm", cut2, sizeof(cut2) - 1);
	input_close(expect_stream(p, 1, false, "RGBxyzXY", 8, 64, &w));
	CHECK(warned(&w, 0, p[0], "ppm image 2 header says 6 data bytes, file has 5"));

	p[0] = put("cut.pgm", pgm8, sizeof(pgm8) - 2);
	input_close(expect_stream(p, 1, false, "ABCDE", 5, 64, &w));
	CHECK(warned(&w, 0, p[0], "pgm header says 6 data bytes, file has 5"));

	p[0] = put("max0.pgm", "P5 1 1 0\nA", 10);
	input_close(expect_stream(p, 1, false, "", 0, 64, &w));
	CHECK(warned(&w, 0, p[0], "bad pgm header at byte 7: maxval 0 is not in 1..65535"));

	p[0] = put("junk.ppm", "P6 1 1 255\nRGBjunk", 18);
	input_close(expect_stream(p, 1, false, "RGB", 3, 64, &w));
	CHECK(warned(&w, 0, p[0], "bad ppm header at byte 14: not a pgm or ppm header"));
}

/* ---- zstd --------------------------------------------------------------- */

static void test_zstd_frames(void)
{
	size_t n = 1 << 20, za, zb;
	uint8_t *d = pattern(n, 2), *a, *b, *ab, *skip;
	char *p[1];
	struct input_info info;
	struct gs_err err;
	struct warns w;
	struct input *in;

	a = zpack(d, n / 3, 0, false, &za);
	b = zpack(d + n / 3, n - n / 3, 0, false, &zb);
	p[0] = put("one.zst", a, za);
	input_close(expect_stream(p, 1, false, d, n / 3, 65536, &w));
	p[0] = put("one.bin", a, za);	/* found by its magic */
	in = expect_stream(p, 1, false, d, n / 3, 1 << 20, &w);
	input_close(in);
	in = open_in(p, 1, false, &w);
	CHECK(input_probe(in, &info, &err) == 0);
	CHECK(strcmp(info.format, "raw (zstd)") == 0 && info.total_bytes == -1);
	input_close(in);

	ab = cat2(a, za, b, zb);
	p[0] = put("two.zst", ab, za + zb);
	input_close(expect_stream(p, 1, false, d, n, 100000, &w));
	CHECK(w.n == 0);

	/* a skippable frame (magic 0x184D2A5A, 5 bytes) before the data */
	skip = cat2("\x5a\x2a\x4d\x18\x05\x00\x00\x00hello", 13, a, za);
	p[0] = put("skip.dat", skip, za + 13);
	input_close(expect_stream(p, 1, false, d, n / 3, 333333, &w));
	CHECK(w.n == 0);

	/* --raw: the bytes as they are, zstd magic and .zst name or not */
	input_close(expect_stream(p, 1, true, skip, za + 13, 4096, &w));
	p[0] = path_of("two.zst");
	input_close(expect_stream(p, 1, true, ab, za + zb, 4096, &w));
	CHECK(w.n == 0);

	/* truncated: the stream decodes up to where the frame stops */
	p[0] = put("cut.zst", a, za - 10);
	in = open_in(p, 1, false, &w);
	{
		uint8_t *got = malloc(n);
		size_t k = read_all(in, got, n, 8192);

		CHECK(k < n / 3 && memcmp(got, d, k) == 0);
		free(got);
	}
	input_close(in);
	snprintf(err.what, sizeof(err.what),
		 "truncated zstd frame at compressed byte %zu", za - 10);
	CHECK(warned(&w, 0, p[0], err.what));

	/* corrupt: bytes flipped in the middle of the second frame (the
	 * checksum catches it); the error names where that frame begins,
	 * whatever the read size (fuzz finding 4) */
	memset(ab + za + zb / 2, 0x55, 16);
	p[0] = put("bad.zst", ab, za + zb);
	snprintf(err.what, sizeof(err.what),
		 "corrupt zstd frame at compressed byte %zu: ", za);
	for (size_t rs = 16; rs <= (1 << 20); rs *= 256) {
		uint8_t *got = malloc(n);

		in = open_in(p, 1, false, &w);
		read_all(in, got, n, rs);
		free(got);
		CHECK(input_failed(in));
		input_close(in);
		CHECK(warned(&w, 0, p[0], err.what));
	}

	free(a);
	free(b);
	free(ab);
	free(skip);
	free(d);
}

/* npy inside zstd: the header is read through the decoder. */
static void test_zstd_npy(void)
{
	size_t nz = npy_vecs[2].file_len, za;
	uint8_t *a = zpack(npy_vecs[2].file, nz, 0, false, &za);
	char *p[1];
	struct input_info info;
	struct gs_err err;
	struct warns w;
	struct input *in;

	p[0] = put("v3.npy.zst", a, za);
	in = open_in(p, 1, false, &w);
	CHECK(input_probe(in, &info, &err) == 0);
	CHECK(strcmp(info.format, "npy (zstd)") == 0 && info.has_type &&
	      info.dtype.type == GS_F16 && info.columns == 6);
	input_close(in);
	input_close(expect_stream(p, 1, false, npy_vecs[2].payload,
				  npy_vecs[2].payload_len, 3, &w));
	CHECK(w.n == 0);
	free(a);
}

/* Long-distance matches in a big window: up to zstd's default limit of
 * 2^27 by default, as the zstd CLI; a larger window needs the limit raised
 * (--long, --memory), to the window's exact size at least. */
static void test_zstd_long(void)
{
	size_t blk = 1 << 20, n = 3 * blk, za;
	uint8_t *d = pattern(n, 3), *a;
	char *p[1];
	struct warns w;
	int wlog;

	memcpy(d + 2 * blk, d, blk);
	for (wlog = 27; wlog <= 29; wlog += 2) {
		a = zpack(d, n, wlog, true, &za);
		CHECK(za < n / 2);	/* the repeat was found */
		p[0] = put("long.zst", a, za);
		zwindow = wlog > 27 ? (uint64_t)1 << wlog : 0;
		input_close(expect_stream(p, 1, false, d, n, 1 << 20, &w));
		CHECKF(w.n == 0, "windowLog %d: %s", wlog, w.e[0].what);
		free(a);
	}
	/* 2^29 against the default and one byte less than it */
	zwindow = 0;
	input_close(expect_stream(p, 1, false, "", 0, 1 << 20, &w));
	CHECK(warned(&w, 0, p[0], "zstd frame at compressed byte 0 needs a 512 MiB window, over the 128 MiB limit (--long=31 or --memory=512M allows it)"));
	zwindow = ((uint64_t)1 << 29) - 1;
	input_close(expect_stream(p, 1, false, "", 0, 1 << 20, &w));
	CHECK(warned(&w, 0, p[0], "zstd frame at compressed byte 0 needs a 512 MiB window, over the 536870911 bytes limit"));
	zwindow = 0;
	free(d);
}

#include "unit_input_edges.h"

/* ---- several operands --------------------------------------------------- */

static void test_operands(void)
{
	const struct npy_vec *u8v = &npy_vecs[3];
	size_t n = 5000, za, total = 0;
	uint8_t *d = pattern(n, 4), *a, want[20000];
	char *p[6];
	struct input_info info;
	struct gs_err err;
	struct warns w;
	struct input *in;

	a = zpack(d, n, 0, false, &za);
	p[0] = put("op1.raw", d, 1000);
	p[1] = put("op2.npy", u8v->file, u8v->file_len);
	p[2] = path_of("missing.bin");
	p[3] = put("op4.zst", a, za);
	p[4] = tmpdir;
	p[5] = put("op6.pgm", "P5 2 2 255 wxyz", 15);
	memcpy(want, d, 1000);
	total = 1000;
	memcpy(want + total, u8v->payload, u8v->payload_len);
	total += u8v->payload_len;
	memcpy(want + total, d, n);
	total += n;
	memcpy(want + total, "wxyz", 4);
	total += 4;
	in = expect_stream(p, 6, false, want, total, 777, &w);
	CHECK(input_failed(in) && w.n == 2);
	CHECK(warned(&w, 0, p[2], "No such file or directory"));
	CHECK(warned(&w, 1, tmpdir, "is a directory"));
	input_close(in);

	/* total: known for regular uncompressed files only */
	in = open_in(p, 2, false, &w);
	CHECK(input_probe(in, &info, &err) == 0);
	CHECK(info.total_bytes == (int64_t)(1000 + u8v->payload_len));
	input_close(in);
	in = open_in(p, 4, false, &w);
	CHECK(input_probe(in, &info, &err) == 0 && info.total_bytes == -1);
	input_close(in);

	/* types that differ from the stream's */
	p[0] = put("f32.npy", npy_vecs[0].file, npy_vecs[0].file_len);
	p[1] = put("f16.npy", npy_vecs[2].file, npy_vecs[2].file_len);
	p[2] = put("f32b.npy", npy_vecs[0].file, npy_vecs[0].file_len);
	in = open_in(p, 3, false, &w);
	CHECK(input_probe(in, &info, &err) == 0 && info.columns == 2);
	input_set_dtype(in, info.dtype, info.columns);
	{
		uint8_t got[64];
		size_t k = read_all(in, got, sizeof(got), 64);

		CHECK(k == 48 && memcmp(got, npy_vecs[0].payload, 24) == 0 &&
		      memcmp(got + 24, npy_vecs[0].payload, 24) == 0);
	}
	CHECK(warned(&w, 0, p[1], "type f16 does not match the stream's f32"));
	CHECK(w.n == 1);
	input_close(in);

	p[1] = put("ppm.ppm", "P6 1 1 255\nRGB", 14);
	p[2] = put("pgm.pgm", "P5 1 1 255\nG", 12);
	in = open_in(p + 1, 2, false, &w);
	CHECK(input_probe(in, &info, &err) == 0);
	{
		uint8_t got[64];

		CHECK(read_all(in, got, sizeof(got), 64) == 3);
	}
	CHECK(warned(&w, 0, p[2], "1 column does not match the stream's 3"));
	input_close(in);
	free(a);
	free(d);
}

/* ---- stdin -------------------------------------------------------------- */

/* Run writer in a child with its stdout as our stdin; returns its pid. */
static pid_t pipe_stdin(const uint8_t *d, size_t n, size_t first, int pause_ms,
			int *saved)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0)
		abort();
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		if (write(fds[1], d, first) != (ssize_t)first)
			_exit(1);
		usleep((useconds_t)pause_ms * 1000);
		if (write(fds[1], d + first, n - first) != (ssize_t)(n - first))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	*saved = dup(STDIN_FILENO);
	dup2(fds[0], STDIN_FILENO);
	close(fds[0]);
	return pid;
}

static void restore_stdin(int saved, pid_t pid)
{
	int st;

	dup2(saved, STDIN_FILENO);
	close(saved);
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Read with stall_ms 20: count the stalls, compare the bytes. */
static void stall_read(const uint8_t *want, size_t n, int min_stalls)
{
	uint8_t *got = malloc(n + 16);
	struct gs_err err;
	struct warns w;
	char *argv_end[] = { NULL };	/* as main passes it: no operands */
	struct input *in = open_in(argv_end, 0, false, &w);
	size_t k = 0;
	int stalls = 0;
	ssize_t r;

	CHECK(!input_rewindable(in));
	while ((r = input_read(in, got + k, n + 16 - k, 20, &err)) != 0) {
		if (r == INPUT_STALL) {
			stalls++;
			continue;
		}
		if (r < 0)
			break;
		k += (size_t)r;
	}
	CHECKF(stalls >= min_stalls, "%d stalls", stalls);
	CHECK(k == n && memcmp(got, want, n) == 0 && w.n == 0);
	input_close(in);
	free(got);
}

static void test_stdin_pipe(void)
{
	const struct npy_vec *v = &npy_vecs[0];
	size_t n = 100000;
	uint8_t *d = pattern(n, 5);
	int saved;
	pid_t pid;

	pid = pipe_stdin(d, n, 1000, 200, &saved);
	stall_read(d, n, 1);
	restore_stdin(saved, pid);

	/* the pause falls inside the npy header */
	pid = pipe_stdin(v->file, v->file_len, 5, 100, &saved);
	stall_read(v->payload, v->payload_len, 1);
	restore_stdin(saved, pid);
	free(d);
}

static void test_rewind(void)
{
	size_t n = 70000;
	uint8_t *d = pattern(n, 6), *both = cat2(d, n, npy_vecs[1].payload,
						   npy_vecs[1].payload_len);
	char *p[2];
	struct input_info info;
	struct gs_err err;
	struct warns w;
	struct input *in;
	int saved, fd;

	p[0] = put("rw.raw", d, n);
	p[1] = put("rw.npy", npy_vecs[1].file, npy_vecs[1].file_len);
	in = expect_stream(p, 2, false, both, n + 10, 65536, &w);
	CHECK(input_rewindable(in) && input_rewind(in, &err) == 0);
	{
		uint8_t *got = malloc(n + 100);

		CHECK(read_all(in, got, n + 100, 4096) == n + 10 &&
		      memcmp(got, both, n + 10) == 0);
		free(got);
	}
	input_close(in);

	/* stdin redirected from a file, already read 100 bytes into */
	fd = open(p[0], O_RDONLY);
	saved = dup(STDIN_FILENO);
	dup2(fd, STDIN_FILENO);
	close(fd);
	lseek(STDIN_FILENO, 100, SEEK_SET);
	in = open_in(NULL, 0, false, &w);
	CHECK(input_probe(in, &info, &err) == 0 && info.total_bytes == (int64_t)n - 100);
	{
		uint8_t *got = malloc(n);

		CHECK(read_all(in, got, n, 10000) == n - 100 &&
		      memcmp(got, d + 100, n - 100) == 0);
		CHECK(input_rewindable(in) && input_rewind(in, &err) == 0);
		CHECK(read_all(in, got, n, 1 << 20) == n - 100 &&
		      memcmp(got, d + 100, n - 100) == 0);
		free(got);
	}
	CHECK(w.n == 0);
	input_close(in);
	dup2(saved, STDIN_FILENO);
	close(saved);
	free(both);
	free(d);
}

static int rm_entry(const char *name)
{
	return unlink(path_of(name));
}

int main(void)
{
	static const char *const files[] = {
		"raw.bin", "v1_f32_3x2", "v2_i16be_5", "v3_f16_2x2x3", "v1_u8_7",
		"v1_f64_5", "v1_u16_scalar", "short.npy", "long.npy", "f2d.npy",
		"f1d.npy", "rec.npy", "recs.npy", "nofo.npy", "trunc.npy", "a.pgm", "b.pgm",
		"c.ppm", "two.ppm", "cut2.ppm", "cut.pgm", "max0.pgm", "junk.ppm",
		"one.zst", "one.bin", "two.zst", "skip.dat", "cut.zst", "bad.zst",
		"v3.npy.zst", "long.zst", "op1.raw", "op2.npy", "op4.zst",
		"op6.pgm", "f32.npy", "f16.npy", "f32b.npy", "ppm.ppm", "pgm.pgm",
		"rw.raw", "rw.npy", "f2d.npy.zst", "f2dcut.npy", "p2.pgm",
		"p2w.pgm", "p3.ppm", "p2short.pgm", "p2long.pgm", "p2max.pgm",
		"p2bad.pgm", "max8.pgm", "max16.pgm", "max16ok.pgm",
		"x.bz2", "x.xz", "x.lz4", "x.png", "x.jpg", "x.pbm", "x4.pbm",
		"x.pam", "x.pfm", "x.short", "nul.npy", "int.npy", "bool.npy",
		"wide.npy", "f1x3.npy", "boolf.npy",
	};
	size_t i;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/unit_input.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	test_raw();
	test_npy_vectors();
	test_npy_errors();
	test_pnm();
	test_zstd_frames();
	test_zstd_npy();
	test_zstd_long();
	test_plain_pnm();
	test_maxval();
	test_foreign();
	test_format_table();
	test_npy_numpy_rules();
	test_operands();
	test_stdin_pipe();
	test_rewind();
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		rm_entry(files[i]);
	rmdir(tmpdir);
	UNIT_END();
}
