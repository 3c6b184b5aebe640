/*
 * auto_plan.h - whether --backend auto starts a GPU at all: a model of the
 * time on the CPU alone against the time with a GPU that starts in the
 * background (backend_auto.c), from the input's size, the command and its
 * type, the CPU threads and the GPU's start-up cost. Its constants are one
 * table in auto_plan.c, each with how to fit it from bench/bench_e2e.sh.
 */
#ifndef AUTO_PLAN_H
#define AUTO_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gs.h"

/* GPUSTAT_AUTO_CPU_CHUNKS=N (tests, backend_auto.c): exactly N chunks on
 * the CPU, then the GPU; set, it also makes auto start the GPU whatever
 * the plan says, so that the hand-over is tested on small inputs. */
#define AUTO_CPU_CHUNKS_ENV "GPUSTAT_AUTO_CPU_CHUNKS"

/* True when the GPU is predicted to finish the job sooner than the CPU
 * alone: input_bytes of input (-1 when unknown: a pipe, a .zst of unknown
 * content size), compressed when it is zstd (decoded on the CPU as it is
 * read), threads CPU threads. why[n] says the predicted times. */
bool auto_plan_gpu(const struct gs_job *job, int64_t input_bytes,
		   bool compressed, int threads, char *why, size_t n);

#endif
