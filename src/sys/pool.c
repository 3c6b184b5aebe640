/*
 * pool.c - see pool.h. One mutex and two condition variables: "go" wakes the
 * workers for a new generation, "done" wakes the caller when the last one
 * finishes. Runs are coarse (one per slice of a multi-MiB chunk), so this
 * simple scheme costs nothing measurable.
 */
#include <stdlib.h>
#include "pool.h"

struct worker_arg {
	struct pool *p;
	int i;
};

static void *worker(void *v)
{
	struct worker_arg *w = v;
	struct pool *p = w->p;
	int i = w->i;
	unsigned long seen = 0;

	free(w);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->quit && p->gen == seen)
			pthread_cond_wait(&p->go, &p->lock);
		if (p->quit)
			break;
		seen = p->gen;
		pthread_mutex_unlock(&p->lock);
		p->fn(p->arg, i, p->n);
		pthread_mutex_lock(&p->lock);
		if (--p->pending == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int pool_init(struct pool *p, int n)
{
	p->n = n < 1 ? 1 : n;
	p->gen = 0;
	p->pending = 0;
	p->quit = 0;
	p->tid = calloc((size_t)p->n, sizeof(*p->tid));
	if (!p->tid)
		return -1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	for (int i = 1; i < p->n; i++) {
		struct worker_arg *w = malloc(sizeof(*w));

		if (!w) {
			p->n = i;	/* only 0..i-1 exist */
			return -1;
		}
		w->p = p;
		w->i = i;
		if (pthread_create(&p->tid[i], NULL, worker, w) != 0) {
			free(w);
			p->n = i;	/* only 0..i-1 exist */
			return -1;
		}
	}
	return 0;
}

void pool_run(struct pool *p, void (*fn)(void *arg, int i, int n), void *arg)
{
	if (p->n == 1) {
		fn(arg, 0, 1);
		return;
	}
	pthread_mutex_lock(&p->lock);
	p->fn = fn;
	p->arg = arg;
	p->pending = p->n - 1;
	p->gen++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->lock);

	fn(arg, 0, p->n);

	pthread_mutex_lock(&p->lock);
	while (p->pending > 0)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void pool_release(struct pool *p)
{
	if (!p->tid)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = 1;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->lock);
	for (int i = 1; i < p->n; i++)
		pthread_join(p->tid[i], NULL);
	free(p->tid);
	p->tid = NULL;
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
}
