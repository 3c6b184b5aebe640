/*
 * zahead.c - see zahead.h. Each operand queued has its frames listed from
 * its headers (zframes_scan, or gzframes_list: BGZF blocks in groups), is
 * mapped once, and the pipe takes the mapping:
 * the workers decode the operands' frames in operand order, across operand
 * boundaries, so sixteen single-frame shards decode on sixteen cores.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gzframes.h"
#include "gzsrc.h"
#include "zahead.h"
#include "zframes.h"
#include "zpipe.h"

/* Decoded bytes queued ahead at most: twice what the pipe decodes at once,
 * so that it never runs dry between two operand opens. */
#define ZAHEAD_QUEUE (2 * ZPIPE_BYTES)
#define ZAHEAD_BATCH 64		/* operands mapped before the pipe has them */

struct zahead {
	char *const *paths;
	int n, threads;
	int next;		/* the first operand not yet looked at */
	uint64_t window_max;
	struct zpipe *pipe;	/* opened with the first operand queued */
	bool refused;		/* no pipe could be had (another input has it) */
	int *queued;		/* [n]: its frames are file i of the pipe, in
				 * this codec (ZSRC_ZSTD, ZSRC_GZIP; 0: not) */
};

/* A regular file's fd, and its length: -1 when it is no non-empty regular
 * file. A FIFO is never opened here (that would block, and take a
 * writer's data): stat first, and open without blocking. */
static int open_file(const char *path, size_t *len)
{
	struct stat st;
	int fd = strcmp(path, "-") && stat(path, &st) == 0 && S_ISREG(st.st_mode)
		 ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;

	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
			st.st_size <= 0)) {
		close(fd);
		fd = -1;
	}
	*len = fd < 0 ? 0 : (size_t)st.st_size;
	return fd;
}

/* An operand mapped, its frames listed, not yet given to the pipe. */
struct mapped {
	int i, codec;
	void *map;
	size_t len;
	struct zframe *list;
	size_t n;
};

/* The frames of operand fd, of len bytes, in *list: its codec, as its
 * name or else its magic says (as input.c finds it), when it is zstd
 * whose frames check out or BGZF blocks only; 0 otherwise. */
static int list_operand(struct zahead *a, int i, int fd, size_t len,
			struct zframe **list, size_t *n)
{
	unsigned char magic[4];
	int codec = zsrc_named(a->paths[i]);

	if (!codec && len >= 4 && pread(fd, magic, 4, 0) == 4)
		codec = zsrc_magic(magic) ? ZSRC_ZSTD
			: gzsrc_magic(magic, 4) == 1 ? ZSRC_GZIP : 0;
	if (codec == ZSRC_ZSTD &&
	    zframes_scan(fd, 0, len, a->window_max, list, n))
		return codec;
	if (codec == ZSRC_GZIP &&
	    gzframes_list(fd, 0, len, a->threads, list, n))
		return codec;
	free(*list);
	*list = NULL;
	return 0;
}

/* Map operand i if it is a file whose frames check out (list_operand:
 * they are listed by pread, and only then is the file mapped): true, with
 * *m filled. */
static bool map_operand(struct zahead *a, int i, struct mapped *m)
{
	struct zframe *list = NULL;
	size_t len, n = 0;
	int fd = open_file(a->paths[i], &len);
	int codec = fd < 0 ? 0 : list_operand(a, i, fd, len, &list, &n);
	void *map = MAP_FAILED;

	if (codec) {
		if (!a->pipe && !a->refused &&
		    !(a->pipe = zpipe_open(a->threads, ZPIPE_BYTES)))
			a->refused = true;
		if (a->pipe)
			map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	}
	if (fd >= 0)
		close(fd);
	if (map == MAP_FAILED) {
		free(list);
		return false;
	}
	madvise(map, len, MADV_SEQUENTIAL);
	*m = (struct mapped){ i, codec, map, len, list, n };
	return true;
}

struct zahead *zahead_new(char *const *paths, int n, int threads,
			  uint64_t window_max)
{
	struct zahead *a;

	if (threads < 2 || n < 2 || !(a = calloc(1, sizeof(*a))))
		return NULL;
	a->queued = calloc((size_t)n, sizeof(*a->queued));
	if (!a->queued) {
		free(a);
		return NULL;
	}
	a->paths = paths;
	a->n = n;
	a->threads = threads;
	a->window_max = window_max;
	return a;
}

/*
 * Operands are mapped ZAHEAD_BATCH at a time before any of them goes to
 * the pipe. An mmap takes the process's mapping lock for writing, which
 * waits for the workers' populates (zpipe.c) to let go of it: mapped one
 * by one as they are queued, the shards after the first wait behind the
 * decoding of those before (up to 13 ms an mmap; 16 shards spend 0.24 s
 * before the first run against 0.13 s for the same frames in one file,
 * bench/RESULTS.md).
 */
void zahead_from(struct zahead *a, int i)
{
	struct mapped m[ZAHEAD_BATCH];
	uint64_t pend;
	int k;

	if (!a)
		return;
	if (a->next < i)
		a->next = i;	/* those before were passed over */
	pend = a->pipe ? zpipe_pending(a->pipe) : 0;
	while (a->next < a->n && !a->refused && pend < ZAHEAD_QUEUE) {
		for (k = 0; k < ZAHEAD_BATCH && a->next < a->n &&
			    !a->refused && pend < ZAHEAD_QUEUE; a->next++) {
			if (!map_operand(a, a->next, &m[k]))
				continue;
			for (size_t f = 0; f < m[k].n; f++)
				pend += m[k].list[f].dsize;
			k++;
		}
		/* the pipe owns each map and list from here, even on
		 * failure */
		for (int j = 0; j < k; j++)
			a->queued[m[j].i] = zpipe_add(a->pipe, m[j].i, m[j].map,
						      m[j].len, m[j].list,
						      m[j].n) == 0 ? m[j].codec : 0;
		pend = a->pipe ? zpipe_pending(a->pipe) : 0;
	}
}

bool zahead_take(struct zahead *a, int i, struct zsrc *z)
{
	if (!a || i < 0 || i >= a->n || !a->queued[i])
		return false;
	int codec = a->queued[i];

	a->queued[i] = 0;
	return zsrc_serve(z, a->pipe, i, codec);
}

void zahead_reset(struct zahead *a)
{
	if (!a)
		return;
	zpipe_close(a->pipe);
	a->pipe = NULL;
	a->refused = false;
	memset(a->queued, 0, (size_t)a->n * sizeof(*a->queued));
	a->next = 0;
}

void zahead_free(struct zahead *a)
{
	if (!a)
		return;
	zahead_reset(a);
	free(a->queued);
	free(a);
}
