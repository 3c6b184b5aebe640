/*
 * result_out.h - a result written as it is made: --by's rows (a row per
 * key; 100 million keys print gigabytes) go to the output a buffer at a
 * time, never held whole, so a run's memory is its table plus this
 * buffer.
 *
 * The result's sbuf (report.h) drains into the output once it holds
 * RESULT_OUT_BUFFER bytes; a result that never does is written at the end
 * by cli_finish, as every other result. The output is opened at the first
 * drain, and the rule that a failed run writes no result holds as for
 * every result: -o FILE is a temporary file until the end (out.h), a
 * regular file that stdout names is cut back; anything else whose bytes
 * cannot be taken back (a pipe, a socket, a terminal, a file opened to
 * append; not /dev/null) is sent nothing until the result is whole: its
 * bytes wait in a file under $TMPDIR, unlinked at once (where none can be
 * made, or it fills, in memory, as every result's). Where an operand
 * failed, nothing is written. A file's (and /dev/null's) bytes are
 * written on a thread while the rows after them are made.
 */
#ifndef RESULT_OUT_H
#define RESULT_OUT_H

#include <pthread.h>
#include "cli.h"
#include "out.h"
#include "report.h"

#define RESULT_OUT_BUFFER (1u << 20)

struct result_out {
	struct cli *c;
	struct out o;
	bool open;		/* o is open */
	bool failed;		/* a write failed: err says why */
	int spool;		/* a pipe's bytes until the end, or -1 */
	bool hold;		/* a pipe without a spool: b holds them */
	uint64_t spooled;
	struct gs_err err;
	/* Output that takes its bytes as they come (a file, /dev/null) is
	 * written on a thread of its own, a buffer in flight while the next
	 * is made; err is the thread's while busy. */
	pthread_t writer;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool writer_on, busy, quit;
	int fly_rc;		/* the last write's */
	struct sbuf fly;	/* the buffer in flight */
};

/* b's bytes (the result c's passes write) to go through r. */
void result_out_start(struct result_out *r, struct cli *c, struct sbuf *b);
/* The end of a run that wrote b (cli_finish's return): the rest of b
 * written and the output closed, or, where b never drained, cli_finish. */
int result_out_finish(struct result_out *r, struct sbuf *b);
/* A run that failed: what was written taken back (out_abort). */
void result_out_abort(struct result_out *r);

#endif
