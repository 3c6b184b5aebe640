/*
 * progress.h - a progress line on stderr while a long run reads its input:
 * bytes, rate, and percent and ETA when the size is known. It shows after
 * about a second (at once with --progress), updates four times a second, and
 * is erased at the end. The engine's reader counts bytes into *counter.
 */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include "gs.h"

struct progress {
	_Atomic uint64_t bytes;		/* payload bytes read so far */
	int64_t total;			/* -1 when unknown */
	bool force;
	bool running, shown;
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool stop;
};

/* Whether to show progress: mode -1 auto (stderr is a terminal), 0 never,
 * 1 always. */
bool progress_wanted(int mode);
/* Start the display thread; the caller adds to p->bytes as it reads. */
void progress_start(struct progress *p, int64_t total, bool force);
/* Stop and erase the line. */
void progress_stop(struct progress *p);

#endif
