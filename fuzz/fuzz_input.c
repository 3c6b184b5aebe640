/*
 * fuzz_input.c - the input layer on arbitrary bytes: zstd detection and
 * decoding, npy/pgm/ppm headers, and payload framing across read sizes.
 *
 * The first bytes pick the setup: --raw or not, how many operands the rest
 * is cut into (and where), whether the first one is a pipe on stdin, which
 * names end in ".zst", and the read sizes. The same operands are then read
 * three ways: (A) as set up, with small or odd read sizes; (B) all as
 * regular files in one large read each time; (C) B again after
 * input_rewind with other sizes. All three must give the same bytes (and A
 * and B the same operand errors), except where a zstd frame is corrupt;
 * raw mode must give the operands back as they are; a size known up front
 * must be the size read.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz.h"

#define HDR 5

struct setup {
	bool raw, pipe, probe, zst[FZ_MAX_OPS];
	int nops, stall_ms;
	unsigned mode_a, mode_c;
	size_t off[FZ_MAX_OPS + 1];	/* operand i is [off[i], off[i+1]) */
};

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static void setup_parse(const uint8_t *p, size_t n, struct setup *s)
{
	size_t len = n - HDR;

	s->raw = p[0] & 1;
	s->pipe = p[0] & 2;
	s->nops = 1 + (p[0] >> 2 & 3);
	for (int i = 0; i < FZ_MAX_OPS; i++)
		s->zst[i] = p[0] & (i ? 0x20 : 0x10);
	s->probe = p[0] & 0x40;
	s->stall_ms = p[0] & 0x80 ? 0 : -1;
	s->mode_a = p[1] & 3;
	s->mode_c = p[1] >> 2 & 3;
	s->off[0] = HDR;
	for (int i = 1; i < s->nops; i++)
		s->off[i] = HDR + len * p[1 + i] / 256;
	qsort(s->off + 1, (size_t)s->nops - 1, sizeof(size_t), cmp_size);
	s->off[s->nops] = n;
}

static bool zstd_magic(const uint8_t *p, size_t n)
{
	uint32_t m;

	if (n < 4)
		return false;
	m = p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return m == 0xFD2FB528u || (m & ~0xFu) == 0x184D2A50u;
}

/* Whether a zstd frame at p asks for a window over 64 MiB: input.c allows
 * 2 GiB, and a malloc that size costs ASan seconds, so such inputs are left
 * out (tests/unit_input.c decodes a --long=31 file). */
static bool huge_window(const uint8_t *p, size_t n)
{
	uint64_t fcs = 0;
	int k;

	if (n < 6 || !zstd_magic(p, n) || (p[3] & 0xF0) != 0xF0)
		return false;
	if (!(p[4] & 0x20))	/* a window descriptor: 2^(10 + e) */
		return (p[5] >> 3) + 10 > 26;
	/* single segment: the window is the content size */
	k = (int[]){ 1, 2, 4, 8 }[p[4] >> 6];
	if (n < 5 + (size_t)k)
		return false;
	for (int i = k - 1; i >= 0; i--)
		fcs = fcs << 8 | p[5 + i];
	return fcs > (64u << 20);
}

/* Operand paths for one pass; stdin only where the pass asks for it. */
static int make_paths(const uint8_t *p, const struct setup *s, bool pipe,
		      char **paths)
{
	for (int i = 0; i < s->nops; i++) {
		const uint8_t *q = p + s->off[i];
		size_t k = s->off[i + 1] - s->off[i];

		if (i == 0 && pipe) {
			if (fz_stdin(q, k) < 0)
				return -1;
			paths[i] = "-";
		} else {
			paths[i] = (char *)fz_file(i, q, k, s->zst[i] && !(i == 0 && s->pipe));
		}
	}
	return 0;
}

static void check_info(const struct input_info *info)
{
	FZ_CHECK(info->format && info->format[0], "no format name");
	if (info->has_type)
		FZ_CHECK(info->dtype.type < GS_NTYPES && type_size(info->dtype.type),
			 "header type %d", info->dtype.type);
	FZ_CHECK(info->total_bytes >= -1, "total_bytes %lld",
		 (long long)info->total_bytes);
}

