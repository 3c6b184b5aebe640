/*
 * progress.h - a progress line on stderr while a long run reads its input:
 * bytes, rate, and percent and ETA when the size is known. It shows after
 * about a second (at once with --progress). On a terminal it is one line,
 * rewritten four times a second and erased at the end; forced to a file or
 * pipe it is a plain line every two seconds, with no carriage returns or
 * escapes. The engine's reader counts bytes into *counter.
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
	bool tty;			/* stderr is a terminal */
	bool running, shown;
	double last;			/* seconds in when last drawn */
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
