/*
 * spill.h - an input that cannot be read twice (a pipe), copied to an
 * unlinked temporary file so that a command of several passes (quantile)
 * can read it again.
 */
#ifndef SPILL_H
#define SPILL_H

#include "cli.h"

/* Copy what is left of c->in (its payload bytes, after any header or zstd
 * decoding) to a temporary file in $TMPDIR (or /tmp), unlinked at once,
 * and make that file c->in (read raw, as the type already settled), with
 * its length in c->input_bytes. The copy is bounded by the disk only: a
 * full disk is an error that says so. Returns 0, or -1 with err filled. */
int spill_input(struct cli *c, struct gs_err *err);

#endif
