/*
 * coldread.c - see coldread.h.
 *
 * Only the engine's reader thread reads payload (parread.c's pool thread 0
 * is that thread), so the state here is one file's: what was queued, and
 * its O_DIRECT descriptor. A mutex keeps it whole anyway, and the byte
 * counts are atomics, read by the CLI's thread after a run.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "coldread.h"
#include "input.h"

/* Pages sampled per read: a 64 MiB read is 16384 pages; 4 of them, spread
 * evenly, cost 4 mincore(2) calls (a few microseconds, against the 1.7 ms
 * that 16 threads take to copy 64 MiB from the page cache). A cold file
 * misses on the first. */
#define COLD_SAMPLES 4

/* WILLNEED reads at most the readahead size (or the device's largest
 * request) per call, 128 KiB by default: so a range is queued in calls of
 * that much. */
#define COLD_STEP ((off_t)128 << 10)

static const struct {
	const char *name;
	enum cold_how how;
} cold_modes[] = {
	{ "auto", COLD_AHEAD }, { "ahead", COLD_AHEAD }, { "seq", COLD_SEQ },
	{ "share", COLD_SHARE }, { "direct", COLD_DIRECT },
	{ "copy", COLD_COPY }, { "off", COLD_CACHED },
};

static pthread_once_t cold_once = PTHREAD_ONCE_INIT;
static int cold_mode;		/* index into cold_modes */
static off_t cold_window;	/* bytes queued after a read; 0: its length */

static pthread_mutex_t cold_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	dev_t dev;
	ino_t ino;
	off_t from, to;		/* queued already */
	int dfd;		/* its O_DIRECT descriptor, or -1 */
	bool dfd_tried;
	unsigned char *map;	/* the file mapped for mincore, or NULL */
	size_t map_len;
} cold_file = { .dfd = -1 };

static _Atomic uint64_t cold_all, cold_cold;

/* GPUSTAT_COLD_READ=HOW[:MiB]; anything else is the default. */
static void cold_env(void)
{
	const char *v = getenv(COLDREAD_ENV);
	size_t n = v ? strcspn(v, ":") : 0;

	for (size_t i = 0; v && i < sizeof(cold_modes) / sizeof(cold_modes[0]); i++)
		if (strlen(cold_modes[i].name) == n &&
		    strncmp(v, cold_modes[i].name, n) == 0)
			cold_mode = (int)i;
	if (v && v[n] == ':') {
		char *end;
		long mib = strtol(v + n + 1, &end, 10);

		if (!*end && mib > 0 && mib <= 65536)
			cold_window = (off_t)mib << 20;
	}
	/* auto queues 256 MiB ahead: sum reads a cold 8 GiB file at 0.96x
	 * cat (1.00x mapped) so, against 0.92x (0.95x) queuing a read's
	 * length ahead (bench/RESULTS.md) */
	if (cold_mode == 0 && cold_window == 0)
		cold_window = (off_t)256 << 20;
}

const char *coldread_name(void)
{
	pthread_once(&cold_once, cold_env);
	return cold_modes[cold_mode].name;
}

/* cold_file is the file sb describes (from now on). */
static void cold_same(const struct stat *sb)
{
	if (cold_file.dev == sb->st_dev && cold_file.ino == sb->st_ino)
		return;
	if (cold_file.dfd >= 0)
		close(cold_file.dfd);
	if (cold_file.map)
		munmap(cold_file.map, cold_file.map_len);
	cold_file.dev = sb->st_dev;
	cold_file.ino = sb->st_ino;
	cold_file.from = cold_file.to = 0;
	cold_file.dfd = -1;
	cold_file.dfd_tried = false;
	cold_file.map = NULL;
	cold_file.map_len = 0;
}

/* The file fd reads mapped whole (never touched: mincore asks about its
 * pages), at least to off + n; NULL where it cannot be. */
static unsigned char *cold_map(int fd, off_t off, size_t n)
{
	struct stat sb;
	void *m;

	if (fstat(fd, &sb) < 0)
		return NULL;
	cold_same(&sb);
	if (cold_file.map && (uint64_t)off + n <= cold_file.map_len)
		return cold_file.map;
	if (cold_file.map)
		munmap(cold_file.map, cold_file.map_len);
	cold_file.map = NULL;
	if (sb.st_size <= 0 || (uint64_t)off + n > (uint64_t)sb.st_size)
		return NULL;
	m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	cold_file.map = m;
	cold_file.map_len = (size_t)sb.st_size;
	return m;
}

