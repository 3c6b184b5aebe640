/*
 * sig.c - see sig.h. One thread owns the stop signals: a handler would run
 * inside whichever thread the kernel picks, in the middle of a write or a
 * lock, where it could do nothing but set a flag that a blocked reader never
 * looks at. A thread in sigwait() can take the engine's lock and wake it.
 */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include "sig.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void (*watcher)(void *, int);
static void *watcher_arg;
static int caught;

static void stop_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

static void *sig_main(void *unused)
{
	sigset_t set;
	int signo;

	stop_set(&set);
	for (;;) {
		if (sigwait(&set, &signo) != 0)
			continue;
		pthread_mutex_lock(&lock);
		if (caught || !watcher)
			_exit(GS_ESIGNAL + signo);
		caught = signo;
		watcher(watcher_arg, signo);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

void sig_init(void)
{
	sigset_t set;
	pthread_t t;

	stop_set(&set);
	/* if the thread cannot start, keep the default actions */
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0)
		return;
	if (pthread_create(&t, NULL, sig_main, NULL) != 0) {
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		return;
	}
	pthread_detach(t);
}

void sig_watch(void (*fn)(void *, int), void *arg)
{
	pthread_mutex_lock(&lock);
	watcher = fn;
	watcher_arg = arg;
	pthread_mutex_unlock(&lock);
}

void sig_unwatch(void)
{
	pthread_mutex_lock(&lock);
	watcher = NULL;
	watcher_arg = NULL;
	pthread_mutex_unlock(&lock);
}
