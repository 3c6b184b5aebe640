/*
 * zahead.c - see zahead.h. Each operand queued has its frames listed from
 * its headers (zframes_scan), is mapped once, and the pipe takes the mapping:
 * the workers decode the operands' frames in operand order, across operand
 * boundaries, so sixteen single-frame shards decode on sixteen cores.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zahead.h"
#include "zframes.h"
#include "zpipe.h"

/* Decoded bytes queued ahead at most: twice what the pipe decodes at once,
 * so that it never runs dry between two operand opens. */
#define ZAHEAD_QUEUE (2 * ZPIPE_BYTES)

struct zahead {
	char *const *paths;
	int n, threads;
	int next;		/* the first operand not yet looked at */
	uint64_t window_max;
	struct zpipe *pipe;	/* opened with the first operand queued */
	bool refused;		/* no pipe could be had (another input has it) */
	bool *queued;		/* [n]: its frames are file i of the pipe */
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

/* Queue operand i if it is a zstd file whose frames check out: they are
 * listed by pread, and only then is the file mapped. */
static void queue(struct zahead *a, int i)
{
	struct zframe *list = NULL;
	unsigned char magic[4];
	size_t len, n;
	int fd = open_file(a->paths[i], &len);
	void *map = MAP_FAILED;

	if (fd >= 0 && len >= 4 && pread(fd, magic, 4, 0) == 4 &&
	    zsrc_magic(magic) &&
	    zframes_scan(fd, 0, len, a->window_max, &list, &n)) {
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
		return;
	}
	madvise(map, len, MADV_SEQUENTIAL);
	/* the pipe owns map and list from here, even on failure */
	a->queued[i] = zpipe_add(a->pipe, i, map, len, list, n) == 0;
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

void zahead_from(struct zahead *a, int i)
{
	if (!a)
		return;
	if (a->next < i)
		a->next = i;	/* those before were passed over */
	while (a->next < a->n && !a->refused &&
	       (!a->pipe || zpipe_pending(a->pipe) < ZAHEAD_QUEUE))
		queue(a, a->next++);
}

bool zahead_take(struct zahead *a, int i, struct zsrc *z)
{
	if (!a || i < 0 || i >= a->n || !a->queued[i])
		return false;
	a->queued[i] = false;
	zsrc_serve(z, a->pipe, i);
	return true;
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
