/*
 * unit_zframes.c - multi-frame .zst input decoded frame-parallel (the pipe
 * of workers, src/input/zpipe.c, fed from a mapped file by zframes.c, from
 * operands ahead by zahead.c, from a FIFO by zfeed.c) must read exactly as
 * one decoder reads it: the same bytes, and the same error, at the same
 * offset, after the same bytes, for every read size. Each file is read with
 * 1 thread (the stream) and with 4 (the frames at once), as a file and
 * through a FIFO, and all are compared, and with the data the file was
 * made from: the data differ at every position, so a frame served out of
 * order, twice or not at all fails. The pipe itself is also driven
 * directly with a budget small enough that buffers are reused, swapped and
 * unmapped.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "input.h"
#include "unit.h"
#include "zframes.h"
#include "zpipe.h"

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
			 (uint8_t)(n >> 16), (uint8_t)(n >> 24) };

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

/* Read the operands with threads decoders in reads of chunk bytes, each
 * waiting at most stall ms (-1: no limit) before it reads again. */
static struct result read_stall(char **paths, int n, int threads, size_t chunk,
				size_t cap, int stall)
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
	       ((k = input_read(in, r.data + r.len, cap - r.len < chunk ?
				cap - r.len : chunk, stall, &err)) > 0 ||
		k == INPUT_STALL))
		r.len += k > 0 ? (size_t)k : 0;
	r.failed = input_failed(in);
	input_close(in);
	return r;
}

static struct result read_files(char **paths, int n, int threads, size_t chunk,
				size_t cap)
{
	return read_stall(paths, n, threads, chunk, cap, -1);
}

/* ---- a FIFO's writer ---------------------------------------------------------- */

struct writer {
	char path[128];
	const struct buf *b;
	bool slow;		/* pauses: the reader finds the FIFO silent */
	pthread_t tid;
};

static void *writer_main(void *v)
{
	struct writer *w = v;
	int fd = open(w->path, O_WRONLY);
	size_t at = 0, k = 1;

	if (fd < 0)
		abort();
	while (at < w->b->len) {
		ssize_t r;

		k = k * 7 % 300007 + 1;	/* pieces of 1 byte to 300 KB */
		r = write(fd, w->b->p + at, k < w->b->len - at ? k : w->b->len - at);
		if (r <= 0)
			break;	/* the reader gave up (an error) */
		at += (size_t)r;
		if (w->slow && k % 5 == 0)
			usleep(3000);
	}
	close(fd);
	return NULL;
}

/* The file b written into a new FIFO by a thread of its own: its path. */
static char *fifo_start(struct writer *w, const char *name, const struct buf *b,
			bool slow)
{
	static int k;

	snprintf(w->path, sizeof(w->path), "%s/%s.fifo%d", tmpdir, name, k++);
	w->b = b;
	w->slow = slow;
	if (mkfifo(w->path, 0600) != 0 ||
	    pthread_create(&w->tid, NULL, writer_main, w) != 0)
		abort();
	return w->path;
}

/* b read from a FIFO with threads decoders. */
static struct result read_fifo(const char *name, const struct buf *b,
			       int threads, size_t chunk, bool slow)
{
	struct writer w;
	char *path = fifo_start(&w, name, b, slow);
	struct result r = read_stall(&path, 1, threads, chunk, CAP, slow ? 0 : -1);

	pthread_join(w.tid, NULL);
	unlink(path);
	return r;
}

/* The message without the operand's name (a FIFO's differs from the
 * file's). */
static const char *message(const struct result *r)
{
	const char *m = strstr(r->what, ": ");

	return m ? m : r->what;
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

/* The same file through a FIFO, read by one thread (the stream) and by
 * four (frames read on a thread and decoded at once), in reads of chunk
 * bytes, the writer now fast, now pausing: the same bytes and message as
 * the file read by one thread (one). A frame that does not decode is not
 * served in parallel; a truncated one is the stream's, whole. */
static void check_fifo(const char *name, const struct buf *b,
		       const struct result *one, const uint8_t *want, size_t n,
		       size_t chunk, bool error)
{
	for (int slow = 0; slow < 2; slow++) {
		struct result p1 = read_fifo(name, b, 1, chunk, slow);
		struct result p4 = read_fifo(name, b, 4, chunk, slow);

		/* where the data is corrupt, how much came out before the
		 * error depends on how the pipe's bytes arrived (a block
		 * decoded from an earlier read was served, one decoded in the
		 * call that met the error was not): what came out is the
		 * data's, as the file's was */
		CHECKF((error ? !memcmp(p1.data, want, p1.len < n ? p1.len : n)
			      : p1.len == one->len &&
				!memcmp(p1.data, one->data, one->len)) &&
		       !strcmp(message(&p1), message(one)) && p1.failed == one->failed,
		       "%s through a FIFO, 1 thread, reads of %zu: %zu bytes, '%s'",
		       name, chunk, p1.len, p1.what);
		CHECKF((error ? p4.len <= one->len : p4.len == one->len) &&
		       !memcmp(p4.data, one->data, p4.len) &&
		       !strcmp(message(&p4), message(one)) && p4.failed == one->failed,
		       "%s through a FIFO, 4 threads%s, reads of %zu: %zu of %zu "
		       "bytes, '%s'", name, slow ? ", slowly" : "", chunk, p4.len,
		       one->len, p4.what);
		free(p1.data);
		free(p4.data);
	}
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
		check_fifo(name, b, &one, want, n, chunk, error != NULL);
		free(one.data);
		free(four.data);
	}
}

