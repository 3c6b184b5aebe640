/*
 * textquote.h - RFC 4180 quoting in text input (textin.c, headline.c,
 * textdetect.c): a field that begins with a double quote runs to the
 * quote that closes it, "" within it standing for one quote, and may
 * hold separators (commas, white space) but no newline; its value is the
 * bytes between the quotes, "" made one. A field that does not begin with
 * a quote is read as it always was: quotes within it are its bytes.
 *
 * Only a field's first byte is looked at for a quote, so unquoted text
 * costs the parsers one comparison per field.
 */
#ifndef TEXTQUOTE_H
#define TEXTQUOTE_H

#include <stddef.h>

enum { TQ_OK, TQ_OPEN, TQ_AFTER };

/* The quoted field at *pp (its opening quote), within [*pp, end): its
 * value into s[0..*n), made in place (a "" becomes one quote, the bytes
 * after it move back), and *pp past its closing quote. TQ_OK; TQ_OPEN
 * where no quote closes it before a newline or end; TQ_AFTER where a byte
 * other than a separator follows the closing quote (*pp at it). */
int textquote_field(char **pp, const char *end, const char **s, size_t *n);

/* The closing quote of the field whose opening quote is p[i], within
 * p[0..n): its index, or the index of the byte before the newline or end
 * that comes first (an unclosed quote: the parser's error). */
size_t textquote_close(const char *p, size_t i, size_t n);

/* Where a line's text p[from..n), beginning outside quotes, may be cut:
 * the last separator after a field, outside quotes; 0 for none. */
size_t textquote_cut(const char *p, size_t from, size_t n);

#endif
