/*
 * pagein.c - see pagein.h.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pagein.h"

struct area {
	pthread_t t;
	void *p;		/* NULL: not mapped (or mapping failed) */
	size_t n;
	bool running, taken;
};

static struct area areas[PAGEIN_MAX];
static int nareas;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* A page at a time, not MAP_POPULATE: that holds the process's memory
 * map locked while it pages in, and the GPU's start (and every other
 * thread's mmap) waited for it. */
static void *page_in(void *arg)
{
	struct area *a = arg;
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096;
	void *p = mmap(NULL, a->n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		a->p = NULL;
		return NULL;
	}
	for (size_t off = 0; off < a->n; off += page)
		((volatile unsigned char *)p)[off] = 0;
	a->p = p;
	return NULL;
}

void pagein_start(size_t bytes, int count)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t page = pg > 0 ? (size_t)pg : 4096;

	if (!bytes || bytes > SIZE_MAX - page)
		return;
	pthread_mutex_lock(&mu);
	if (nareas == 0) {
		for (int i = 0; i < count && i < PAGEIN_MAX; i++) {
			struct area *a = &areas[i];

			*a = (struct area){ .n = (bytes + page - 1) / page *
						 page };
			a->running = pthread_create(&a->t, NULL, page_in,
						    a) == 0;
			if (!a->running)
				break;
			nareas = i + 1;
		}
	}
	pthread_mutex_unlock(&mu);
}

void *pagein_take(size_t n, size_t *size)
{
	void *p = NULL;

	pthread_mutex_lock(&mu);
	for (int i = 0; !p && i < nareas; i++) {
		struct area *a = &areas[i];

		if (a->taken || a->n < n)
			continue;
		if (a->running) {
			pthread_join(a->t, NULL);
			a->running = false;
		}
		if (!a->p)
			continue;
		a->taken = true;
		p = a->p;
		*size = a->n;
	}
	pthread_mutex_unlock(&mu);
	return p;
}

static struct area *find(const void *p)
{
	for (int i = 0; p && i < nareas; i++)
		if (areas[i].taken && areas[i].p == p)
			return &areas[i];
	return NULL;
}

bool pagein_has(const void *p)
{
	bool mine;

	pthread_mutex_lock(&mu);
	mine = find(p) != NULL;
	pthread_mutex_unlock(&mu);
	return mine;
}

void pagein_give(void *p)
{
	struct area *a;

	pthread_mutex_lock(&mu);
	if ((a = find(p))) {
		munmap(a->p, a->n);
		a->p = NULL;
	}
	pthread_mutex_unlock(&mu);
}
