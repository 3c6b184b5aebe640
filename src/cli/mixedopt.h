/*
 * mixedopt.h - records of mixed types on the command line (mixedopt.c):
 * a -t list (gs.h's struct gs_record, at c->record) and a structured
 * .npy header against the options. Private to the CLI.
 */
#ifndef MIXEDOPT_H
#define MIXEDOPT_H

#include "cli.h"

/* -t T1,T2,...: the list into c->record (a usage error names a type that
 * is none). 0 or -1 with err. */
int cli_type_list(struct cli *c, const char *arg, struct gs_err *err);
/* After every option: --endian for the list's columns that named no byte
 * order, and the list's length as the columns (-c must agree); the job
 * then reads records of mixed types. 0 or -1 with err. */
int cli_record_options(struct cli *c, struct gs_err *err);
/* A header of records of mixed types (a structured .npy, info->rec)
 * against -t, --endian, -c and a type in the name; the job then reads
 * its records, offsets and padding included. name is the operand. */
int cli_settle_record(struct cli *c, const struct input_info *info,
		      const char *name, struct gs_err *err);
/* -F on records of mixed types: its columns of c->record as the job's
 * record (c->cut_record), each at its offset in the whole record, so the
 * input hands out whole records and the others are never read; or, for
 * columns of one type (not bools), the job -t T -c N over the input's cut
 * of their bytes, which every command reads (info's length then counts
 * those bytes). */
int cli_cut_record(struct cli *c, struct input *in, struct input_info *info,
		   const char *name, struct gs_err *err);
/* A list of one type, packed (-t f32,f32, a structured .npy of f32
 * fields): the job is -t T -c N, which every command reads; 1 when it
 * was, else 0. */
int cli_one_type(struct cli *c);

#endif
