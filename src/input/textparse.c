/*
 * textparse.c - one piece of decimal text parsed into records, on a pool
 * thread (textin.c cuts the pieces and hands their values out in order):
 * fields split at commas and white space, quoted fields (textquote.h),
 * numbers (textnum.h), --by's string keys (textkeys.h), -F's fields not
 * read; the first error is noted with its line and field relative to the
 * piece, which the hand-out makes absolute.
 */
#include <stdio.h>
#include <string.h>
#include "textin_impl.h"
#include "textquote.h"

void piece_error(struct piece *pc, int kind, uint64_t line, uint64_t field,
		 const char *tok, size_t n)
{
	size_t i;

	pc->err = kind;
	pc->eline = line;
	pc->efield = field;
	n = n < sizeof(pc->etok) - 4 ? n : sizeof(pc->etok) - 4;
	for (i = 0; i < n; i++)
		pc->etok[i] = tok[i] >= ' ' && tok[i] < 127 ? tok[i] : '?';
	strcpy(pc->etok + n, n == sizeof(pc->etok) - 4 ? "..." : "");
}

/* A line of f fields ended: with -c N, is it one record? The first line
 * of a piece that begins inside it is checked at hand-out. */
static bool line_ok(const struct textin *t, const struct piece *pc,
		    uint64_t line, uint64_t f)
{
	return !t->lines || f == 0 || f == t->columns ||
	       (line == 0 && !pc->line_start);
}

/* id, which fits, as a value of type ty (not f16, bf16) into out. */
static void store_id(enum gs_type ty, uint64_t id, uint8_t *out)
{
	uint16_t u16 = (uint16_t)id;
	uint32_t u32 = (uint32_t)id;
	float f = (float)id;
	double d = (double)id;

	switch (ty) {
	case GS_U8: case GS_I8: *out = (uint8_t)id; break;
	case GS_U16: case GS_I16: memcpy(out, &u16, 2); break;
	case GS_U32: case GS_I32: memcpy(out, &u32, 4); break;
	case GS_F32: memcpy(out, &f, 4); break;
	case GS_F64: memcpy(out, &d, 8); break;
	default: memcpy(out, &id, 8); break;
	}
}

/* A key field s[0..n): its id as a value of the type into out;
 * TEXTNUM_OK, or ERR_KEYS or ERR_NOMEM. */
static int key_store(const struct textin *t, struct piece *pc,
		     const char *s, size_t n, uint8_t *out)
{
	int64_t id = textkeys_intern(t->keys, s, n);
	char dec[24];
	int k;

	if (id < 0)
		return ERR_NOMEM;
	if ((uint64_t)id > t->key_max)
		return ERR_KEYS;
	if (t->dtype.type == GS_F16 || t->dtype.type == GS_BF16) {
		/* f16, bf16: as the text of the number */
		k = snprintf(dec, sizeof(dec), "%lld", (long long)id);
		return t->parse(dec, (size_t)k, out) == TEXTNUM_OK ?
		       TEXTNUM_OK : ERR_KEYS;
	}
	store_id(t->dtype.type, (uint64_t)id, out);
	return TEXTNUM_OK;
}

/* A field at *pp into out as keycol says; TEXTNUM_OK or ERR_*. A quoted
 * one (textquote.h) is its value, made in place in the piece's text. */
