/*
 * textdetect.h - whether an operand is decimal text, decided by what text
 * is. Private to the input layer: input.c asks it of every operand that
 * no format's magic matched, unless --raw (under --text only a BOM is
 * looked for); a later operand of a binary stream that is text is refused.
 *
 * The answer is a function of the operand's first TEXT_PREFIX bytes (of
 * all of them when it is shorter) and of nothing else: not of how a pipe
 * delivered them. It comes before them only where no later byte could
 * change it (a byte that is not text makes the operand binary).
 *
 *  - binary: a byte that is neither printable ASCII, white space nor part
 *    of valid UTF-8 (NUL, a control byte, a bad sequence): raw data;
 *  - numbers: every field (split by white space and commas, a UTF-8 BOM
 *    at the start skipped) is a number as textnum.h reads a float (sign,
 *    digits, point, exponent, nan/inf/infinity in any case): text. The
 *    last field of a prefix that ends before the operand may be cut, so
 *    it is not looked at;
 *  - a header: the first line is not numbers and the lines after it are,
 *    with no empty field (two commas, or one that begins or ends a line:
 *    --text refuses it as a number, -F and --by read it as words), so
 *    `a,1` over `,2` is not offered to --header (under --header, which
 *    implies --text, no operand is judged);
 *  - words: lines of text, but not numbers.
 * Printable bytes with no field, or a short operand whose fields are not
 * numbers and make no line ended by a newline, are binary: a few binary
 * values (a file of one f32) are printable by chance often enough.
 */
#ifndef TEXTDETECT_H
#define TEXTDETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "input.h"

/* Bytes looked at: a few hundred numbers, far more than binary data ever
 * keeps to text's bytes by chance (f32 values would all lie near 1e-8 or
 * 1e19). No more than the header buffer (FMT_HEADER_MAX) input.c peeks
 * into. A header line longer than this is words (the message names
 * --header). */
#define TEXT_PREFIX 4096

enum text_kind {
	TEXT_MORE,	/* a later byte could change the answer: read on */
	TEXT_BINARY,
	TEXT_NUMBERS,
	TEXT_HEADER,
	TEXT_WORDS,
};

struct text_verdict {
	enum text_kind kind;
	size_t bom;		/* bytes of a UTF-8 BOM at the start: 3 or 0 */
	char msg[256];		/* TEXT_HEADER, TEXT_WORDS: what was found and
				 * what to do, for the error line */
};

/* The verdict on an operand whose first bytes are p[0..n); end: it ends
 * there. An operand of text (o->text: --text, or the stream's first
 * operand was text) is TEXT_MORE while p could still begin a BOM, then
 * TEXT_NUMBERS with bom set. Any other with bytes is judged by its bytes
 * as above; an empty one is TEXT_BINARY. */
void textdetect(const uint8_t *p, size_t n, bool end,
		const struct input_opts *o, struct text_verdict *v);

#endif
