/*
 * textin_impl.h - textin's pieces, batches and state, shared by its reader
 * (textin.c) and its parser of one piece (textparse.c); private to input/.
 */
#ifndef TEXTIN_IMPL_H
#define TEXTIN_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "input.h"
#include "pool.h"
#include "textin.h"
#include "textkeys.h"
#include "textnum.h"

/* Bytes of text per piece: a field may not be longer. Two pieces per
 * thread give the pool slack when pieces parse at different speeds (and
 * while thread 0 reads). */
#define TEXT_PIECE ((size_t)1 << 19)
#define TEXT_PIECES_PER_THREAD 2
/* Parse threads at most: a thread parses 350 to 650 MB/s of text (seq's
 * integers, repr()'s 17-digit floats, measured on one core), so 16 are
 * past any disk's speed, and the pieces of the two batches (2.5 MiB each:
 * text, then up to 8 bytes of record for every 2 bytes of it) stay at
 * 160 MiB however many cores there are. */
#define TEXT_THREADS_MAX 16
/* How long a read waits, with a field in hand, before that is parsed and
 * handed on (when the engine does not say). */
#define TEXT_STALL_MS 10

enum { WIDTH_C, WIDTH_HEADER, WIDTH_LINE1 };

enum { ERR_NONE, ERR_INVALID, ERR_RANGE, ERR_EMPTY, ERR_COUNT, ERR_LONG,
       ERR_KEYS, ERR_NOMEM, ERR_QOPEN, ERR_QAFTER };

struct piece {
	char *txt;
	size_t len;		/* bytes in txt */
	size_t cut;		/* bytes parsed: [0, cut) */
	bool line_start;	/* begins a line (else right after a field) */
	bool comma_start;	/* and a comma: a field must come first */
	bool last;		/* its operand ends with it */
	const char *name;	/* the operand */
	uint8_t *out;
	size_t nval;		/* values in out */
	uint64_t nl;		/* newlines in it */
	uint64_t head, tail;	/* fields before its first, after its last */
	int err;		/* the first error, ERR_* */
	uint64_t eline;		/* its line, 0 for the piece's first */
	uint64_t efield;	/* its field within what the piece holds */
	uint64_t ecount;	/* ERR_COUNT: the fields the line has */
	char etok[44];
};

/* Pieces read one after another, parsed at once. */
struct batch {
	struct piece *p;	/* np of them */
	int nb;			/* pieces in it */
};

struct textin {
	struct input *in;
	struct pool pool;
	bool pool_up;
	bool lines;
	unsigned columns;
	struct gs_dtype dtype;
	size_t tsize;
	textnum_fn parse;
	struct batch set[2];
	struct batch *cur;	/* parsed, then handed out */
	struct batch *next;	/* read while cur is parsed */
	int np;			/* pieces per batch */
	atomic_int next_piece;	/* the next piece of cur a thread parses */
	bool prefetch;		/* thread 0 reads next during the parse */
	int pre_r;		/* what batch_fill said of it */
	struct gs_err pre_err;
	struct handout *handout;	/* the hand-out's copies (textin.c) */
	int di;			/* the piece being handed out */
	size_t dpos, dlim;	/* bytes of its out handed out, to hand out */
	bool settled;		/* dlim and the piece's error are known */
	struct piece *cpc;	/* the carry: cpc->txt + coff */
	size_t coff, clen;
	bool cline_start, ccomma;
	const char *cname;
	uint64_t line, fields;	/* where the hand-out is in its operand */
	uint64_t first_line;	/* of each operand's records */
	int width_from;		/* where columns came from: WIDTH_* */
	bool eof, failing;
	bool read_failed;	/* the input failed after the batch's pieces */
	struct gs_err fail;
	/* --by's string keys: the fields of the columns keycol marks are
	 * interned into keys and their ids stored as values of the type (up
	 * to key_max); with keycol (-F's fields not read too) pieces begin at
	 * lines only, where a field's number is its column's */
	struct textkeys *keys;
	uint8_t *keycol;	/* [nkeycol]: TEXTIN_* */
	unsigned nkeycol;
	uint64_t key_max;
};

/* What each byte is to the fields: a table, as this is the inner loop. */
enum { C_FIELD, C_SPACE, C_COMMA, C_NEWLINE };

static const uint8_t byte_class[256] = {
	[' '] = C_SPACE, ['\t'] = C_SPACE, ['\r'] = C_SPACE, ['\v'] = C_SPACE,
	['\f'] = C_SPACE, [','] = C_COMMA, ['\n'] = C_NEWLINE,
};

static inline bool is_space(char c)
{
	return byte_class[(uint8_t)c] == C_SPACE;
}

static inline bool is_sep(char c)
{
	return byte_class[(uint8_t)c] != C_FIELD;
}

/* Piece pc parsed into its values (on a pool thread; textparse.c). */
void piece_parse(const struct textin *t, struct piece *pc);
/* Its values into the data's byte order. */
void piece_swap(const struct textin *t, struct piece *pc);
/* The first error of pc: kind at line (relative), field, its text. */
void piece_error(struct piece *pc, int kind, uint64_t line, uint64_t field,
		 const char *tok, size_t n);

#endif
