/*
 * sig.h - SIGINT, SIGTERM and SIGHUP as an orderly stop.
 *
 * sig_init() blocks the three signals in every thread and leaves them to one
 * thread that waits for them with sigwait(2). When a signal arrives while a
 * stream is running (between sig_watch and sig_unwatch), the watcher is
 * called from that thread, an ordinary thread, so it may take locks: the
 * engine stops reading, lets the writes in flight finish, and the command
 * exits with 128 + the signal number, its output holding whole elements only
 * (and a .npy header that matches them). Outside a stream, or at a second
 * signal, the process exits at once with that status.
 */
#ifndef SIG_H
#define SIG_H

/* Exit statuses 128 + signal number: gs_err.code for a stopped run. */
#define GS_ESIGNAL 128

/* Call first in main, before any thread starts. */
void sig_init(void);

/* fn(arg, signo) is called once, from the signal thread, at the first
 * signal until sig_unwatch(). */
void sig_watch(void (*fn)(void *arg, int signo), void *arg);
void sig_unwatch(void);

#endif
