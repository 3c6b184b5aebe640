/*
 * unit_input_edges.h - unit_input.c's tests of plain pnm, maxval, refused
 * formats and numpy's rules, included by it: they use its
 * helpers (put, open_in, expect_stream, warned).
 */

/* ---- plain pnm, maxval, refused formats, numpy's rules ------------------- */

/* Every read size, from one byte on, gives the same stream. */
static void expect_sizes(char **p, const void *want, size_t len)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 64, 1 << 16 };
	struct warns w;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		input_close(expect_stream(p, 1, false, want, len, sizes[i], &w));
		CHECKF(w.n == 0, "%s, reads of %zu: %s", p[0], sizes[i],
		       w.e[0].what);
	}
}

static void test_plain_pnm(void)
{
	static const char p2[] = "P2\n# c\n3 2\n255\n65 66 # x\n67\n\n68\t69 70";
	static const char p2w[] = "P2 2 1 1000 999 1000\n";
	static const char p3[] = "P3 2 1 7 1 2 3\r\n4#5\n5 6 ";
	char *p[1];
	struct warns w;

	p[0] = put("p2.pgm", p2, sizeof(p2) - 1);
	expect_info(p[0], "pgm", GS_U8, false, 1, 6);
	expect_sizes(p, "ABCDEF", 6);
	p[0] = put("p2w.pgm", p2w, sizeof(p2w) - 1);
	expect_info(p[0], "pgm", GS_U16, true, 1, 4);
	expect_sizes(p, "\x03\xe7\x03\xe8", 4);
	p[0] = put("p3.ppm", p3, sizeof(p3) - 1);
	expect_info(p[0], "ppm", GS_U8, false, 3, 6);
	expect_sizes(p, "\x01\x02\x03\x04\x05\x06", 6);

	p[0] = put("p2short.pgm", "P2 2 2 9 1 2 3", 14);
	input_close(expect_stream(p, 1, false, "\x01\x02\x03", 3, 64, &w));
	CHECK(warned(&w, 0, p[0], "plain pgm: header says 4 samples, file has 3"));
	p[0] = put("p2long.pgm", "P2 1 2 9 1 2 3 4\n", 17);
	input_close(expect_stream(p, 1, false, "\x01\x02", 2, 64, &w));
	CHECK(warned(&w, 0, p[0], "plain pgm: header says 2 samples, file has 4"));
	p[0] = put("p2max.pgm", "P2 2 1 9 1 10", 13);
	input_close(expect_stream(p, 1, false, "\x01", 1, 64, &w));
	CHECK(warned(&w, 0, p[0], "plain pgm: sample 10 at byte 11 is above maxval 9"));
	p[0] = put("p2bad.pgm", "P2 2 1 9 1 -2", 13);
	input_close(expect_stream(p, 1, false, "", 0, 64, &w));
	CHECK(warned(&w, 0, p[0], "plain pgm: expected a decimal sample at byte 11"));
}

static void test_maxval(void)
{
	static const char p5[] = "P5 3 1 100\n\x00\x64\x65";
	static const char p5w[] = "P5 2 1 1000\n\x03\xe8\x03\xe9";
	char *p[1];
	struct warns w;

	p[0] = put("max8.pgm", p5, sizeof(p5) - 1);
	input_close(expect_stream(p, 1, false, "", 0, 64, &w));
	CHECK(warned(&w, 0, p[0], "pgm sample 101 at byte 13 is above maxval 100"));
	/* the 16-bit sample split between two reads of one byte */
	p[0] = put("max16.pgm", p5w, sizeof(p5w) - 1);
	for (size_t rs = 1; rs <= 4; rs++) {
		struct input *in = open_in(p, 1, false, &w);
		uint8_t got[8];

		read_all(in, got, sizeof(got), rs);
		input_close(in);
		CHECKF(warned(&w, 0, p[0], "pgm sample 1001 at byte 14 is above maxval 1000"),
		       "reads of %zu", rs);
	}
	/* at maxval is fine */
	p[0] = put("max16ok.pgm", p5w, sizeof(p5w) - 2);
	{
		char ok[] = "P5 2 1 1000\n\x03\xe8\x03\xe8";

		p[0] = put("max16ok.pgm", ok, sizeof(ok) - 1);
		expect_sizes(p, "\x03\xe8\x03\xe8", 4);
	}
}

static void test_foreign(void)
{
	static const struct { const char *name, *bytes, *what; size_t n; } f[] = {
		{ "x.bz2", "BZh91AY&SY", "bzip2 data, which gpustat does not read (read it through bzip2 -dc, or --raw to read the bytes as they are)", 10 },
		{ "x.xz", "\xfd" "7zXZ\0\0\x04", "xz data, which", 8 },
		{ "x.lz4", "\x04\x22\x4d\x18\x64\x40", "lz4 data, which", 6 },
		{ "x.png", "\x89PNG\r\n\x1a\n\0\0", "a PNG image, which", 10 },
		{ "x.jpg", "\xff\xd8\xff\xe0\0\x10", "a JPEG image, which", 6 },
		{ "x.pbm", "P1\n1 1\n1\n", "a plain pbm bitmap (P1), which", 9 },
		{ "x4.pbm", "P4 8 1\n\xff", "a pbm bitmap (P4), which", 8 },
		{ "x.pam", "P7\nWIDTH 1\n", "a pam image (P7), which", 11 },
		{ "x.pfm", "PF\n1 1\n-1.0\n", "a pfm float image (PF), which", 12 },
	};
	char *p[1];
	struct warns w;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		p[0] = put(f[i].name, f[i].bytes, f[i].n);
		input_close(expect_stream(p, 1, false, "", 0, 64, &w));
		CHECKF(warned(&w, 0, p[0], f[i].what), "%s", f[i].name);
		/* --raw reads the bytes as they are */
		input_close(expect_stream(p, 1, true, f[i].bytes, f[i].n, 64, &w));
		CHECK(w.n == 0);
	}
	/* a prefix of a magic, then the end: raw data */
	p[0] = put("x.short", "\x1f\x8b", 2);
	input_close(expect_stream(p, 1, false, "\x1f\x8b", 2, 64, &w));
	CHECK(w.n == 0);
}

