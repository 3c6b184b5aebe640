/*
 * sig.c - see sig.h. One thread owns the stop signals: a handler would run
 * inside whichever thread the kernel picks, in the middle of a write or a
 * lock, where it could do nothing but set a flag that a blocked reader never
 * looks at. A thread in sigwait() can take the engine's lock and wake it.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sig.h"

/* How long an orderly stop may take before the process ends anyway: a
 * write blocked on a FIFO that nobody reads would hold it forever. */
#define SIG_GRACE_NS 900000000L

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void (*watcher)(void *, int);
static void *watcher_arg;
static int caught;
static bool held;		/* an output was committed: finish, do not die */
static const char *tmp_paths[SIG_MAX_TMP];

static void stop_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	/* sent by another process, a stop like the others; raised by a write
	 * past ulimit -f, it stays pending on the writing thread, blocked, and
	 * the write fails with EFBIG, which out.c ends the run with */
	sigaddset(set, SIGXFSZ);
}

/* With the lock held. */
static void remove_tmp(void)
{
	for (int i = 0; i < SIG_MAX_TMP; i++)
		if (tmp_paths[i]) {
			unlink(tmp_paths[i]);
			tmp_paths[i] = NULL;
		}
}

static void die(int signo)
{
	remove_tmp();
	_exit(GS_ESIGNAL + signo);
}

static void *sig_main(void *unused)
{
	struct timespec grace = { 0, SIG_GRACE_NS };
	sigset_t set;
	int signo;

	stop_set(&set);
	for (;;) {
		if (sigwait(&set, &signo) != 0)
			continue;
		pthread_mutex_lock(&lock);
		if (held) {
			pthread_mutex_unlock(&lock);
			continue;
		}
		if (caught || !watcher)
			die(signo);
		caught = signo;
		watcher(watcher_arg, signo);
		pthread_mutex_unlock(&lock);
		/* the run normally ends well within this; a later signal
		 * stays pending meanwhile and changes nothing */
		while (nanosleep(&grace, &grace) != 0)
			;
		pthread_mutex_lock(&lock);
		if (!held)
			die(signo);
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
		signal(SIGXFSZ, SIG_IGN);	/* EFBIG still ends the run */
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

void sig_hold(void)
{
	pthread_mutex_lock(&lock);
	held = true;
	pthread_mutex_unlock(&lock);
}

int sig_keep_tmp(const char *path)
{
	int rc = -1;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < SIG_MAX_TMP && rc < 0; i++)
		if (!tmp_paths[i]) {
			tmp_paths[i] = path;
			rc = 0;
		}
	pthread_mutex_unlock(&lock);
	return rc;
}

void sig_forget_tmp(const char *path)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < SIG_MAX_TMP; i++)
		if (tmp_paths[i] == path)
			tmp_paths[i] = NULL;
	pthread_mutex_unlock(&lock);
}

void sig_exit_cleanup(void)
{
	pthread_mutex_lock(&lock);
	remove_tmp();
	pthread_mutex_unlock(&lock);
}
