/*
 * mixedopt.c - records of mixed types on the command line: a -t list and
 * a structured .npy header against the options (mixedopt.h).
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "fields.h"
#include "mixedopt.h"

/* -t T1,T2,...: records of mixed types (gs.h); cli_parse settles the
 * columns and byte orders once every option is in. */
int cli_type_list(struct cli *c, const char *arg, struct gs_err *err)
{
	size_t at, len;
	char name[64];

	if (record_parse(arg, &c->record, &at, &len) < 0) {
		if (c->record.n == GS_RECORD_MAX)
			return gs_fail(err, GS_EUSAGE, "", "-t: more than %d "
				       "types in the list", GS_RECORD_MAX);
		if (len == 0 || len >= sizeof(name))
			return gs_fail(err, GS_EUSAGE, "", "-t '%.60s': expected "
				       "a list of types between commas "
				       "(i32,f32)", arg);
		snprintf(name, sizeof(name), "%.*s", (int)len, arg + at);
		return cli_unknown_type(err, "", name);
	}
	c->type_set = true;
	c->type_endian = false;
	return 0;
}

/* A -t list: --endian for the columns whose spelling named no byte
 * order (one that did must agree), its length as the columns. */
int cli_record_options(struct cli *c, struct gs_err *err)
{
	struct gs_record *r = &c->record;

	for (unsigned k = 0; k < r->n; k++) {
		bool wide = type_size(r->type[k].type) > 1;

		if (c->endian_set && r->endian[k] &&
		    r->type[k].big_endian != c->big_endian)
			return gs_fail(err, GS_EUSAGE, "", "-t: column %u's type "
				       "contradicts --endian %s", k + 1,
				       c->big_endian ? "big" : "little");
		if (c->endian_set && !r->endian[k])
			r->type[k].big_endian = c->big_endian && wide;
	}
	if (c->columns_given && c->job.columns != r->n)
		return gs_fail(err, GS_EUSAGE, "", "--columns %u contradicts "
			       "-t's list of %u types", c->job.columns, r->n);
	c->job.columns = r->n;
	c->columns_set = true;
	c->job.dtype = (struct gs_dtype){ .type = GS_U8 };
	c->job.rec = r;
	return 0;
}

/* Whether -t's type a agrees with a header's b (cli.c's rule): the byte
 * order counts only where -t named one, and numpy's bool is not u8. */
static bool same_dtype(struct gs_dtype a, struct gs_dtype b, bool order)
{
	return a.type == b.type && a.boolean == b.boolean &&
	       (type_size(a.type) == 1 || !order || a.big_endian == b.big_endian);
}

/* Whether -t's list agrees with a structured header's fields: the types,
 * and the byte orders that -t named. */
static bool same_record(const struct gs_record *t, const struct gs_record *h)
{
	if (t->n != h->n)
		return false;
	for (unsigned k = 0; k < t->n; k++)
		if (!same_dtype(t->type[k], h->type[k], t->endian[k]))
			return false;
	return true;
}

/* A header of records of mixed types (a structured .npy) against the
 * options: the run reads its records, offsets and padding included. */
int cli_settle_record(struct cli *c, const struct input_info *info,
			 const char *name, struct gs_err *err)
{
	char a[200], b[200];

	record_name(info->rec, b, sizeof(b));
	if (c->type_from_name)
		return gs_fail(err, GS_EUSAGE, name, "the %s header (%s) "
			       "contradicts the name %.200s (%s)", info->format,
			       b, c->type_from_name,
			       type_name(c->job.dtype.type));
	if (c->type_set && !(c->job.rec && same_record(c->job.rec, info->rec)))
		return gs_fail(err, GS_EUSAGE, name, "-t %s contradicts the %s "
			       "header (%s)", c->job.rec ?
			       record_name(c->job.rec, a, sizeof(a)) :
			       type_name(c->job.dtype.type),
			       info->format, b);
	for (unsigned k = 0; c->endian_set && k < info->rec->n; k++)
		if (type_size(info->rec->type[k].type) > 1 &&
		    info->rec->type[k].big_endian != c->big_endian)
			return gs_fail(err, GS_EUSAGE, name, "--endian %s "
				       "contradicts the %s header (%s)",
				       c->big_endian ? "big" : "little",
				       info->format, b);
	if (c->columns_given && c->job.columns != info->rec->n)
		return gs_fail(err, GS_EUSAGE, name, "--columns %u contradicts "
			       "the %s header (%u fields)", c->job.columns,
			       info->format, info->rec->n);
	c->record = *info->rec;
	c->job.rec = &c->record;
	c->job.dtype = info->dtype;
	c->job.columns = info->rec->n;
	return 0;
}

