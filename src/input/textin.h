/*
 * textin.h - --text: the operands' decimal text turned into the binary
 * records every command reads, so both backends see the same values.
 *
 * Fields are separated by white space (spaces, tabs, CR: CRLF lines work)
 * and/or one comma; empty lines are skipped; an empty field (",," or a
 * comma at either end of a line) is an error. A field that begins with a
 * double quote is quoted as CSV's (textquote.h): its value is the bytes
 * between the quotes, separators included; no newline. Each field is one element,
 * parsed by textnum.h to the nearest value of the type. With lines set
 * (-c N given), every non-empty line must hold exactly columns fields: one
 * record per line. Without it every field is an element, wherever the
 * lines break.
 *
 * Each operand ends its last line, newline or not: several operands read
 * as `cat` of them would if each ended in a newline, and errors name the
 * operand and the line and field within it. The first error ends the
 * stream; the values before it are handed on.
 *
 * The text is cut into pieces at field or line boundaries; a batch of
 * pieces is parsed on several threads and the records come out in order.
 * Memory is the pieces' buffers, whatever the stream's length. A pipe
 * that stalls with a whole field in hand has it handed on.
 */
#ifndef TEXTIN_H
#define TEXTIN_H

#include <sys/types.h>
#include "gs.h"

struct input;
struct textin;

/* The text layer over in (whose operands it reads), parsing on threads
 * threads (0: one); lines: one record per line. NULL when out of memory. */
struct textin *textin_new(struct input *in, int threads, bool lines);

/* The records' type (its byte order too) and columns. */
void textin_set_type(struct textin *t, struct gs_dtype dtype, unsigned columns);

/* As input_read (input.h): record bytes, 0 at the end, INPUT_STALL, or -1
 * with err filled (a bad field, or an error that stops the input). */
ssize_t textin_read(struct textin *t, void *buf, size_t n, int stall_ms,
		    struct gs_err *err);

/* The columns are the names of --header's line (header: each operand's
 * records begin on line 2, as errors count lines), or the fields of the
 * stream's first line (headline.h); else they are -c's. */
void textin_headline(struct textin *t, bool header);

/* --by's string keys (textkeys.h): keycol[0..n) says what each field of
 * a line is (from 0; past n a number): a number, a key, whose bytes are
 * interned into keys and stored as its id, a value of the type, or a
 * field not read (any bytes: -F did not pick it), stored as 0. A line may
 * then be no longer than a piece. 0, or -1 when out of memory. */
enum { TEXTIN_NUMBER, TEXTIN_KEY, TEXTIN_SKIP };
struct textkeys;
int textin_set_keys(struct textin *t, struct textkeys *keys,
		    const uint8_t *keycol, unsigned n);

/* Back to the start of the first operand (after input_rewind). */
void textin_reset(struct textin *t);

void textin_free(struct textin *t);

#endif