/* Whether the sampled pages of [off, off + n) are all in memory; true as
 * well where it cannot be told (the mapping refused). */
static bool in_memory(int fd, off_t off, size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *m;
	bool in = true;

	if (page <= 0 || n == 0)
		return true;
	pthread_mutex_lock(&cold_lock);
	m = cold_map(fd, off, n);
	for (size_t k = 0; m && k < COLD_SAMPLES && in; k++) {
		size_t at = (size_t)off + n / COLD_SAMPLES * k;
		unsigned char v = 1;

		if (mincore(m + at / (size_t)page * (size_t)page,
			    (size_t)page, &v) == 0)
			in = v & 1;
	}
	pthread_mutex_unlock(&cold_lock);
	return in;
}

enum cold_how coldread_plan(int fd, off_t off, size_t n, bool view)
{
	enum cold_how how;

	pthread_once(&cold_once, cold_env);
	how = cold_modes[cold_mode].how;
	if (how != COLD_CACHED && in_memory(fd, off, n))
		how = COLD_CACHED;
	if (view && (how == COLD_DIRECT || how == COLD_COPY))
		return how;
	atomic_fetch_add(&cold_all, n);
	if (how != COLD_CACHED)
		atomic_fetch_add(&cold_cold, n);
	return how;
}

#define COLD_FILE_SAMPLES 16

bool coldread_file_cold(int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	struct stat sb;
	unsigned out = 0;
	void *m;

	pthread_once(&cold_once, cold_env);
	if (cold_modes[cold_mode].how == COLD_CACHED || page <= 0 ||
	    fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0)
		return false;
	m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return false;
	for (unsigned k = 0; k < COLD_FILE_SAMPLES; k++) {
		size_t at = (size_t)sb.st_size / COLD_FILE_SAMPLES * k;
		unsigned char v = 1;

		if (mincore((unsigned char *)m + at / (size_t)page *
			    (size_t)page, (size_t)page, &v) == 0 && !(v & 1))
			out++;
	}
	munmap(m, (size_t)sb.st_size);
	return out * 2 > COLD_FILE_SAMPLES;
}

void coldread_ahead(int fd, off_t off, size_t n)
{
	struct stat sb;
	off_t to, from = off;

	pthread_once(&cold_once, cold_env);
	if (fstat(fd, &sb) < 0)
		return;
	to = off + (off_t)n + (cold_window ? cold_window : (off_t)n);
	if (to > sb.st_size)
		to = sb.st_size;
	pthread_mutex_lock(&cold_lock);
	cold_same(&sb);
	if (cold_file.from <= from && from < cold_file.to)
		from = cold_file.to;
	if (from < to) {
		cold_file.from = off;
		cold_file.to = to;
	}
	pthread_mutex_unlock(&cold_lock);
	for (; from < to; from += COLD_STEP)
		(void)posix_fadvise(fd, from, to - from < COLD_STEP ? to - from
				    : COLD_STEP, POSIX_FADV_WILLNEED);
}

int coldread_direct_fd(int fd)
{
	struct stat sb, db;
	char path[64];
	int dfd;

	if (fstat(fd, &sb) < 0)
		return -1;
	pthread_mutex_lock(&cold_lock);
	cold_same(&sb);
	if (!cold_file.dfd_tried) {
		cold_file.dfd_tried = true;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		dfd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (dfd >= 0 && (fstat(dfd, &db) < 0 || db.st_dev != sb.st_dev ||
				 db.st_ino != sb.st_ino)) {
			close(dfd);
			dfd = -1;
		}
		cold_file.dfd = dfd;
	}
	dfd = cold_file.dfd;
	pthread_mutex_unlock(&cold_lock);
	return dfd;
}

const char *input_cold_bytes(uint64_t *all, uint64_t *cold)
{
	*all = atomic_load(&cold_all);
	*cold = atomic_load(&cold_cold);
	return coldread_name();
}
