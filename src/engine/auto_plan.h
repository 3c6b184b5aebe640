/*
 * auto_plan.h - whether --backend auto starts a GPU at all: a model of the
 * time on the CPU alone against the time with a GPU that starts in the
 * background (backend_auto.c), from the input's size, the command and its
 * type, the CPU threads and the GPU's start-up cost; and, where that picks
 * the CPU, the same model again as the CPU runs, from its measured rate
 * (an input of known length), or the CPU's measured rate against the
 * input's (an input of unknown length: a pipe).
 * Its constants are one table in auto_plan.c, each with how to fit it from
 * bench/bench_e2e.sh.
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

/* GPUSTAT_AUTO_CPU_GBS=R (tests): auto_plan_late takes R GB/s as the CPU's
 * measured rate, from its first call, whatever the run measured; so a test
 * without a GPU sees the late start attempted (R far below the plan's) or
 * the plan hold (far above). auto_plan_stream takes it too, against the
 * input's measured rate (R far below it: the start; far above: the CPU
 * keeps up). Set, it also makes backend_auto_late's next chunk after the
 * start wait for the GPU (backend_auto.c). A value that is not a finite
 * number above 0 counts as unset. GPUSTAT_AUTO_CPU_CHUNKS wins over it:
 * with both set, auto starts the GPU from the first chunk (backend_auto)
 * and no plan is revised. */
#define AUTO_CPU_GBS_ENV "GPUSTAT_AUTO_CPU_GBS"

/* Whether GPUSTAT_AUTO_CPU_GBS fakes the CPU's rate (set to a finite
 * number above 0). */
bool auto_plan_faked(void);

/* True when the GPU is predicted to finish the job sooner than the CPU
 * alone: input_bytes of input (-1 when unknown: a pipe, a .zst of unknown
 * content size), compressed when it is zstd (decoded on the CPU as it is
 * read), threads CPU threads. why[n] says the predicted times. */
bool auto_plan_gpu(const struct gs_job *job, int64_t input_bytes,
		   bool compressed, int threads, char *why, size_t n);

/* Where auto_plan_gpu picked the CPU: whether the CPU's measured rate may
 * still start the GPU: auto_plan_late for an input of known length (not
 * empty), auto_plan_stream for one of unknown length (input_bytes < 0);
 * not zstd (whose decoding is the CPU's limit), and a job with a GPU rate
 * (not one that auto keeps on the CPU whatever its size). */
bool auto_plan_watch(const struct gs_job *job, int64_t input_bytes,
		     bool compressed);

/* The plan revised as the CPU alone runs on threads threads: it computed
 * done bytes in secs seconds (its chunks after the first, which pays the
 * warm-up: backend_auto.c), left bytes are to come. True when a GPU
 * started now is predicted to finish them sooner than the CPU at that
 * rate, by a margin (auto_plan.c); false as well while the seconds are too
 * few to trust. why[n] says the measured and the plan's rates, and where
 * it returns true the times predicted from now. */
bool auto_plan_late(const struct gs_job *job, int threads, uint64_t done,
		    double secs, uint64_t left, char *why, size_t n);

/* An input of unknown length (a pipe) on the CPU alone, watched: its
 * chunks after the first, done bytes, took secs seconds of the CPU's
 * submits and wall seconds since the first chunk's submit returned (the
 * waits for the input between them included). True when the CPU does not
 * compute AUTO_LATE_MARGIN times as fast as the input comes (it is the
 * bottleneck: a GPU started now would take over; the length being
 * unknown, the input is taken as long enough to pay for the GPU's start);
 * false as well while the seconds are too few to trust. why[n] says both
 * rates, after "kept up: it " where the CPU keeps up, or "alone, too
 * briefly measured to judge: it " while the evidence is short. */
bool auto_plan_stream(const struct gs_job *job, uint64_t done, double secs,
		      double wall, char *why, size_t n);

#endif
