/*
 * zahead.c - see zahead.h. One thread per operand decoded ahead; each maps
 * its file, lists its frames, decodes them one after another into one
 * buffer, and stops. The budget counts the decoded sizes the headers
 * promise, so it is known before anything is allocated.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "zahead.h"
#include "zframes.h"
#include "zsrc.h"

#define ZAHEAD_BYTES ((uint64_t)1 << 30)	/* decoded, all operands */

enum { AH_NONE, AH_RUNNING, AH_SKIP };	/* SKIP: taken, or not decoded ahead */

struct ahead {
	int state;
	pthread_t tid;
	const char *path;
	uint64_t window_max;
	uint64_t size;		/* decoded bytes its frames promise */
	bool sized;		/* size is known (0: not decoded ahead) */
	unsigned char *buf;	/* once joined: the operand, decoded; NULL: failed */
};

struct zahead {
	char *const *paths;
	int n, threads, next;	/* next: the first operand not yet started */
	uint64_t window_max, used;
	struct ahead *op;
};

/* The decoded size the frames of map[0..len) promise, or 0 when they do
 * not all check out (zframes_scan); the list in *list. */
static uint64_t frames_size(const unsigned char *map, size_t len,
			    uint64_t window_max, struct zframe **list, size_t *n)
{
	uint64_t total = 0;

	if (!zframes_scan(map, len, 0, window_max, list, n))
		return 0;
	for (size_t i = 0; i < *n; i++)
		total += (*list)[i].dsize;
	return total;
}

/* Decode the n frames of map into buf, one after another: 0, or -1. */
static int decode_all(const unsigned char *map, const struct zframe *list,
		      size_t n, unsigned char *buf)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	int rc = d ? 0 : -1;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		size_t r = ZSTD_decompressDCtx(d, buf, list[i].dsize,
					       map + list[i].off, list[i].csize);

		rc = ZSTD_isError(r) || r != list[i].dsize ? -1 : 0;
		buf += list[i].dsize;
	}
	ZSTD_freeDCtx(d);
	return rc;
}

/* A file's bytes, mapped: NULL when it is no non-empty regular file. A
 * FIFO is never opened here (that would block, and take a writer's data):
 * stat first, and open without blocking. */
static unsigned char *map_file(const char *path, size_t *len)
{
	struct stat st;
	int fd = strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode)
		 ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	void *map = MAP_FAILED;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	*len = map == MAP_FAILED ? 0 : (size_t)st.st_size;
	return map == MAP_FAILED ? NULL : map;
}

static void *ahead_main(void *v)
{
	struct ahead *h = v;
	struct zframe *list = NULL;
	size_t len, n;
	unsigned char *map = map_file(h->path, &len);

	if (map && frames_size(map, len, h->window_max, &list, &n) == h->size &&
	    (h->buf = malloc(h->size ? h->size : 1)) != NULL &&
	    decode_all(map, list, n, h->buf) < 0) {
		free(h->buf);
		h->buf = NULL;
	}
	free(list);
	if (map)
		munmap(map, len);
	return NULL;
}

/* What operand path's frames promise, read from its headers: 0 when it is
 * no regular, whole, sized zstd file (it is then read as it comes). */
static uint64_t promised(const char *path, uint64_t window_max)
{
	struct zframe *list = NULL;
	size_t len, n;
	unsigned char *map = map_file(path, &len);
	uint64_t size = 0;

	if (map && len >= 4 && zsrc_magic(map))
		size = frames_size(map, len, window_max, &list, &n);
	free(list);
	if (map)
		munmap(map, len);
	return size;
}

struct zahead *zahead_new(char *const *paths, int n, int threads,
			  uint64_t window_max)
{
	struct zahead *a;

	if (threads < 2 || n < 2 || !(a = calloc(1, sizeof(*a))))
		return NULL;
	a->op = calloc((size_t)n, sizeof(*a->op));
	if (!a->op) {
		free(a);
		return NULL;
	}
	a->paths = paths;
	a->n = n;
	a->threads = threads;
	a->window_max = window_max;
	return a;
}

static int running(const struct zahead *a)
{
	int k = 0;

	for (int i = 0; i < a->n; i++)
		k += a->op[i].state == AH_RUNNING;
	return k;
}

void zahead_from(struct zahead *a, int i)
{
	if (!a)
		return;
	if (a->next <= i)
		a->next = i + 1;
	/* the operand being read decodes on the reader: threads - 1 more */
	while (a->next < a->n && running(a) < a->threads - 1) {
		struct ahead *h = &a->op[a->next];

		if (!h->sized) {	/* read its headers once */
			h->size = promised(a->paths[a->next], a->window_max);
			h->sized = true;
		}
		uint64_t size = h->size;

		if (size && a->used + size <= ZAHEAD_BYTES) {
			*h = (struct ahead){ .state = AH_RUNNING,
				.path = a->paths[a->next], .sized = true,
				.window_max = a->window_max, .size = size };
			if (pthread_create(&h->tid, NULL, ahead_main, h) == 0)
				a->used += size;
			else
				h->state = AH_SKIP;
		} else if (size) {
			break;		/* over the budget: wait for room */
		} else {
			h->state = AH_SKIP;
		}
		a->next++;
	}
}

bool zahead_take(struct zahead *a, int i, unsigned char **buf, size_t *len)
{
	struct ahead *h;

	if (!a || i < 0 || i >= a->n || a->op[i].state != AH_RUNNING)
		return false;
	h = &a->op[i];
	pthread_join(h->tid, NULL);
	a->used -= h->size;
	*buf = h->buf;
	*len = (size_t)h->size;
	h->buf = NULL;
	h->state = AH_SKIP;
	zahead_from(a, i);
	return *buf != NULL;
}

void zahead_reset(struct zahead *a)
{
	if (!a)
		return;
	for (int i = 0; i < a->n; i++) {
		if (a->op[i].state == AH_RUNNING)
			pthread_join(a->op[i].tid, NULL);
		free(a->op[i].buf);
		a->op[i] = (struct ahead){ .state = AH_NONE };
	}
	a->next = 0;
	a->used = 0;
}

void zahead_free(struct zahead *a)
{
	if (!a)
		return;
	zahead_reset(a);
	free(a->op);
	free(a);
}