static struct input *open_input(char **paths, const struct setup *s,
				struct fz_run *r, bool probe,
				struct input_info *info)
{
	struct input_opts o = fz_opts(r, s->raw);
	struct input *in;
	struct gs_err err;

	fz_run_init(r);
	FZ_CHECK(input_open(&in, paths, s->nops, &o, &err) == 0, "input_open: %s",
		 err.what);
	info->total_bytes = -1;
	if (probe) {
		FZ_CHECK(input_probe(in, info, &err) == 0, "input_probe: %s", err.what);
		check_info(info);
	}
	return in;
}

/* What B must satisfy on its own. */
static void check_b(const uint8_t *p, size_t n, const struct setup *s,
		    const struct fz_run *b, const struct input_info *info)
{
	bool zstd = false;

	for (int i = 0; i < s->nops; i++)
		zstd |= zstd_magic(p + s->off[i], s->off[i + 1] - s->off[i]) ||
			(s->zst[i] && !(i == 0 && s->pipe));
	if (s->raw)
		FZ_CHECK(b->ended && b->nwarn == 0 && b->len == n - HDR &&
			 memcmp(b->out, p + HDR, b->len) == 0,
			 "raw operands not read back as they are");
	if (!zstd)
		FZ_CHECK(b->len <= n - HDR, "%zu bytes out of %zu", b->len, n - HDR);
	if (info->total_bytes >= 0 && b->ended && b->nwarn == 0)
		FZ_CHECK((int64_t)b->len == info->total_bytes,
			 "read %zu bytes, probe said %lld", b->len,
			 (long long)info->total_bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	static struct fz_run a, b, c;
	struct fz_sizes za, zb = { 1, 3 }, zc;
	struct input_info info;
	struct setup s;
	char *paths[FZ_MAX_OPS];
	struct input *in;
	struct gs_err err;
	uint64_t h = 0xcbf29ce484222325ull;
	bool corrupt;

	if (n < HDR)
		return 0;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	setup_parse(p, n, &s);
	for (int i = 0; i < s.nops; i++)
		if (huge_window(p + s.off[i], s.off[i + 1] - s.off[i]))
			return 0;
	za = (struct fz_sizes){ h, s.mode_a };
	zc = (struct fz_sizes){ h >> 7 | 1, s.mode_c };

	if (make_paths(p, &s, s.pipe, paths) < 0)
		return 0;
	in = open_input(paths, &s, &a, s.probe, &info);
	fz_read(in, &a, &za, s.stall_ms);
	input_close(in);

	make_paths(p, &s, false, paths);
	in = open_input(paths, &s, &b, true, &info);
	fz_read(in, &b, &zb, -1);
	/* how much of a corrupt frame comes out before the error, and the
	 * byte offset the error names, depend on the read sizes (zstd decodes
	 * into the caller's buffer when it is large enough), as does how much
	 * of a pnm comes out before a sample above maxval (the read that holds
	 * it is dropped): then only the number of operand errors must agree */
	corrupt = fz_warned(&b, "corrupt zstd frame") ||
		  fz_warned(&b, "above maxval");
	FZ_CHECK(fz_same(&a, &b, !corrupt, !corrupt) && a.nwarn == b.nwarn,
		 "reads differ: %zu/%d vs %zu/%d bytes/warnings", a.len, a.nwarn,
		 b.len, b.nwarn);
	check_b(p, n, &s, &b, &info);

	FZ_CHECK(input_rewindable(in), "files not rewindable");
	FZ_CHECK(input_rewind(in, &err) == 0, "input_rewind: %s", err.what);
	fz_run_init(&c);
	fz_read(in, &c, &zc, -1);
	FZ_CHECK(fz_same(&b, &c, !corrupt, false), "reads differ after a rewind: %zu vs %zu bytes",
		 b.len, c.len);
	input_close(in);
	return 0;
}
