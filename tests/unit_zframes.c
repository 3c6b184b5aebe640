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
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
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

/* Every warning, one after another. */
static void warn_cb(void *ctx, const struct gs_err *err)
{
	struct result *r = ctx;
	size_t used = strlen(r->what);

	snprintf(r->what + used, sizeof(r->what) - used, "%s: %s; ", err->where,
		 err->what);
}

/* Read the operands with threads decoders in reads of chunk bytes. */
static struct result read_files(char **paths, int n, int threads, size_t chunk,
				size_t cap)
{
	struct result r = { .data = malloc(cap) };
	struct input_opts o = { .threads = threads, .warn = warn_cb,
				.warn_ctx = &r };
	struct input *in;
	struct gs_err err;
	ssize_t k;

	if (input_open(&in, paths, n, &o, &err) < 0)
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
static char *put(const char *name, const struct buf *b)
{
	static char path[16][128];
	static int k;
	char *p = path[k++ % 16];
	FILE *f;

	snprintf(p, 128, "%s/%s", tmpdir, name);
	f = fopen(p, "wb");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len || fclose(f) != 0)
		abort();
	return p;
}

static void check_file(const char *name, const struct buf *b,
		       const uint8_t *want, size_t n, const char *error)
{
	char *path = put(name, b);

	for (size_t chunk = 4096; chunk <= (4u << 20); chunk *= 32) {
		struct result one = read_files(&path, 1, 1, chunk, CAP);
		struct result four = read_files(&path, 1, 4, chunk, CAP);

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

/* Several operands, as shards: .zst files decoded ahead on threads of
 * their own while the one before is read, and files that cannot be (no
 * content size, corrupt, missing, not compressed): the same bytes and the
 * same warnings, in the same order, as one thread reads. The input stops at
 * the corrupt shard's error, as a stream of operands does. */
static void check_shards(const uint8_t *d, size_t n)
{
	size_t piece = n / 8;
	char *paths[9];
	struct buf b = { 0 };
	int k = 0;

	for (int i = 0; i < 8; i++) {
		char name[32];

		b.len = 0;
		if (i == 2) {
			add(&b, d + i * piece, piece);	/* raw */
		} else {
			add_frame(&b, d + i * piece, piece / 2, i != 4);
			add_frame(&b, d + i * piece + piece / 2, piece - piece / 2, true);
		}
		if (i == 6)
			memset(b.p + b.len / 2, 0x55, 16);
		snprintf(name, sizeof(name), "shard%d%s", i, i == 2 ? ".bin" : ".zst");
		paths[k++] = put(name, &b);
		if (i == 3)
			paths[k++] = "/nonexistent/shard.zst";
	}
	for (size_t chunk = 65536; chunk <= (4u << 20); chunk *= 64) {
		struct result one = read_files(paths, k, 1, chunk, CAP);
		struct result many = read_files(paths, k, 4, chunk, CAP);

		/* shard6's bad frame: the stream serves what it decodes of
		 * it before it notices, the frames in parallel none; then
		 * shard7 follows in both */
		CHECKF(many.len <= one.len && many.len >= 7 * piece &&
		       !memcmp(many.data, d, 6 * piece) &&
		       !memcmp(one.data, d, 6 * piece) &&
		       !memcmp(many.data + many.len - piece, d + 7 * piece, piece) &&
		       !memcmp(one.data + one.len - piece, d + 7 * piece, piece),
		       "shards, reads of %zu: %zu bytes ahead, %zu as streams",
		       chunk, many.len, one.len);
		CHECKF(!strcmp(many.what, one.what) && one.failed && many.failed,
		       "shards: '%s' ahead, '%s' as streams", many.what, one.what);
		CHECK(strstr(one.what, "shard6.zst: corrupt zstd frame") != NULL &&
		      strstr(one.what, "/nonexistent/shard.zst: No such file") != NULL);
		free(one.data);
		free(many.data);
	}
	free(b.p);
}

/* Two multi-frame files read a chunk of one, then of the other (dot A B
 * does so): each must get its own bytes (one is decoded frame-parallel,
 * the other as a stream, never both into the same slots). */
static void check_two_inputs(const uint8_t *d, size_t n)
{
	struct buf a = { 0 }, b = { 0 };
	size_t piece = n / 8, got[2] = { 0, 0 };
	struct input_opts o = { .threads = 4 };
	struct input *in[2];
	struct gs_err err;
	uint8_t *out[2] = { malloc(n), malloc(n) };
	char *pa, *pb;

	for (int i = 0; i < 4; i++) {
		add_frame(&a, d + i * piece, piece, true);
		add_frame(&b, d + (4 + i) * piece, piece, true);
	}
	pa = put("two_a.zst", &a);
	pb = put("two_b.zst", &b);
	if (input_open(&in[0], &pa, 1, &o, &err) < 0 ||
	    input_open(&in[1], &pb, 1, &o, &err) < 0)
		abort();
	for (bool more = true; more;) {
		more = false;
		for (int k = 0; k < 2; k++) {
			ssize_t r = input_read(in[k], out[k] + got[k],
					       65536 < 4 * piece - got[k] ? 65536
					       : 4 * piece - got[k], -1, &err);

			got[k] += r > 0 ? (size_t)r : 0;
			more |= r > 0;
		}
	}
	CHECK(got[0] == 4 * piece && !memcmp(out[0], d, 4 * piece));
	CHECK(got[1] == 4 * piece && !memcmp(out[1], d + 4 * piece, 4 * piece));
	for (int k = 0; k < 2; k++) {
		input_close(in[k]);
		free(out[k]);
	}
	free(a.p);
	free(b.p);
}

/* A FIFO after a .zst operand: decoding ahead never opens it (that would
 * block, and take its writer's data); it is read when its turn comes. */
static void *fifo_writer(void *v)
{
	int fd = open((const char *)v, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "0123456789", 10) != 10)
			abort();
		close(fd);
	}
	return NULL;
}

static void check_fifo_after(const uint8_t *d, size_t n)
{
	struct buf a = { 0 };
	char fifo[128], *paths[2];
	pthread_t t;
	struct result r;

	add_frame(&a, d, n / 8, true);
	add_frame(&a, d + n / 8, n / 8, true);
	paths[0] = put("before_fifo.zst", &a);
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	if (mkfifo(fifo, 0600) != 0 || pthread_create(&t, NULL, fifo_writer, fifo))
		abort();
	paths[1] = fifo;
	r = read_files(paths, 2, 4, 65536, CAP);
	pthread_join(t, NULL);
	CHECKF(r.len == n / 4 + 10 && !memcmp(r.data, d, n / 4) &&
	       !memcmp(r.data + n / 4, "0123456789", 10) && !r.failed,
	       "zst then a FIFO: %zu bytes, '%s'", r.len, r.what);
	free(r.data);
	free(a.p);
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

	check_shards(d, n);
	check_two_inputs(d, n);
	check_fifo_after(d, n);
	free(b.p);
	free(d);
	snprintf(what, sizeof(what), "rm -rf %s", tmpdir);
	if (system(what) != 0)
		return 2;
	UNIT_END();
}
