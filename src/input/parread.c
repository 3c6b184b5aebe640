/*
 * parread.c - see parread.h.
 *
 * One pool for the process, made at the first read that wants it with as
 * many threads as that read may use (-j is the same for every operand),
 * at most the cores online. Pieces are handed out by an atomic counter;
 * a piece that comes back short (the end of the file, an error) marks
 * every later piece as not worth reading, and the count returned is the
 * prefix up to and with that piece. Only the engine's reader thread reads
 * payload, one read at a time; a second caller would find the pool busy
 * and be told to read(2) itself rather than wait.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "coldread.h"
#include "parread.h"
#include "pool.h"

#define PARREAD_THREADS_MAX 64

struct par_job {
	int fd;
	unsigned char *buf;
	off_t base;			/* the fd's offset at the call */
	size_t n, piece;
	/* piece k is [k * piece - skew, (k + 1) * piece - skew) of [0, n):
	 * for O_DIRECT, pieces after the first begin on aligned offsets */
	size_t skew;
	unsigned npieces;
	enum cold_how how;		/* coldread.h: what a cold range needs */
	int dfd;			/* COLD_DIRECT: the O_DIRECT descriptor */
	int threads;			/* pool threads that take pieces */
	_Atomic unsigned next;		/* the next piece to take */
	_Atomic unsigned stop;		/* the first piece that came back short */
	size_t got[PARREAD_MAX_PIECES];
	int err[PARREAD_MAX_PIECES];
};

static pthread_mutex_t par_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pool par_pool;
static int par_state;			/* 0 not tried, 1 made, -1 failed */

/* Where piece k begins within [0, n]. */
static size_t piece_at(const struct par_job *j, unsigned k)
{
	size_t at = k ? (size_t)k * j->piece - j->skew : 0;

	return at < j->n ? at : j->n;
}

static size_t piece_len(const struct par_job *j, unsigned k)
{
	return piece_at(j, k + 1) - piece_at(j, k);
}

/* [off, off + want) of the job through fd: the bytes read, up to the end
 * of the file or an error (*err). O_DIRECT (direct) reads where offset and
 * length are aligned, and gives way to buffered reads where it refuses. */
