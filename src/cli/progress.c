/*
 * progress.c - see progress.h. A thread that sleeps on a condition variable
 * with a timeout, so stopping is immediate and idle runs cost nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "progress.h"

#define SHOW_AFTER_S 1.0	/* "the run lasts more than about a second" */
#define UPDATE_MS 250		/* "a few updates a second" */
/* A file or pipe keeps every line: one every 2 s is plenty for a log. */
#define PLAIN_EVERY_S 2.0

bool progress_wanted(int mode)
{
	return mode > 0 || (mode < 0 && isatty(STDERR_FILENO));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 1.5 GiB, 230 MiB, 12 KiB, 17 B */
static void human(char *buf, size_t n, double v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int u = 0;

	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

static void draw(struct progress *p, double elapsed)
{
	uint64_t b = atomic_load(&p->bytes);
	double rate = elapsed > 0 ? (double)b / elapsed : 0;
	char done[32], speed[32], line[160];
	int n;

	human(done, sizeof(done), (double)b);
	human(speed, sizeof(speed), rate);
	n = snprintf(line, sizeof(line), "%s  %s/s", done, speed);
	if (p->total > 0 && n > 0 && (size_t)n < sizeof(line)) {
		double frac = (double)b / (double)p->total;
		double eta = rate > 0 ? ((double)p->total - (double)b) / rate : 0;

		if (frac > 1)
			frac = 1;
		if (eta < 0)
			eta = 0;
		snprintf(line + n, sizeof(line) - (size_t)n,
			 "  %3.0f%%  ETA %d:%02d", 100 * frac, (int)eta / 60,
			 (int)eta % 60);
	}
	/* a terminal rewrites one line (\033[K clears what a longer previous
	 * line left); a file or pipe gets plain lines, no control characters */
	if (p->tty)
		fprintf(stderr, "\r%s\033[K", line);
	else
		fprintf(stderr, "gpustat: %s\n", line);
	fflush(stderr);
	p->shown = true;
	p->last = elapsed;
}

static bool due(const struct progress *p, double elapsed)
{
	if (!p->force && elapsed < SHOW_AFTER_S)
		return false;
	return p->tty || !p->shown || elapsed - p->last >= PLAIN_EVERY_S;
}

static void *progress_main(void *v)
{
	struct progress *p = v;
	double t0 = now();

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += UPDATE_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		int rc = pthread_cond_timedwait(&p->cv, &p->lock, &ts);

		if (p->stop)
			break;
		double e = now() - t0;

		if (rc == ETIMEDOUT && due(p, e))
			draw(p, e);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void progress_start(struct progress *p, int64_t total, bool force)
{
	atomic_store(&p->bytes, 0);
	p->total = total;
	p->force = force;
	p->tty = isatty(STDERR_FILENO);
	p->shown = false;
	p->last = 0;
	p->stop = false;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->running = pthread_create(&p->tid, NULL, progress_main, p) == 0;
}

void progress_stop(struct progress *p)
{
	if (!p->running)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->tid, NULL);
	p->running = false;
	if (p->shown && p->tty) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}
