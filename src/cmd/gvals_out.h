/*
 * gvals_out.h - --by on quantile, median and mode (gvals_out.c): one
 * pass collects every key's values (cpu/gvals.h), and each key's result
 * is the ungrouped command's on that key's records alone, formatted by
 * the ungrouped command's code (these hooks of cmd_quantile.c, quantile.h
 * and cmd_mode.c).
 */
#ifndef GVALS_OUT_H
#define GVALS_OUT_H

#include "command.h"

/* With --by (c->by set): the job's keys and values and the one pass
 * (command.plan). */
int gvals_plan(struct cli *c, const struct pass **passes, struct gs_err *err);

/* cmd_mode.c: how mode writes a value of type t by its select key, and
 * where its note's count of NaNs goes. */
struct wval mode_value(enum gs_type t, uint64_t key);
uint64_t *mode_nan_total(struct cli *c);

#endif
