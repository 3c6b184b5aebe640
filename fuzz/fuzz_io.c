/*
 * fuzz_io.c - see fuzz.h.
 *
 * Each operand slot is a memfd made once, rewritten per input, and reached
 * through two symlinks in a private temp directory ("N" and "N.zst"): the
 * input layer opens a fresh file description at offset 0 each time, exactly
 * as for a file on disk, at the price of no disk I/O.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"

static char dir[64];
static int memfd[FZ_MAX_OPS];
static char names[FZ_MAX_OPS][2][96];

void fz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: invariant broken: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static void fz_cleanup(void)
{
	for (int i = 0; i < FZ_MAX_OPS; i++)
		for (int z = 0; z < 2; z++)
			unlink(names[i][z]);
	rmdir(dir);
}

static void fz_setup(void)
{
	char target[64];

	snprintf(dir, sizeof(dir), "/tmp/gsfuzz.XXXXXX");
	FZ_CHECK(mkdtemp(dir), "mkdtemp");
	for (int i = 0; i < FZ_MAX_OPS; i++) {
		memfd[i] = memfd_create("gsfuzz", 0);
		FZ_CHECK(memfd[i] >= 0, "memfd_create");
		snprintf(target, sizeof(target), "/proc/self/fd/%d", memfd[i]);
		for (int z = 0; z < 2; z++) {
			snprintf(names[i][z], sizeof(names[i][z]), "%s/%d%s",
				 dir, i, z ? ".zst" : "");
			FZ_CHECK(symlink(target, names[i][z]) == 0, "symlink");
		}
	}
	atexit(fz_cleanup);
}

const char *fz_file(int i, const void *p, size_t n, bool zst)
{
	if (!dir[0])
		fz_setup();
	FZ_CHECK(ftruncate(memfd[i], 0) == 0, "ftruncate");
	FZ_CHECK(pwrite(memfd[i], p, n, 0) == (ssize_t)n, "pwrite");
	return names[i][zst];
}

int fz_stdin(const void *p, size_t n)
{
	int fd[2];

	FZ_CHECK(pipe(fd) == 0, "pipe");
	if (n > 65536)
		fcntl(fd[1], F_SETPIPE_SZ, 1 << 20);
	if ((long)n > fcntl(fd[1], F_GETPIPE_SZ)) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	FZ_CHECK(write(fd[1], p, n) == (ssize_t)n, "write to pipe");
	close(fd[1]);
	FZ_CHECK(dup2(fd[0], STDIN_FILENO) == STDIN_FILENO, "dup2");
	close(fd[0]);
	return 0;
}

size_t fz_next_size(struct fz_sizes *z)
{
	static const size_t span[4] = { 16, 4096, 65536, FZ_CAP };

	/* xorshift64*: any seed but 0 */
	z->s ^= z->s >> 12;
	z->s ^= z->s << 25;
	z->s ^= z->s >> 27;
	return span[z->mode & 3] == FZ_CAP ? FZ_CAP
		: 1 + (z->s * 0x2545F4914F6CDD1Dull >> 32) % span[z->mode & 3];
}

static void fz_warn(void *ctx, const struct gs_err *err)
{
	struct fz_run *r = ctx;

	FZ_CHECK(err->code == GS_ERUNTIME && err->what[0],
		 "operand error with code %d, what '%s'", err->code, err->what);
	if (r->nwarn < 8)
		r->warn[r->nwarn] = *err;
	r->nwarn++;
}

struct input_opts fz_opts(struct fz_run *r, bool raw)
{
	return (struct input_opts){ .raw = raw, .warn = fz_warn, .warn_ctx = r };
}

void fz_run_init(struct fz_run *r)
{
	if (!r->out)
		r->out = malloc(FZ_CAP);
	FZ_CHECK(r->out, "out of memory");
	r->len = 0;
	r->ended = false;
	r->nwarn = 0;
}

void fz_read(struct input *in, struct fz_run *r, struct fz_sizes *z,
	     int stall_ms)
{
	struct gs_err err;
	ssize_t k;
	size_t n;

	if (!z->s)
		z->s = 1;
	while (r->len < FZ_CAP) {
		n = fz_next_size(z);
		if (n > FZ_CAP - r->len)
			n = FZ_CAP - r->len;
		k = input_read(in, r->out + r->len, n, stall_ms, &err);
		FZ_CHECK(k >= 0, "input_read: %zd (%s)", k,
			 k == -1 ? err.what : "stall");
		FZ_CHECK((size_t)k <= n, "input_read: %zd of %zu bytes", k, n);
		if (k == 0) {
			r->ended = true;
			return;
		}
		r->len += (size_t)k;
	}
}

bool fz_same(const struct fz_run *a, const struct fz_run *b, bool bytes,
	     bool warns)
{
	/* a run stops at its end or at FZ_CAP, never between */
	if (bytes && (a->ended != b->ended || a->len != b->len ||
		      memcmp(a->out, b->out, a->len) != 0))
		return false;
	if (!warns || !a->ended || !b->ended)
		return true;
	if (a->nwarn != b->nwarn)
		return false;
	for (int i = 0; i < a->nwarn && i < 8; i++)
		if (strcmp(a->warn[i].what, b->warn[i].what) != 0)
			return false;
	return true;
}

bool fz_warned(const struct fz_run *r, const char *what)
{
	for (int i = 0; i < r->nwarn && i < 8; i++)
		if (strstr(r->warn[i].what, what))
			return true;
	return false;
}
