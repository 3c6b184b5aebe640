/*
 * sig.h - SIGINT, SIGTERM, SIGHUP and SIGXFSZ as an orderly stop.
 *
 * sig_init() blocks the four signals in every thread and leaves them to one
 * thread that waits for them with sigwait(2). When a signal arrives while a
 * stream is running (between sig_watch and sig_unwatch), the watcher is
 * called from that thread, an ordinary thread, so it may take locks: the
 * engine stops reading, lets the writes in flight finish, and the command
 * exits with 128 + the signal number, its output holding whole elements only
 * (and a .npy header that matches them). Outside a stream the process exits
 * at once with that status; so does a run that has not ended a second after
 * the signal (a write that cannot complete: a FIFO nobody reads). Another
 * signal within that second changes nothing. Temporary files named by
 * sig_keep_tmp() are removed before any of these exits. A write past the
 * file size limit (ulimit -f) raises SIGXFSZ in the writing thread, where
 * it stays blocked: the write fails with EFBIG instead, and the run ends
 * through its error path with the status 128 + SIGXFSZ (out.c).
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

/* Name a temporary output file to remove if a signal ends the process (or
 * at sig_exit_cleanup), and forget it again once it is renamed or removed.
 * Up to SIG_MAX_TMP at once; the path must stay valid while named. */
#define SIG_MAX_TMP 4
int sig_keep_tmp(const char *path);
void sig_forget_tmp(const char *path);
/* From here on the run has a result in place (an -o file renamed over
 * its target): a stop signal no longer ends the process, which exits with
 * its own status, so that a replaced FILE never comes with a failure. */
void sig_hold(void);

/* Remove the temporary files still named: main() calls it at exit. */
void sig_exit_cleanup(void);

#endif
