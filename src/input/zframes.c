/*
 * zframes.c - see zframes.h.
 *
 * The frames are listed once, each frame's end found from its block
 * headers without decoding, read by pread: walking a mapping instead
 * faults a page in per block header, four times the time of the preads
 * (1 GiB decoded is 8192 blocks, all walked before the first frame can
 * start). Then the file is mapped; the pipe owns the mapping and decodes
 * the frames, and the reader serves them with zpipe_read.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "zframes.h"
#include "zsrc.h"

/* The longest frame header (RFC 8878: magic, descriptor, window, a 4-byte
 * dictionary id, an 8-byte content size). */
#define FRAME_HEADER_MAX 18

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

bool zframes_peek(int fd, uint64_t off, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got,
				  (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* The compressed size of the frame at off whose header is hsize bytes,
 * from its block headers (RFC 8878, 3.1.1.2) up to end: 0 when it is cut
 * short or a block is reserved (the stream says how it is corrupt). With
 * bound, the bytes its blocks decode to at most, for a window of window
 * bytes, are added to *bound: 0 once over ZPIPE_FRAME_MAX (a frame of a
 * whole file, written with no content size, is read as a stream). */
static uint64_t frame_csize(int fd, uint64_t off, size_t hsize, bool checksum,
			    uint64_t end, uint64_t *bound, uint64_t window)
{
	uint64_t at = off + hsize;
	unsigned char b[3];
	bool last = false;

	while (!last) {
		if (end - at < 3 || !zframes_peek(fd, at, b, 3))
			return 0;
		uint32_t bh = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
			      (uint32_t)b[2] << 16, type = bh >> 1 & 3;

		last = bh & 1;
		if (type == 3)
			return 0;
		if (bound) {
			zstd_bound(bound, bh, window);
			if (*bound > ZPIPE_FRAME_MAX)
				return 0;
		}
		at += 3;
		if (end - at < (type == 1 ? 1 : bh >> 3))
			return 0;
		at += type == 1 ? 1 : bh >> 3;
	}
	if (checksum && (end - at < 4))
		return 0;
	return at + (checksum ? 4 : 0) - off;
}

uint64_t zframes_walk(const unsigned char *p, size_t n, size_t hsize,
		      bool checksum, uint64_t window, uint64_t *bound)
{
	size_t at = hsize;
	bool last = false;

	*bound = 0;
	if (n < hsize)		/* a length that lies: not even the header */
		return 0;
	while (!last) {
		if (n - at < 3)
			return 0;
		uint32_t bh = (uint32_t)p[at] | (uint32_t)p[at + 1] << 8 |
			      (uint32_t)p[at + 2] << 16, type = bh >> 1 & 3;
		size_t body = type == 1 ? 1 : bh >> 3;

		last = bh & 1;
		if (type == 3 || bh >> 3 > (128 << 10))
			return 0;
		zstd_bound(bound, bh, window);
		at += 3;
		if (n - at < body)
			return 0;
		at += body;
	}
	if (checksum && n - at < 4)
		return 0;
	return at + (checksum ? 4 : 0);
}

/* Add the frame at off (end: the end of the file) to the list; false when
 * it is not one this path takes. *len: its length. Its header is judged
 * first: a frame too large to take (one stream of a whole file) costs no
 * walk through its blocks. */
static bool add_frame(int fd, uint64_t off, uint64_t end, uint64_t window_max,
		      struct zframe **list, size_t *n, size_t *cap,
		      uint64_t *len)
{
	unsigned char h[FRAME_HEADER_MAX];
	size_t k = end - off < sizeof(h) ? (size_t)(end - off) : sizeof(h);
	unsigned long long dsize;
	uint64_t win, csize, bound = 0;
	size_t hsize;
	bool sized;

	if (k < 5 || !zframes_peek(fd, off, h, k))
		return false;
	if (k >= 8 && (le32(h) & 0xFFFFFFF0u) == 0x184D2A50u) {
		*len = 8 + (uint64_t)le32(h + 4);	/* skippable */
		return *len <= end - off;
	}
	hsize = zsrc_header_size(h[4]);
	if (zsrc_frame_window(h, k, &win) != 1 || win > window_max || hsize > k)
		return false;
	dsize = ZSTD_getFrameContentSize(h, hsize);
	sized = dsize != ZSTD_CONTENTSIZE_UNKNOWN;
	if (dsize == ZSTD_CONTENTSIZE_ERROR || (sized && dsize > ZPIPE_FRAME_MAX))
		return false;
	csize = frame_csize(fd, off, hsize, h[4] & 0x04, end,
			    sized ? NULL : &bound, win);
	if (csize == 0)
		return false;
	if (*n == *cap) {
		struct zframe *l = realloc(*list, (*cap = *cap * 2 + 16) *
					   sizeof(*l));

		if (!l)
			return false;
		*list = l;
	}
	(*list)[(*n)++] = (struct zframe){ off, csize, sized ? dsize : bound,
					   sized, ZCODEC_ZSTD };
	*len = csize;
	return true;
}

bool zframes_scan(int fd, uint64_t start, uint64_t end, uint64_t window_max,
		  struct zframe **list, size_t *n)
{
	size_t cap = 0;
	uint64_t off = start, k;

	*list = NULL;
	*n = 0;
	while (off < end)
		if (!add_frame(fd, off, end, window_max, list, n, &cap, &k))
			return false;
		else
			off += k;
	return true;
}

struct zpipe *zframes_open(int fd, uint64_t start, uint64_t window_max,
			   int threads)
{
	struct zframe *list = NULL;
	struct stat st;
	size_t n = 0;

	if (threads < 2 || fstat(fd, &st) < 0 || (uint64_t)st.st_size <= start)
		return NULL;
	if (!zframes_scan(fd, start, (uint64_t)st.st_size, window_max, &list, &n)) {
		free(list);
		return NULL;
	}
	return zframes_pipe(fd, (uint64_t)st.st_size, list, n, threads);
}

struct zpipe *zframes_pipe(int fd, uint64_t size, struct zframe *list,
			   size_t n, int threads)
{
	struct zpipe *p = NULL;
	void *map;

	if (n < 2 || (p = zpipe_open(threads, ZPIPE_BYTES)) == NULL) {
		free(list);
		return NULL;
	}
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		free(list);
		zpipe_close(p);
		return NULL;
	}
	madvise(map, (size_t)size, MADV_SEQUENTIAL);
	/* the pipe owns map and list from here, even on failure */
	if (zpipe_add(p, 0, map, (size_t)size, list, n) == 0)
		return p;
	zpipe_close(p);
	return NULL;
}
