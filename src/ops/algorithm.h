/*
 * algorithm.h - --algorithm: the names of the kernels a command can be told
 * to run (the classic GPU algorithms of the examples gpustat grew from,
 * beside its own), and which backend runs each.
 *
 * `default` is the backend's own kernel. hist's `cpu` is the CPU backend's
 * loop; every other name is a GPU kernel (cuda/algos/), so --backend auto
 * runs it on the GPU, as --backend cuda does, and --backend cpu refuses it.
 * Every algorithm gives the default's output, bit for bit: the accumulators
 * (counts, exact sums, exact prefixes) merge exactly in any grouping.
 */
#ifndef ALGORITHM_H
#define ALGORITHM_H

#include "gs.h"

/* The names each command takes, as its option row's completion values. */
#define HIST_ALGORITHMS "default cpu global-atomic shared-atomic sort"
#define REDUCE_ALGORITHMS "default atomic block-tree"
#define SCAN_ALGORITHMS "default hillis-steele blelloch"

/* "global-atomic", ...; "default" for ALGO_DEFAULT. */
const char *algo_name(enum gs_algo a);

/* The algorithm named s if it is one of the space-separated names in
 * list: 0, or -1. */
int algo_parse(const char *s, const char *list, enum gs_algo *a);

/* Whether a runs on the GPU only (all but default and cpu). */
bool algo_on_gpu(enum gs_algo a);

#endif
