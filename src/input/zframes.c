/*
 * zframes.c - see zframes.h.
 *
 * The file is mapped and its frames are listed once: zstd's own frame
 * parser finds each frame's end from its block headers without decoding.
 * The pipe then owns the mapping and decodes the frames; the reader serves
 * them with zpipe_read.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zstd.h>
#include "zframes.h"
#include "zsrc.h"

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Add the frame at map + off (rest bytes to the end) to the list; false
 * when it is not one this path takes. *len: its length. */
static bool add_frame(const unsigned char *map, uint64_t off, uint64_t rest,
		      uint64_t window_max, struct zframe **list, size_t *n,
		      size_t *cap, uint64_t *len)
{
	const unsigned char *p = map + off;
	unsigned long long dsize;
	uint64_t win;
	size_t csize;

	if (rest >= 8 && (le32(p) & 0xFFFFFFF0u) == 0x184D2A50u) {
		*len = 8 + (uint64_t)le32(p + 4);	/* skippable */
		return *len <= rest;
	}
	if (zsrc_frame_window(p, rest, &win) != 1 || win > window_max)
		return false;
	dsize = ZSTD_getFrameContentSize(p, rest);
	csize = ZSTD_findFrameCompressedSize(p, rest);
	if (dsize == ZSTD_CONTENTSIZE_UNKNOWN || dsize == ZSTD_CONTENTSIZE_ERROR ||
	    dsize > ZPIPE_FRAME_MAX || ZSTD_isError(csize))
		return false;
	if (*n == *cap) {
		struct zframe *l = realloc(*list, (*cap = *cap * 2 + 16) *
					   sizeof(*l));

		if (!l)
			return false;
		*list = l;
	}
	(*list)[(*n)++] = (struct zframe){ off, csize, dsize };
	*len = csize;
	return true;
}

bool zframes_scan(const unsigned char *map, size_t len, uint64_t start,
		  uint64_t window_max, struct zframe **list, size_t *n)
{
	size_t cap = 0;
	uint64_t off = start, k;

	*list = NULL;
	*n = 0;
	while (off < len)
		if (!add_frame(map, off, len - off, window_max, list, n, &cap, &k))
			return false;
		else
			off += k;
	return true;
}

struct zpipe *zframes_open(int fd, uint64_t start, uint64_t window_max,
			   int threads)
{
	struct zframe *list = NULL;
	struct zpipe *p = NULL;
	struct stat st;
	size_t n = 0;
	void *map;

	if (threads < 2 || fstat(fd, &st) < 0 || (uint64_t)st.st_size <= start)
		return NULL;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return NULL;
	if (zframes_scan(map, (size_t)st.st_size, start, window_max, &list, &n) &&
	    n >= 2 && (p = zpipe_open(threads, ZPIPE_BYTES)) != NULL) {
		madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
		/* the pipe owns map and list from here, even on failure */
		if (zpipe_add(p, 0, map, (size_t)st.st_size, list, n) == 0)
			return p;
		zpipe_close(p);
		return NULL;
	}
	free(list);
	munmap(map, (size_t)st.st_size);
	return NULL;
}
