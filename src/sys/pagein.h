/*
 * pagein.h - anonymous memory paged in ahead of its use, on threads of
 * its own.
 *
 * The CUDA backend's chunk buffers are pinned host memory, and pinning
 * needs the GPU's context, which takes 0.2 to 0.4 s to make. cudaHostAlloc
 * then pages each buffer in as well (about 30 ms for 64 MiB) with the run
 * waiting. Paged in here while the context is being made (driver.c starts
 * both), a buffer only needs pinning when the backend takes it
 * (cudaHostRegister: about 5 ms for 64 MiB).
 */
#ifndef PAGEIN_H
#define PAGEIN_H

#include <stdbool.h>
#include <stddef.h>

#define PAGEIN_MAX 8

/* count (at most PAGEIN_MAX) areas of bytes each, each paged in on a
 * thread of its own; once a process. An area never taken stays mapped
 * until the process ends: the engine takes them all at its first pass,
 * and a run that fails before it ends the process. */
void pagein_start(size_t bytes, int count);
/* An area of at least n bytes, paged in (waiting for its thread), in
 * *size its length; NULL where none is left. */
void *pagein_take(size_t n, size_t *size);
/* Whether p is an area pagein_take gave; pagein_give unmaps it. */
bool pagein_has(const void *p);
void pagein_give(void *p);

#endif
