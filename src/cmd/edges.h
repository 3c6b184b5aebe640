/*
 * edges.h - bin edges in a file of their own (hist --edges, hist2d
 * --xedges and --yedges), in numpy's dtype of them.
 */
#ifndef EDGES_H
#define EDGES_H

#include "cli.h"
#include "out.h"

/* numpy's dtype of edges made in the data's float type: "<f2" for f16
 * data, "<f4" for f32 and bf16, "<f8" otherwise. */
const char *edges_float_descr(const struct gs_job *job);

/* Write n + 1 edges to path through o (a temporary file that out_close
 * renames over path once the result is out): .npy with -f npy, else raw
 * little-endian, in descr: "<f2", "<f4", "<f8" from edges (each exact in
 * it), or "<i8": ifirst, ifirst + 1, ... Returns 0, or an exit status
 * (the error reported). */
int edges_file_write(struct cli *c, struct out *o, const char *path,
		     const char *descr, const double *edges, int64_t ifirst,
		     uint64_t n);

#endif
