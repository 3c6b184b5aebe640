/*
 * input_impl.h - the input's state (struct input) and the operand steps
 * that input.c and operand.c share. Private to the input layer: only
 * input.c and operand.c include it; everything else goes through input.h.
 *
 * input.c runs the state machine (opening an operand, zstd, detection, the
 * reads, views and rewinds); operand.c holds the steps of the states after
 * detection that read what a format's header says (HEADER, PAYLOAD, TRAIL,
 * NEXT_IMAGE, PLAIN, COLUMNS) and text's first line (HEADLINE). The shared
 * functions are named opnd_*; each file's own helpers stay static.
 */
#ifndef INPUT_IMPL_H
#define INPUT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "informat.h"
#include "input.h"
#include "npycols.h"
#include "zsrc.h"

_Static_assert(ZSRC_STALL == INPUT_STALL, "zsrc stalls pass through as is");

/* An operand error was put in err: report it and go on (input.c's
 * operand_fail). */
#define OPERAND_FAIL (-1)
/* Something stops everything (out of memory). */
#define INPUT_FATAL (-3)

enum in_state {
	ST_OPEN, ST_MAGIC, ST_DETECT, ST_HEADER, ST_PAYLOAD, ST_TRAIL,
	ST_NEXT_IMAGE, ST_PLAIN, ST_COLUMNS, ST_HEADLINE, ST_END
};

struct input {
	char *const *paths;	/* stdin_only when none are given */
	int npaths;
	struct input_opts opts;
	int idx;		/* operand being read */
	const char *name;	/* its name for errors, "stdin" for "-" */
	enum in_state st;
	struct zsrc *z;		/* its bytes, decoded when compressed */
	struct zahead *ahead;	/* the .zst operands after it, decoding */
	int fd;
	bool fd_open, is_reg;
	uint8_t *hbuf;		/* decoded bytes peeked: [hpos, hlen) unused */
	size_t hpos, hlen;
	bool deof;		/* the decoded operand has ended */
	uint64_t doff;		/* decoded bytes of the operand used so far */
	const struct in_format *fmt;
	char fmtname[32];	/* its name with the codec, "npy (gzip)" */
	unsigned image;		/* headers parsed in this operand (pnm: > 1) */
	struct fmt_header hdr;	/* the last one */
	uint64_t left;		/* payload bytes still to come (headers) */
	uint64_t extra;		/* bytes found after a payload (TRAIL) */
	uint8_t hi;		/* pnm: first byte of a split 16-bit sample */
	struct pnm_text text;	/* pnm P2/P3 */
	struct npy_cols cols;	/* Fortran-order npy */
	uint8_t pend[8];	/* a sample made for a read too small for it */
	size_t pend_pos, pend_len;
	off_t base;		/* file offset where the operand begins */
	bool typed;		/* dtype/columns are fixed */
	struct gs_dtype dtype;
	unsigned columns;
	struct gs_record rec;	/* records of mixed types (rec.n > 0) */
	bool failed;
	bool *reported;		/* per operand, so a rewind does not warn twice */
	bool uses_stdin;
	bool stdin_reg;
	off_t stdin_start;
	struct textin *textin;	/* --text: records made from the payload */
	bool seen;		/* an operand had bytes: the stream's kind is set */
	bool text_found;	/* text by detect_text, not by --text */
	struct headline *head;	/* text's first line (--header, -F) */
	struct proj *proj;	/* -F: the records cut to its columns */
};

/* Each step returns payload bytes (> 0; steps that hand none out return 0
 * when they only moved on), INPUT_STALL, or OPERAND_FAIL/INPUT_FATAL with
 * err filled. */

/* input.c */
/* Close the operand and go on to the next one (ST_OPEN). */
void opnd_done(struct input *in);
/* Peek into hbuf: bytes added, 0 at the end, INPUT_STALL or OPERAND_FAIL. */
ssize_t opnd_peek(struct input *in, int stall_ms, struct gs_err *err);

/* operand.c */
/* ST_HEADER: parse the format's header, then move to its payload state. */
int opnd_header(struct input *in, int stall_ms, struct gs_err *err);
/* ST_PAYLOAD: up to n payload bytes into buf (a header's size, or to EOF). */
ssize_t opnd_payload(struct input *in, void *buf, size_t n, int stall_ms,
		     struct gs_err *err);
/* ST_TRAIL: after an npy payload, fail on any bytes that follow it. */
int opnd_trail(struct input *in, int stall_ms, struct gs_err *err);
/* ST_NEXT_IMAGE: after a pnm image, the gap then the end or a next header. */
int opnd_next_image(struct input *in, int stall_ms, struct gs_err *err);
/* ST_PLAIN: up to n bytes of samples made from plain pnm text. */
ssize_t opnd_plain(struct input *in, uint8_t *buf, size_t n, int stall_ms,
		   struct gs_err *err);
/* ST_COLUMNS: up to n bytes of Fortran-order npy records, in row order. */
ssize_t opnd_columns(struct input *in, uint8_t *buf, size_t n,
		     struct gs_err *err);
/* ST_HEADLINE: take text's first line (--header, -F) off the payload. */
int opnd_headline(struct input *in, int stall_ms, struct gs_err *err);

#endif