/* Several operands, as shards: .zst files decoded ahead on threads of
 * their own while the one before is read (one has a frame of no content
 * size), and files that cannot be (corrupt, missing, not compressed): the
 * same bytes and the
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
 * block, and take its writer's data); it is read when its turn comes.
 * Its bytes are binary (a \001 among the digits: digits alone are text,
 * which a binary stream refuses). */
static void *fifo_writer(void *v)
{
	int fd = open((const char *)v, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "01234\00156789", 10) != 10)
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
	       !memcmp(r.data + n / 4, "01234\00156789", 10) && !r.failed,
	       "zst then a FIFO: %zu bytes, '%s'", r.len, r.what);
	free(r.data);
	free(a.p);
}

/* ---- the pipe itself --------------------------------------------------------- */

/* b's frames as file id of pipe p, listed from a temporary file and served
 * from an anonymous copy (the pipe unmaps it): its frame list's length. */
static size_t pipe_add(struct zpipe *p, int id, const struct buf *b)
{
	struct zframe *list;
	size_t n;
	unsigned char *map = mmap(NULL, b->len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	FILE *t = tmpfile();

	if (map == MAP_FAILED || !t || fwrite(b->p, 1, b->len, t) != b->len ||
	    fflush(t) != 0)
		abort();
	memcpy(map, b->p, b->len);
	CHECK(zframes_scan(fileno(t), 0, b->len, (uint64_t)1 << 27, &list, &n));
	fclose(t);
	CHECK(zpipe_add(p, id, map, b->len, list, n) == 0);
	return n;
}

/* Up to n bytes of file id, in reads of chunk: the count; *rc the last
 * read's result (0 at the end, -1 with *at and *code). */
static size_t pipe_get(struct zpipe *p, int id, uint8_t *out, size_t n,
		       size_t chunk, ssize_t *rc, uint64_t *at, size_t *code)
{
	size_t got = 0;

	while (got < n && (*rc = zpipe_read(p, id, out + got, n - got < chunk ?
					    n - got : chunk, -1, at, code)) > 0)
		got += (size_t)*rc;
	return got;
}

/* Frames of 1 to 3 MiB and tiny ones through a pipe of a 6 MiB budget
 * (its buffers are whole 2 MiB pages: two or three frames at once, their
 * buffers swapped between slots and unmapped to make room), in several
 * files; a file left half read is dropped by reading the next; a frame
 * over the budget fails as out of memory, where it begins, after the
 * frames before it. */
static void check_pipe(const uint8_t *d, size_t n)
{
	static const size_t sizes[] = { 3u << 20, 5000, 1u << 20, 0, 2u << 20,
					(3u << 20) - 1, 1, 1500000 };
	struct buf f[3] = { { 0 } }, want[3] = { { 0 } };
	size_t at = 0, got;
	uint8_t *out = malloc(4 * n);
	uint64_t where;
	size_t code;
	ssize_t rc;

	/* the data taken in turn, from the start again when it runs out */
	for (int k = 0; k < 3; k++)
		for (size_t i = k; i < k + sizeof(sizes) / sizeof(*sizes); i++) {
			size_t len = sizes[i % (sizeof(sizes) / sizeof(*sizes))];

			at = at + len > n ? 0 : at;
			add_frame(&f[k], d + at, len, true);
			add(&want[k], d + at, len);
			at += len + 17;
		}
	for (size_t chunk = 1000; chunk <= (8u << 20); chunk *= 91) {
		struct zpipe *p = zpipe_open(4, 6u << 20);

		CHECK(p != NULL && zpipe_open(4, 6u << 20) == NULL);
		if (!p)
			return;
		for (int k = 0; k < 3; k++)
			pipe_add(p, k, &f[k]);
		got = pipe_get(p, 0, out, 4 * n, chunk, &rc, &where, &code);
		CHECKF(rc == 0 && got == want[0].len && !memcmp(out, want[0].p, got),
		       "pipe file 0, reads of %zu: %zu of %zu bytes", chunk,
		       got, want[0].len);
		got = pipe_get(p, 1, out, want[1].len / 3, chunk, &rc, &where, &code);
		CHECK(got == want[1].len / 3 && !memcmp(out, want[1].p, got));
		got = pipe_get(p, 2, out, 4 * n, chunk, &rc, &where, &code);
		CHECKF(rc == 0 && got == want[2].len && !memcmp(out, want[2].p, got),
		       "pipe file 2 after file 1 dropped, reads of %zu: %zu of "
		       "%zu bytes", chunk, got, want[2].len);
		CHECK(zpipe_read(p, 2, out, 1, -1, &where, &code) == 0);
		zpipe_close(p);
	}
	/* 7 MiB in one frame, over a 6 MiB budget */
	struct buf big = { 0 };
	struct zpipe *p = zpipe_open(2, 6u << 20);
	uint8_t *d8 = pattern(8u << 20);

	add_frame(&big, d8, 1u << 20, true);
	at = big.len;
	add_frame(&big, d8 + (1u << 20), 7u << 20, true);
	pipe_add(p, 0, &big);
	got = pipe_get(p, 0, out, 4 * n, 1u << 20, &rc, &where, &code);
	CHECKF(got == 1u << 20 && !memcmp(out, d8, got) && rc == -1 && where == at &&
	       ZSTD_getErrorCode(code) == ZSTD_error_memory_allocation,
	       "a frame over the budget: %zu bytes, rc %zd at %llu", got, rc,
	       (unsigned long long)where);
	zpipe_close(p);
	free(big.p);
	free(d8);
	for (int k = 0; k < 3; k++) {
		free(f[k].p);
		free(want[k].p);
	}
	free(out);
}

/* Files of many frames laid out every way, each read every way. */
static void check_layouts(const uint8_t *d, size_t n)
{
	size_t piece = n / 8, off5 = 0;
	struct buf b = { 0 };
	char what[80];

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

	/* a frame of unknown size among them (bounded by its blocks) */
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

	/* many small frames: the ring (64 slots) wraps many times */
	b.len = 0;
	for (size_t at = 0, k = 1; at < n; k = k * 5 % 97 + 1) {
		size_t len = k * 700 < n - at ? k * 700 : n - at;

		add_frame(&b, d + at, len, true);
		at += len;
	}
	check_file("many.zst", &b, d, n, NULL);

	/* a skippable frame over the FIFO's read-ahead (1 MiB): the stream
	 * goes on from it; and one at the very end */
	b.len = 0;
	add_frame(&b, d, piece, true);
	add_frame(&b, d + piece, piece, true);
	add_skippable(&b, (1u << 20) + 4);
	add_frame(&b, d + 2 * piece, n - 2 * piece, true);
	add_skippable(&b, 7);
	check_file("bigskip.zst", &b, d, n, NULL);

	free(b.p);
}

/* Frames of no content size, as pzstd and the seekable format write them,
 * are listed with a bound from their blocks: at least what they decode to,
 * and less than one block more (every block but the last decodes to 128
 * KiB); frames with one keep it exactly. A frame whose blocks could decode
 * to more than ZPIPE_FRAME_MAX is not listed: the file is a stream. */
static void check_bounds(const uint8_t *d, size_t n)
{
	size_t sizes[] = { 0, 1, 100000, 131072, 131073, 3 << 20, 1 << 20 };
	struct buf b = { 0 };
	struct zframe *list;
	size_t k, at = 0, m = sizeof(sizes) / sizeof(sizes[0]);
	FILE *t;

	for (k = 0; k < m; at += sizes[k++])
		add_frame(&b, d + at, sizes[k], k == m - 1);
	t = tmpfile();
	if (!t || fwrite(b.p, 1, b.len, t) != b.len || fflush(t) != 0)
		abort();
	CHECK(zframes_scan(fileno(t), 0, b.len, (uint64_t)1 << 27, &list, &k));
	CHECKF(k == m, "%zu frames listed of %zu", k, m);
	for (size_t i = 0; i < k && k == m; i++)
		CHECKF(list[i].sized == (i == m - 1) &&
		       list[i].dsize >= sizes[i] &&
		       list[i].dsize < sizes[i] + (128 << 10) &&
		       (list[i].sized ? list[i].dsize == sizes[i] : 1),
		       "frame %zu of %zu bytes: bound %llu, %s", i, sizes[i],
		       (unsigned long long)list[i].dsize,
		       list[i].sized ? "sized" : "unsized");
	free(list);
	fclose(t);
	/* ZPIPE_FRAME_MAX and a byte, without a content size: not listed */
	uint8_t *big = calloc(1, ZPIPE_FRAME_MAX + 1);

	b.len = 0;
	add_frame(&b, d, 1000, false);
	add_frame(&b, big, ZPIPE_FRAME_MAX + 1, false);
	t = tmpfile();
	if (!big || !t || fwrite(b.p, 1, b.len, t) != b.len || fflush(t) != 0)
		abort();
	CHECK(!zframes_scan(fileno(t), 0, b.len, (uint64_t)1 << 27, &list, &k));
	free(list);
	fclose(t);
	free(big);
	free(b.p);
	(void)n;
}

int main(void)
{
	size_t n = 6 << 20;
	uint8_t *d = pattern(n);
	char what[80];

	signal(SIGPIPE, SIG_IGN);	/* a FIFO's reader may stop at an error */
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/unit_zframes.XXXXXX");
	if (!mkdtemp(tmpdir))
		abort();
	check_layouts(d, n);
	check_bounds(d, n);
	check_pipe(d, n);
	check_shards(d, n);
	check_two_inputs(d, n);
	check_fifo_after(d, n);
	free(d);
	snprintf(what, sizeof(what), "rm -rf %s", tmpdir);
	if (system(what) != 0)
		return 2;
	UNIT_END();
}
