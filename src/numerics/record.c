/*
 * record.c - records of mixed types (gs.h's struct gs_record): a -t list
 * such as "i32,f32" and its name.
 */
#include <stdio.h>
#include <string.h>
#include "gs.h"

int record_parse(const char *s, struct gs_record *r, size_t *bad,
		 size_t *badlen)
{
	char name[64];
	const char *p = s;

	memset(r, 0, sizeof(*r));
	for (;;) {
		size_t len = strcspn(p, ",");

		*bad = (size_t)(p - s);
		*badlen = len;
		if (len == 0 || len >= sizeof(name) || r->n == GS_RECORD_MAX)
			return -1;
		memcpy(name, p, len);
		name[len] = 0;
		if (type_parse(name, &r->type[r->n], &r->endian[r->n]) < 0)
			return -1;
		r->off[r->n] = r->size;
		r->size += type_size(r->type[r->n].type);
		r->n++;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

const char *record_name(const struct gs_record *r, char *buf, size_t n)
{
	size_t at = 0;

	buf[0] = 0;
	for (unsigned k = 0; k < r->n && at < n; k++) {
		struct gs_dtype d = r->type[k];
		int w = snprintf(buf + at, n - at, "%s%s%s", k ? "," : "",
				 d.big_endian && type_size(d.type) > 1 ? ">" : "",
				 d.boolean ? "bool" : type_name(d.type));

		if (w < 0)
			break;
		at += (size_t)w;
	}
	return buf;
}

bool record_same(const struct gs_record *a, const struct gs_record *b)
{
	if (a->n != b->n || a->size != b->size)
		return false;
	for (unsigned k = 0; k < a->n; k++)
		if (a->type[k].type != b->type[k].type ||
		    a->type[k].boolean != b->type[k].boolean ||
		    a->off[k] != b->off[k] ||
		    (type_size(a->type[k].type) > 1 &&
		     a->type[k].big_endian != b->type[k].big_endian))
			return false;
	return true;
}