/* The format table (informat.c) on its own: each magic finds its row, and
 * each proper prefix of it finds none but asks for more bytes, so a slow
 * producer's first bytes are not read as raw data too early. */
static void test_format_table(void)
{
	static const struct { const char *bytes; size_t n; const char *name;
			      bool refused; } m[] = {
		{ "\x93NUMPY", 6, "npy", false },
		{ "P2 ", 3, "pgm", false }, { "P5\n", 3, "pgm", false },
		{ "P3\t", 3, "ppm", false }, { "P6\r", 3, "ppm", false },
		{ "BZh9", 4, "bzip2 data", true },
		{ "\xfd" "7zXZ\0", 6, "xz data", true },
		{ "\x04\x22\x4d\x18", 4, "lz4 data", true },
		{ "\x02\x21\x4c\x18", 4, "lz4 data", true },
		{ "PK\x03\x04", 4, "a zip archive (an .npz?)", true },
		{ "\x89HDF\r\n\x1a\n", 8, "an HDF5 file", true },
		{ "GIF87a", 6, "a GIF image", true },
		{ "GIF89a", 6, "a GIF image", true },
		{ "II*\0", 4, "a TIFF image", true },
		{ "MM\0*", 4, "a TIFF image", true },
		{ "\x89PNG\r\n\x1a\n", 8, "a PNG image", true },
		{ "\xff\xd8\xff\xdb", 4, "a JPEG image", true },
		{ "P1\n", 3, "a plain pbm bitmap (P1)", true },
		{ "P4 ", 3, "a pbm bitmap (P4)", true },
		{ "P7\n", 3, "a pam image (P7)", true },
		{ "PF\n", 3, "a pfm float image (PF)", true },
		{ "Pf\n", 3, "a pfm float image (Pf)", true },
	};
	/* a magic then a byte its row does not allow (each string is read
	 * with its NUL): raw data, and no more bytes are needed to tell */
	static const char *const raw[] = { "BZh0", "P2x", "P1", "\xff\xd8\xff",
					   "P8 ", "\x93NUMPx" };
	const struct in_format *f;
	bool more;

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		const uint8_t *p = (const uint8_t *)m[i].bytes;

		more = false;
		f = informat_find(p, m[i].n, &more);
		CHECKF(f && strcmp(f->name, m[i].name) == 0 &&
		       !f->refuse == !m[i].refused, "%s", m[i].name);
		for (size_t k = 0; k < m[i].n; k++) {
			more = false;
			CHECKF(!informat_find(p, k, &more) && more, "%s, %zu bytes",
			       m[i].name, k);
		}
	}
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		more = false;
		CHECKF(!informat_find((const uint8_t *)raw[i], strlen(raw[i]) + 1,
				      &more) && !more, "raw %zu", i);
	}
}

static void test_npy_numpy_rules(void)
{
	uint8_t *f;
	size_t n;
	char *p[1];
	struct warns w;

	/* ast.literal_eval refuses a NUL in the header */
	f = make_npy("{'descr': '<f8\0', 'fortran_order': False, 'shape': (1,), }",
		     "abcdefgh", 8, &n);
	memcpy(f + 10, "{'descr': '<f8\0'", 16);
	p[0] = put("nul.npy", f, n);
	input_close(expect_stream(p, 1, false, "", 0, 64, &w));
	CHECK(warned(&w, 0, p[0], "bad npy header at byte 24: control byte in a string"));
	free(f);

	f = make_npy("{'descr': '<u2', 'fortran_order': False, 'shape': (2), }",
		     "abcd", 4, &n);
	p[0] = put("int.npy", f, n);
	input_close(expect_stream(p, 1, false, "", 0, 64, &w));
	CHECK(warned(&w, 0, p[0], "bad npy header at byte 62: shape is a number, not a tuple"));
	free(f);

	/* bool: a nonzero byte is True, read as 1 */
	f = make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
		     "\x00\x01\x02\xff", 4, &n);
	p[0] = put("bool.npy", f, n);
	expect_info(p[0], "npy", GS_U8, false, 0, 4);
	expect_sizes(p, "\x00\x01\x01\x01", 4);
	free(f);

	/* columns capped as -c is, from the header alone */
	f = make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2097152), }",
		     "", 0, &n);
	p[0] = put("wide.npy", f, n);
	input_close(expect_stream(p, 1, false, "", 0, 64, &w));
	CHECK(warned(&w, 0, p[0], "bad npy header at byte 10: 2097152 columns (the last axes), more than 1048576"));
	free(f);

	/* a Fortran bool array: a[1, 0] = 2 and a[0, 1] = 3 are True */
	f = make_npy("{'descr': '|b1', 'fortran_order': True, 'shape': (2, 2), }",
		     "\x00\x02\x03\x00", 4, &n);
	p[0] = put("boolf.npy", f, n);
	expect_sizes(p, "\x00\x01\x01\x00", 4);
	free(f);

	/* 1-D Fortran and 2-D with one long axis read as they lie */
	f = make_npy("{'descr': '<i2', 'fortran_order': True, 'shape': (1, 3), }",
		     "aabbcc", 6, &n);
	p[0] = put("f1x3.npy", f, n);
	expect_info(p[0], "npy", GS_I16, false, 3, 6);
	expect_sizes(p, "aabbcc", 6);
	free(f);
}
