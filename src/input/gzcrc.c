/*
 * gzcrc.c - see gzcrc.h.
 *
 * One lock guards a ring of the pieces lent; the thread takes the oldest,
 * carries its own CRC32 over it outside the lock, and drops it from the
 * ring only once it is read, so that an empty ring means every piece is
 * given back. What the pieces since the last wait come to is joined to
 * the caller's CRC32 with zlib's crc32_combine.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <zlib.h>
#include "gzcrc.h"
#include "gzinflate.h"

/* Pieces lent at most: more than one stream chunk holds (gzsrc.c lends
 * them 1 MiB at a time into chunks of 8), so the lender seldom waits. */
#define GZCRC_RING 16

struct piece {
	const void *p;
	size_t n;
};

struct gzcrc {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t lent, read;	/* a piece to read; a piece read */
	struct piece ring[GZCRC_RING];
	unsigned head, tail;	/* ring[head..tail) lent, ring[head] being read */
	uint32_t crc;		/* of the pieces read since the last wait */
	uint64_t len;		/* ...and their length */
	bool quit;
};

static void *gzcrc_main(void *arg)
{
	struct gzcrc *c = arg;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (c->head == c->tail && !c->quit)
			pthread_cond_wait(&c->lent, &c->lock);
		if (c->head == c->tail)
			break;
		struct piece pc = c->ring[c->head % GZCRC_RING];
		uint32_t crc = c->crc;

		pthread_mutex_unlock(&c->lock);
		crc = gzinflate_crc32(crc, pc.p, pc.n);
		pthread_mutex_lock(&c->lock);
		c->crc = crc;
		c->len += pc.n;
		c->head++;
		pthread_cond_signal(&c->read);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct gzcrc *gzcrc_new(void)
{
	struct gzcrc *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (pthread_mutex_init(&c->lock, NULL) != 0)
		goto no_lock;
	if (pthread_cond_init(&c->lent, NULL) != 0)
		goto no_lent;
	if (pthread_cond_init(&c->read, NULL) != 0)
		goto no_read;
	if (pthread_create(&c->thread, NULL, gzcrc_main, c) == 0)
		return c;
	pthread_cond_destroy(&c->read);
no_read:
	pthread_cond_destroy(&c->lent);
no_lent:
	pthread_mutex_destroy(&c->lock);
no_lock:
	free(c);
	return NULL;
}

void gzcrc_free(struct gzcrc *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->quit = true;
	pthread_cond_signal(&c->lent);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	pthread_cond_destroy(&c->read);
	pthread_cond_destroy(&c->lent);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void gzcrc_add(struct gzcrc *c, const void *p, size_t n)
{
	if (!n)
		return;
	pthread_mutex_lock(&c->lock);
	while (c->tail - c->head == GZCRC_RING)
		pthread_cond_wait(&c->read, &c->lock);
	c->ring[c->tail++ % GZCRC_RING] = (struct piece){ p, n };
	pthread_cond_signal(&c->lent);
	pthread_mutex_unlock(&c->lock);
}

uint32_t gzcrc_wait(struct gzcrc *c, uint32_t crc)
{
	pthread_mutex_lock(&c->lock);
	while (c->head != c->tail)
		pthread_cond_wait(&c->read, &c->lock);
	if (c->len)
		crc = (uint32_t)crc32_combine(crc, c->crc, (z_off_t)c->len);
	c->crc = 0;
	c->len = 0;
	pthread_mutex_unlock(&c->lock);
	return crc;
}
