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
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zsrc_impl.h"

/* A rest shorter than this is read: mapping it costs more than the copy. */
#define ZSRC_MAP_MIN ((off_t)16 << 20)

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
	memcpy(z->own, z->buf + z->pos, unread);
	munmap(z->map, z->map_len);
	z->map = NULL;
	z->buf = z->own;
	z->cap = z->own_cap;
	z->pos = 0;
	z->len = unread;
	return true;
}