/* Whether columns cols[0..n) of r are of one type (a bool of none: its
 * bytes are made 0/1 by cpu_mixed.c). */
static bool one_type(const struct gs_record *r, const unsigned *cols,
		     unsigned n)
{
	struct gs_dtype d = r->type[cols[0]];

	for (unsigned i = 0; i < n; i++)
		if (r->type[cols[i]].boolean || r->type[cols[i]].type != d.type ||
		    (type_size(d.type) > 1 &&
		     r->type[cols[i]].big_endian != d.big_endian))
			return false;
	return true;
}

/* Columns cols[0..n) of one type: the input cuts their bytes out of each
 * record (as -F cuts text), and the job is -t T -c n, which every command
 * and backend reads as it reads those columns extracted. */
static int one_type_columns(struct cli *c, struct input *in,
			    struct input_info *info, const unsigned *cols,
			    unsigned n, struct gs_err *err)
{
	const struct gs_record *r = &c->record;
	size_t sz = type_size(r->type[cols[0]].type);
	unsigned *bytes = malloc(n * sz * sizeof(*bytes));
	int rc;

	if (!bytes)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (unsigned i = 0; i < n; i++)
		for (size_t j = 0; j < sz; j++)
			bytes[i * sz + j] = (unsigned)(r->off[cols[i]] + j);
	input_set_dtype(in, (struct gs_dtype){ .type = GS_U8 },
			(unsigned)r->size);
	rc = input_project(in, bytes, (unsigned)(n * sz), (unsigned)r->size,
			   err);
	free(bytes);
	c->job.rec = NULL;
	c->job.dtype = r->type[cols[0]];
	c->job.columns = n;
	c->width = r->n;
	c->cut = n;
	if (info->total_bytes >= 0)
		info->total_bytes = info->total_bytes / (int64_t)r->size *
				    (int64_t)(n * sz);
	return rc;
}

int cli_one_type(struct cli *c)
{
	const struct gs_record *r = &c->record;
	size_t sz = type_size(r->type[0].type);
	unsigned k;

	for (k = 0; k < r->n; k++)
		if (r->off[k] != k * sz || !one_type(r, (unsigned[]){ 0, k }, 2))
			return 0;
	if (r->size != r->n * sz)
		return 0;
	c->job.rec = NULL;
	c->job.dtype = r->type[0];
	return 1;
}

/* -F's columns of the whole record c->record (mixedopt.h). */
int cli_cut_record(struct cli *c, struct input *in, struct input_info *info,
		   const char *name, struct gs_err *err)
{
	const struct gs_record *r = &c->record;
	struct gs_record *cut = &c->cut_record;
	unsigned *cols, n;

	if (fields_resolve(c->fields, r->n, info->head, name, &cols, &n,
			   err) < 0)
		return -1;
	if (one_type(r, cols, n)) {
		int rc = one_type_columns(c, in, info, cols, n, err);

		free(cols);
		return rc;
	}
	cut->n = n;
	cut->size = r->size;
	for (unsigned i = 0; i < n; i++) {
		cut->type[i] = r->type[cols[i]];
		cut->off[i] = r->off[cols[i]];
		cut->endian[i] = r->endian[cols[i]];
	}
	free(cols);
	c->job.rec = cut;
	c->width = r->n;
	c->cut = c->job.columns = n;
	return 0;
}
