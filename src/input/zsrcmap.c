/*
 * zsrcmap.c - a regular file's compressed bytes mapped instead of read: see
 * zsrc_impl.h.
 *
 * One stream decodes on one thread, and read(2) copied every compressed
 * byte from the page cache into the read-ahead buffer on it first (7% of
 * its time on f32 normals, as much as zstd -dc spends). From a mapping the
 * decoder takes the bytes where the page cache holds them. A file that
 * shrinks while mapped raises SIGBUS where its lost pages are read, as
 * zsrc_view's mappings do; bytes a file gains after it was mapped are read
 * once the mapping is used up.
 *
 * Taking a mapped page for the first time faults, and the kernel's work
 * there (finding the page in the cache, setting up its table entries) was
 * 14% of the decoding thread's time on f32 normals. A second thread faults
 * the pages in ahead of the decoder (MADV_POPULATE_READ, Linux 5.14), at
 * most AHEAD bytes beyond it, so the decoder finds them mapped; on a cold
 * file that thread is also the one that waits for the disk. Where the
 * kernel lacks it the thread ends at once and the decoder faults as before.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zsrc_impl.h"

/* A rest shorter than this is read: mapping it costs more than the copy. */
#define ZSRC_MAP_MIN ((off_t)16 << 20)

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22	/* Linux's value; older headers lack it */
#endif

/* Pages are faulted in STEP bytes at a time, up to AHEAD beyond the
 * decoder: the page tables of the whole rest of a big file would cost
 * memory (2 MiB a GiB) for nothing. */
#define AHEAD ((size_t)128 << 20)
#define STEP ((size_t)2 << 20)

struct zmap_ahead {
	pthread_t thread;
	uint8_t *base;
	size_t len;
	atomic_size_t seen;	/* bytes of the mapping the decoder took */
	atomic_bool stop;
};

static void *ahead_main(void *arg)
{
	struct zmap_ahead *a = arg;
	size_t at = 0;

	while (at < a->len && !atomic_load_explicit(&a->stop, memory_order_relaxed)) {
		size_t k = a->len - at < STEP ? a->len - at : STEP;

		if (at >= atomic_load_explicit(&a->seen, memory_order_relaxed) + AHEAD) {
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
			continue;
		}
		/* EINVAL: no such advice here; EFAULT: the file shrank */
		if (madvise(a->base + at, k, MADV_POPULATE_READ) != 0 && errno != EINTR &&
		    errno != EAGAIN)
			break;
		at += k;
	}
	return NULL;
}

static void ahead_start(struct zsrc *z)
{
	struct zmap_ahead *a = malloc(sizeof(*a));

	if (!a)
		return;
	a->base = z->map;
	a->len = z->map_len;
	atomic_init(&a->seen, 0);
	atomic_init(&a->stop, false);
	if (pthread_create(&a->thread, NULL, ahead_main, a) != 0) {
		free(a);
		return;
	}
	z->ahead = a;
}

static void ahead_stop(struct zsrc *z)
{
	if (!z->ahead)
		return;
	atomic_store(&z->ahead->stop, true);
	pthread_join(z->ahead->thread, NULL);
	free(z->ahead);
	z->ahead = NULL;
}

void zsrc_map_progress(struct zsrc *z)
{
	if (z->ahead)
		atomic_store_explicit(&z->ahead->seen,
				      (size_t)(z->buf + z->pos - z->ahead->base),
				      memory_order_relaxed);
}

void zsrc_map_rest(struct zsrc *z)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t unread = z->len - z->pos;
	struct stat st;
	off_t at, from, delta;
	void *m;

	if (!z->is_reg || z->map || page <= 0 || fstat(z->fd, &st) < 0 ||
	    (at = lseek(z->fd, 0, SEEK_CUR)) < 0 || (off_t)unread > at)
		return;
	from = at - (off_t)unread;	/* the first byte not yet decoded */
	if (st.st_size - from < ZSRC_MAP_MIN)
		return;
	delta = from % page;
	m = mmap(NULL, (size_t)(st.st_size - from + delta), PROT_READ,
		 MAP_PRIVATE, z->fd, from - delta);
	if (m == MAP_FAILED)
		return;
	if (lseek(z->fd, st.st_size, SEEK_SET) < 0) {
		munmap(m, (size_t)(st.st_size - from + delta));
		return;
	}
	(void)madvise(m, (size_t)(st.st_size - from + delta), MADV_SEQUENTIAL);
	z->map = m;
	z->map_len = (size_t)(st.st_size - from + delta);
	z->own = z->buf;
	z->own_cap = z->cap;
	z->raw_off += (uint64_t)(st.st_size - at);
	z->buf = (uint8_t *)m + delta;
	z->pos = 0;
	z->len = z->cap = (size_t)(st.st_size - from);
	ahead_start(z);
}

bool zsrc_unmap_rest(struct zsrc *z)
{
	size_t unread = z->len - z->pos;

	if (!z->map)
		return true;
	if (unread >= z->own_cap) {	/* room left to read more */
		uint8_t *b = realloc(z->own, unread + ZSTD_DStreamInSize());

		if (!b)
			return false;
		z->own = b;
		z->own_cap = unread + ZSTD_DStreamInSize();
	}
	ahead_stop(z);
	memcpy(z->own, z->buf + z->pos, unread);
	munmap(z->map, z->map_len);
	z->map = NULL;
	z->buf = z->own;
	z->cap = z->own_cap;
	z->pos = 0;
	z->len = unread;
	return true;
}
