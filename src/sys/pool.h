/*
 * pool.h - a fixed set of worker threads that all run one function at a
 * time: pool_run(fn, arg) calls fn(arg, i, n) on every thread i in 0..n-1
 * (the caller's thread is thread 0) and returns when all are done. Threads
 * are made once at pool_init and parked between runs, so nothing is created
 * per chunk.
 */
#ifndef POOL_H
#define POOL_H

#include <pthread.h>

struct pool {
	int n;			/* threads, the caller included */
	pthread_t *tid;
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	void (*fn)(void *arg, int i, int n);
	void *arg;
	unsigned long gen;	/* bumped by every pool_run */
	int pending;		/* workers still running this generation */
	int quit;
};

int pool_init(struct pool *p, int n);	/* 0 or -1 (errno set) */
void pool_run(struct pool *p, void (*fn)(void *arg, int i, int n), void *arg);
void pool_release(struct pool *p);

#endif