static size_t span_read(struct par_job *j, size_t off, size_t want,
			bool direct, int *err)
{
	size_t got = 0;

	while (got < want) {
		bool d = direct && want - got >= COLDREAD_ALIGN;
		size_t len = d ? (want - got) / COLDREAD_ALIGN * COLDREAD_ALIGN
			       : want - got;
		ssize_t r = pread(d ? j->dfd : j->fd, j->buf + off + got, len,
				  j->base + (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (d && (r < 0 || (size_t)r % COLDREAD_ALIGN)) {
			direct = false;		/* the rest buffered */
			if (r <= 0)
				continue;
		}
		if (r < 0)
			*err = errno;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* Piece k: with O_DIRECT, its aligned middle direct and its ends not. */
static size_t piece_span(struct par_job *j, unsigned k, int *err)
{
	size_t off = piece_at(j, k), want = piece_len(j, k), a, b, got;

	if (j->how != COLD_DIRECT)
		return span_read(j, off, want, false, err);
	/* the aligned part: [a, b) within [off, off + want) */
	a = ((size_t)j->base + off + COLDREAD_ALIGN - 1) / COLDREAD_ALIGN *
	    COLDREAD_ALIGN - (size_t)j->base;
	b = ((size_t)j->base + off + want) / COLDREAD_ALIGN * COLDREAD_ALIGN -
	    (size_t)j->base;
	if (a >= b)
		return span_read(j, off, want, false, err);
	got = span_read(j, off, a - off, false, err);
	if (got == a - off)
		got += span_read(j, a, b - a, true, err);
	if (got == b - off)
		got += span_read(j, b, off + want - b, false, err);
	return got;
}

/* Piece k whole, or up to the end of the file or an error. */
static void piece_read(struct par_job *j, unsigned k)
{
	size_t want = piece_len(j, k), got;
	unsigned s;

	j->err[k] = 0;
	got = piece_span(j, k, &j->err[k]);
	j->got[k] = got;
	if (got == want)
		return;
	s = atomic_load(&j->stop);
	while (k < s && !atomic_compare_exchange_weak(&j->stop, &s, k))
		;
}

static void par_task(void *v, int i, int nthreads)
{
	struct par_job *j = v;
	unsigned k;

	(void)nthreads;
	if (i >= j->threads)
		return;
	/* the caller's thread queues the range and the next while the
	 * others read (it may wait for the disk's queue) */
	if (i == 0 && (j->how == COLD_AHEAD || j->how == COLD_COPY))
		coldread_ahead(j->fd, j->base, j->n);
	while ((k = atomic_fetch_add(&j->next, 1)) < j->npieces)
		if (k <= atomic_load(&j->stop))
			piece_read(j, k);
}

/* The threads a read may use: -j's, or PARREAD_THREADS_ENV's (read once). */
static int read_threads(int threads)
{
	static int env_threads = -1;	/* 0: not set */

	if (env_threads < 0) {
		const char *v = getenv(PARREAD_THREADS_ENV);
		char *end;
		long n = v ? strtol(v, &end, 10) : 0;

		env_threads = v && *v && !*end && n > 0 && n <= PARREAD_THREADS_MAX
			      ? (int)n : 0;
	}
	return env_threads ? env_threads : threads;
}

/* The pool, made on first use; false when it cannot be had. */
static bool par_pool_get(int threads)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (par_state == 0) {
		if (cpus > 0 && threads > cpus)
			threads = (int)cpus;
		if (threads > PARREAD_THREADS_MAX)
			threads = PARREAD_THREADS_MAX;
		/* a pool that failed half way keeps its threads parked */
		par_state = threads > 1 && pool_init(&par_pool, threads) == 0
			    ? 1 : -1;
	}
	return par_state == 1;
}

/* The count of the whole prefix the pieces read, or -1 with errno. */
static ssize_t par_prefix(const struct par_job *j)
{
	size_t total = 0;

	for (unsigned k = 0; k < j->npieces; k++) {
		if (j->got[k] == piece_len(j, k)) {
			total += j->got[k];
			continue;
		}
		if (total + j->got[k] == 0 && j->err[k]) {
			errno = j->err[k];
			return -1;
		}
		return (ssize_t)(total + j->got[k]);
	}
	return (ssize_t)total;
}

/* The bytes of the file after off, or 0 when none or unknown. */
static size_t bytes_after(int fd, off_t off)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0 || sb.st_size <= off)
		return 0;
	return (size_t)(sb.st_size - off);
}

static ssize_t par_run(struct par_job *j)
{
	ssize_t r;

	if (j->threads > par_pool.n)
		j->threads = par_pool.n;
	j->piece = (j->n + PARREAD_MAX_PIECES - 1) / PARREAD_MAX_PIECES;
	if (j->how == COLD_SHARE)	/* one share a thread */
		j->piece = (j->n + (size_t)j->threads - 1) / (size_t)j->threads;
	if (j->piece < PARREAD_PIECE)
		j->piece = PARREAD_PIECE;
	if (j->how == COLD_DIRECT) {	/* pieces cover n + skew bytes */
		size_t least;

		j->skew = (size_t)j->base % COLDREAD_ALIGN;
		least = (j->n + j->skew + PARREAD_MAX_PIECES - 1) /
			PARREAD_MAX_PIECES;
		if (j->piece < least)
			j->piece = least;
		j->piece = (j->piece + COLDREAD_ALIGN - 1) / COLDREAD_ALIGN *
			   COLDREAD_ALIGN;
	}
	j->npieces = (unsigned)((j->n + j->skew + j->piece - 1) / j->piece);
	if ((unsigned)j->threads > j->npieces)
		j->threads = (int)j->npieces;
	atomic_init(&j->next, 0);
	atomic_init(&j->stop, j->npieces);
	pool_run(&par_pool, par_task, j);
	r = par_prefix(j);
	if (r >= 0 && lseek(j->fd, j->base + (off_t)r, SEEK_SET) < 0)
		return -1;
	return r;
}

ssize_t parread(int fd, void *buf, size_t n, int threads)
{
	struct par_job j = { .fd = fd, .buf = buf };
	ssize_t r;

	threads = read_threads(threads);
	j.threads = threads;
	if (n < PARREAD_MIN || threads < 2)
		return PARREAD_PLAIN;
	if (pthread_mutex_trylock(&par_lock) != 0)
		return PARREAD_PLAIN;
	j.base = lseek(fd, 0, SEEK_CUR);
	/* a file that ends sooner gets no threads for the bytes it lacks;
	 * at its end, read(2) says whether it grew */
	j.n = j.base < 0 ? 0 : bytes_after(fd, j.base);
	if (j.n > n)
		j.n = n;
	if (j.n < PARREAD_MIN || !par_pool_get(threads)) {
		pthread_mutex_unlock(&par_lock);
		return PARREAD_PLAIN;
	}
	j.how = coldread_plan(fd, j.base, j.n, false);
	if (j.how == COLD_SEQ) {	/* the kernel's readahead, as cat's */
		pthread_mutex_unlock(&par_lock);
		return PARREAD_PLAIN;
	}
	/* O_DIRECT where the buffer lies as the file does (page-aligned
	 * buffers from a page-aligned offset), else read ahead */
	if (j.how == COLD_DIRECT &&
	    ((uintptr_t)buf % COLDREAD_ALIGN != (size_t)j.base % COLDREAD_ALIGN ||
	     (j.dfd = coldread_direct_fd(fd)) < 0))
		j.how = COLD_AHEAD;
	r = par_run(&j);
	pthread_mutex_unlock(&par_lock);
	return r;
}
