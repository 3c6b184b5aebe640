/*
 * unit_zframes.c - multi-frame .zst files decoded frame-parallel
 * (src/input/zframes.c) must read exactly as one decoder reads them: the
 * same bytes, and the same error, at the same offset, after the same bytes,
 * for every read size. Each file is read with 1 thread (the stream) and
 * with 4 (the frames at once) and the two are compared, and both with the
 * data the file was made from.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "input.h"
#include "unit.h"

static char tmpdir[64];
#define CAP ((7u << 20) + 4096)	/* more than any file decodes to */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void add(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

/* One frame of d[0..n) with its content size (as the zstd CLI and pzstd
 * write it), or without (a stream of unknown size). */
static void add_frame(struct buf *b, const uint8_t *d, size_t n, bool size)
{
	size_t cap = ZSTD_compressBound(n), r;
	uint8_t *z = malloc(cap);
	ZSTD_CCtx *c = ZSTD_createCCtx();

	ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, size);
	if (size) {
		r = ZSTD_compress2(c, z, cap, d, n);
	} else {
		ZSTD_inBuffer in = { d, n, 0 };
		ZSTD_outBuffer out = { z, cap, 0 };

		do
			r = ZSTD_compressStream2(c, &out, &in, ZSTD_e_end);
		while (r != 0 && !ZSTD_isError(r));
		r = ZSTD_isError(r) ? r : out.pos;
	}
	CHECK(!ZSTD_isError(r));
	add(b, z, r);
	ZSTD_freeCCtx(c);
	free(z);
}

static void add_skippable(struct buf *b, size_t n)
{
	uint8_t h[8] = { 0x53, 0x2a, 0x4d, 0x18, (uint8_t)n, (uint8_t)(n >> 8),
			 0, 0 };

	add(b, h, 8);
	for (size_t i = 0; i < n; i++)
		add(b, "s", 1);
}

/* Bytes that compress, different everywhere. */
static uint8_t *pattern(size_t n)
{
	uint8_t *p = malloc(n);
	uint32_t seed = 7;

	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)((seed >> 16) % 29 + i % 5);
	}
	return p;
}

struct result {
	uint8_t *data;
	size_t len;
	bool failed;
	char what[900];
};

static void warn_cb(void *ctx, const struct gs_err *err)
{
	struct result *r = ctx;

	if (!r->what[0])
		snprintf(r->what, sizeof(r->what), "%s: %s", err->where, err->what);
}

/* Read path with threads decoders in reads of chunk bytes. */
static struct result read_file(const char *path, int threads, size_t chunk,
			       size_t cap)
{
	struct result r = { .data = malloc(cap) };
	struct input_opts o = { .threads = threads, .warn = warn_cb,
				.warn_ctx = &r };
	char *paths[1] = { (char *)path };
	struct input *in;
	struct gs_err err;
	ssize_t k;

	if (input_open(&in, paths, 1, &o, &err) < 0)
		abort();
	while (r.len < cap &&
	       (k = input_read(in, r.data + r.len, cap - r.len < chunk ?
			       cap - r.len : chunk, -1, &err)) > 0)
		r.len += (size_t)k;
	r.failed = input_failed(in);
	input_close(in);
	return r;
}

/* The file b, read every way, against want[0..n) (a prefix of it where
 * error is set: then both must fail with it). */
static void check_file(const char *name, const struct buf *b,
		       const uint8_t *want, size_t n, const char *error)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f) != 0)
		abort();
	for (size_t chunk = 4096; chunk <= (4u << 20); chunk *= 32) {
		struct result one = read_file(path, 1, chunk, CAP);
		struct result four = read_file(path, 4, chunk, CAP);

		/* the stream serves what it decodes of a bad frame before it
		 * notices; the frames in parallel serve none of it */
		CHECKF(error ? four.len <= one.len && four.len <= n &&
			       !memcmp(four.data, one.data, four.len)
			     : four.len == one.len && !memcmp(four.data, one.data, one.len),
		       "%s, reads of %zu: %zu bytes in parallel, %zu as a stream",
		       name, chunk, four.len, one.len);
		CHECKF(four.failed == one.failed && !strcmp(four.what, one.what),
		       "%s: '%s' in parallel, '%s' as a stream", name,
		       four.what, one.what);
		if (error) {
			CHECKF(one.failed && strstr(one.what, error), "%s: '%s'",
			       name, one.what);
			CHECK(!memcmp(one.data, want, one.len < n ? one.len : n));
		} else {
			CHECKF(!one.failed && one.len == n &&
			       !memcmp(one.data, want, n), "%s: %zu of %zu bytes",
			       name, one.len, n);
		}
		free(one.data);
		free(four.data);
	}
}

int main(void)
{
	size_t n = 6 << 20, piece = n / 8, off5 = 0;
	uint8_t *d = pattern(n);
	struct buf b = { 0 };
	char what[80];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/unit_zframes.XXXXXX");
	if (!mkdtemp(tmpdir))
		abort();

	/* 8 frames, skippable frames before, between and after some */
	add_skippable(&b, 5);
	for (int i = 0; i < 8; i++) {
		if (i == 5)
			off5 = b.len;
		add_frame(&b, d + i * piece, piece, true);
		if (i % 3 == 0)
			add_skippable(&b, 300);
	}
	check_file("eight.zst", &b, d, n, NULL);

	/* frames of very different sizes, and an empty one */
	b.len = 0;
	add_frame(&b, d, 1, true);
	add_frame(&b, d + 1, 0, true);
	add_frame(&b, d + 1, n - 1001, true);
	add_frame(&b, d + n - 1000, 1000, true);
	check_file("uneven.zst", &b, d, n, NULL);

	/* a frame of unknown size among them: read as a stream */
	b.len = 0;
	add_frame(&b, d, piece, true);
	add_frame(&b, d + piece, piece, false);
	add_frame(&b, d + 2 * piece, n - 2 * piece, true);
	check_file("unsized.zst", &b, d, n, NULL);

	/* the sixth of 8 frames corrupt (its checksum catches it): the five
	 * before are read, then the error names where the sixth begins */
	b.len = 0;
	for (int i = 0; i < 8; i++) {
		if (i == 5)
			off5 = b.len;
		add_frame(&b, d + i * piece, piece, true);
	}
	memset(b.p + off5 + (b.len - off5) / 16, 0x55, 24);
	snprintf(what, sizeof(what), "corrupt zstd frame at compressed byte %zu",
		 off5);
	check_file("corrupt.zst", &b, d, 5 * piece, what);

	/* cut inside the last frame, and garbage after the last frame */
	b.len = 0;
	for (int i = 0; i < 8; i++)
		add_frame(&b, d + i * piece, piece, true);
	b.len -= 10;
	check_file("cut.zst", &b, d, n, "truncated zstd frame at compressed byte");
	b.len = 0;
	add_frame(&b, d, piece, true);
	add_frame(&b, d + piece, piece, true);
	add(&b, "garbage!", 8);
	check_file("trailing.zst", &b, d, 2 * piece, "zstd frame at compressed byte");

	free(b.p);
	free(d);
	snprintf(what, sizeof(what), "rm -rf %s", tmpdir);
	if (system(what) != 0)
		return 2;
	UNIT_END();
}