static int field_parse(const struct textin *t, struct piece *pc, uint64_t f,
		       char **pp, const char *end, const char **s, size_t *n,
		       uint8_t *o)
{
	char *p = *pp;
	int q = TQ_OK, r;

	if (*p == '"') {
		q = textquote_field(pp, end, s, n);
	} else {
		for (*s = p; p < end && !is_sep(*p); p++)
			;
		*n = (size_t)(p - *s);
		*pp = p;
	}
	if (q != TQ_OK) {	/* the field as it was, for the message */
		*s = p;
		*n = (size_t)(*pp - p) + (q == TQ_AFTER);
		return q == TQ_OPEN ? ERR_QOPEN : ERR_QAFTER;
	}
	if (f >= t->nkeycol || t->keycol[f] == TEXTIN_NUMBER) {
		if (*n == 0)	/* "" */
			return ERR_EMPTY;
		r = t->parse(*s, *n, o);
		return r == TEXTNUM_OK ? r : r == TEXTNUM_RANGE ? ERR_RANGE :
		       ERR_INVALID;
	}
	if (t->keycol[f] == TEXTIN_KEY)
		return key_store(t, pc, *s, *n, o);
	memset(o, 0, t->tsize);		/* not read: any bytes, a zero */
	return TEXTNUM_OK;
}

/* An empty field (two separators, or one at a line's end or start): a
 * number's error, but an empty key of --by, or nothing in a field -F does
 * not read (a CSV's empty cells beside its numbers). With keycol, pieces
 * begin at lines, so f is the field's place in its line. */
static int empty_field(const struct textin *t, struct piece *pc, uint64_t f,
		       uint8_t *o)
{
	if (f >= t->nkeycol || t->keycol[f] == TEXTIN_NUMBER)
		return ERR_EMPTY;
	if (t->keycol[f] == TEXTIN_KEY)
		return key_store(t, pc, "", 0, o);
	memset(o, 0, t->tsize);
	return TEXTNUM_OK;
}

void piece_parse(const struct textin *t, struct piece *pc)
{
	char *p = pc->txt;
	const char *end = p + pc->cut, *s;
	size_t n;
	uint8_t *o = pc->out;
	uint64_t line = 0, f = 0;
	bool prev = !pc->line_start, comma = pc->comma_start;
	int r;

	for (; p < end && !pc->err; ) {
		if (*p == '\n') {
			if (comma && (r = empty_field(t, pc, f, o)) != TEXTNUM_OK)
				piece_error(pc, r, line, f + 1, "", 0);
			else if (comma)
				o += t->tsize, f++;
			if (!pc->err && !line_ok(t, pc, line, f))
				piece_error(pc, ERR_COUNT, line, 0, "", 0);
			pc->ecount = f;
			if (line++ == 0)
				pc->head = f;
			f = 0;
			prev = comma = false;
			p++;
		} else if (is_space(*p)) {
			p++;
		} else if (*p == ',') {
			if ((!prev || comma) &&
			    (r = empty_field(t, pc, f, o)) != TEXTNUM_OK)
				piece_error(pc, r, line, f + 1, "", 0);
			else if (!prev || comma)
				o += t->tsize, f++;
			prev = comma = true;
			p++;
		} else {
			r = field_parse(t, pc, f, &p, end, &s, &n, o);
			if (r != TEXTNUM_OK)
				piece_error(pc, r, line, f + 1, s, n);
			else
				o += t->tsize;
			f++;
			prev = true;
			comma = false;
		}
	}
	if (!pc->err && pc->last && comma &&
	    (r = empty_field(t, pc, f, o)) != TEXTNUM_OK)
		piece_error(pc, r, line, f + 1, "", 0);
	else if (!pc->err && pc->last && comma)
		o += t->tsize, f++;
	if (!pc->err && pc->last && !line_ok(t, pc, line, f))
		piece_error(pc, ERR_COUNT, line, 0, "", 0), pc->ecount = f;
	pc->nl = line;
	pc->tail = f;
	if (line == 0)
		pc->head = f;
	pc->nval = (size_t)(o - pc->out) / t->tsize;
}

/* The values in the data's byte order. */
void piece_swap(const struct textin *t, struct piece *pc)
{
	size_t i, j, k = t->tsize;
	uint8_t *v, x;

	for (i = 0; i < pc->nval; i++)
		for (v = pc->out + i * k, j = 0; j < k / 2; j++) {
			x = v[j];
			v[j] = v[k - 1 - j];
			v[k - 1 - j] = x;
		}
}
