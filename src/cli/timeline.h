/*
 * timeline.h - where the process's time goes, for -v: the clock from
 * main's first line to its last, cut into the parts that the CLI and the
 * engine time (the backend choice, which creates a GPU context for
 * --backend cuda; buffers; the backend's open; the chunks; the teardown),
 * the time before the first run and after the last, and what no part
 * covers ("other"). The parts add up to the whole by construction. The
 * time before main (exec, the dynamic loader) is the kernel's clock at
 * 10 ms steps; what happens after the exit (the kernel freeing the
 * process's memory and a GPU context) no process can time itself.
 */
#ifndef TIMELINE_H
#define TIMELINE_H

#include <stdio.h>

enum tl_part {
	TL_SELECT,	/* choosing the backend: a GPU's probe and context */
	TL_BUFFERS,	/* the engine's buffers (pinned for CUDA) */
	TL_OPEN,	/* the backend's open: streams, device memory, threads */
	TL_RUN,		/* reading and computing the chunks, to the result */
	TL_TEARDOWN,	/* the backend's close and the buffers' free */
	TL_NPARTS
};

double timeline_now(void);		/* CLOCK_MONOTONIC seconds */
void timeline_start(void);		/* main's first line */
void timeline_enable(void);		/* -v: timeline_report prints */
void timeline_add(enum tl_part part, double seconds);
/* Around each engine run: the first begin and the last end cut off the
 * time before the first run and after the last. */
void timeline_run_begin(void);
void timeline_run_end(void);
/* One line, when enabled: call it last, just before the exit. */
void timeline_report(FILE *f);

#endif
