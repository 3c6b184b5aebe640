/*
 * group.c - --by COLS (group.h): the option, what it cannot be combined
 * with yet, and the key and value columns of the job.
 *
 * With -F the records are cut to the key columns followed by -F's (the
 * -F list is made "COLS,LIST" before the input is opened), so the keys
 * are the first columns of the cut records and the values the rest.
 * Without -F nothing is cut: the keys are COLS and the values every other
 * column, in order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "engine.h"
#include "fields.h"
#include "group.h"
#include "input.h"
#include "state.h"
#include "textin.h"
#include "textkeys.h"

const struct opt_spec group_opts[] = {
	GROUP_OPT,
	{ .name = NULL },
};

static struct gs_group spec;
static struct textkeys *text_keys;	/* text input: the keys' strings */
static uint8_t *text_mask;	/* and what each field of a line is */
static char *cut_list;		/* -F's list with the keys first */

/* fields.c's error about COLS as --by's: "--by: WHAT". */
static int as_by(struct gs_err *err)
{
	char what[sizeof(err->what)];
	const char *w = err->what;

	if (strncmp(w, "--fields: ", 10) == 0)
		w += 10;
	snprintf(what, sizeof(what), "%s", w);
	return gs_fail(err, err->code, "--by", "%s", what);
}

int group_option(struct cli *c, const char *arg, struct gs_err *err)
{
	struct fields *f;

	if (fields_parse(arg, &f, err) < 0)
		return as_by(err);
	fields_free(f);
	c->by = arg;
	return 0;
}

int group_check(struct cli *c, struct gs_err *err)
{
	size_t n;
	char *list;

	if (!c->by)
		return 0;
	if (!c->fields)
		return 0;
	n = strlen(c->by) + strlen(c->fields_arg) + 2;
	if (!(list = malloc(n)))
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	snprintf(list, n, "%s,%s", c->by, c->fields_arg);
	fields_free(c->fields);
	c->fields = NULL;
	free(cut_list);
	cut_list = list;	/* kept, as argv's -F list is */
	return fields_parse(list, &c->fields, err);
}

/* The value columns of records of width columns whose keys are key[0..nk):
 * the others, in order (*nv of them, into a new array). */
static unsigned *others(const unsigned *key, unsigned nk, unsigned width,
			unsigned *nv)
{
	unsigned *val = malloc((width ? width : 1) * sizeof(*val));

	*nv = 0;
	for (unsigned k = 0; val && k < width; k++) {
		bool is_key = false;

		for (unsigned i = 0; i < nk; i++)
			is_key = is_key || key[i] == k;
		if (!is_key)
			val[(*nv)++] = k;
	}
	return val;
}

/* Text input: the key columns key[0..nk) of lines of width fields are
 * strings, read as ids of text_keys (textkeys.h), and the fields -F does
 * not pick are not read (they may be strings too). Their results are rows
 * of strings, or a state of them: not binary or npy yet. --per-file's
 * operands are read with the same mask into the same dictionary (c's). */
static int text_plan(struct cli *c, const unsigned *key, unsigned nk,
		     unsigned width, struct gs_err *err)
{
	unsigned *cols = NULL, n = 0;
	uint8_t *mask;

	if (c->format == FMT_BINARY || c->format == FMT_NPY)
		return gs_fail(err, GS_EUSAGE, "--by", "text keys are strings: "
			       "%s of them is not done yet",
			       c->format == FMT_NPY ? "-f npy" : "-f binary");
	if (c->fields && fields_resolve(c->fields, width, c->info.head, "",
					&cols, &n, err) < 0)
		return -1;
	if (!(mask = malloc(width ? width : 1))) {
		free(cols);
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	}
	memset(mask, c->fields ? TEXTIN_SKIP : TEXTIN_NUMBER, width);
	for (unsigned i = 0; i < n; i++)
		mask[cols[i]] = TEXTIN_NUMBER;
	for (unsigned k = 0; k < nk; k++)
		mask[key[k]] = TEXTIN_KEY;
	for (unsigned i = nk; i < n; i++)	/* -F's own, after the keys */
		if (mask[cols[i]] == TEXTIN_KEY) {
			free(cols);
			free(mask);
			return gs_fail(err, GS_EUSAGE, "--by", "a text key is a "
				       "string: -F cannot make it a value too");
		}
	free(cols);
	textkeys_free(text_keys);
	text_keys = textkeys_new();
	int rc = text_keys ? input_text_keys(c->in, text_keys, mask, width) : -1;

	free(text_mask);
	c->key_mask = text_mask = mask;
	c->key_width = width;
	c->text_keys = text_keys;
	if (rc < 0)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	return 0;
}

const struct textkeys *group_text_keys(void)
{
	return text_keys;
}

/* group_sort_text's rows: qsort has no context of its own. Each row's
 * ids are read once, in idx's order, into ids (row-major, nk a row): a
 * spilled table's keys are read through a window of its file, and a
 * comparison that read them there read the file at random (a million
 * text keys spilled took minutes). */
static struct {
	const struct textkeys *tk;
	unsigned nk;
	const uint64_t *ids;
} by_bytes;

static int bytes_cmp(const void *a, const void *b)
{
	const uint64_t *ia = by_bytes.ids + *(const size_t *)a * by_bytes.nk;
	const uint64_t *ib = by_bytes.ids + *(const size_t *)b * by_bytes.nk;

	for (unsigned k = 0; k < by_bytes.nk; k++) {
		size_t na, nb;
		const char *sa = textkeys_str(by_bytes.tk, ia[k], &na);
		const char *sb = textkeys_str(by_bytes.tk, ib[k], &nb);
		int r = memcmp(sa, sb, na < nb ? na : nb);

		if (r || na != nb)
			return r ? r : na < nb ? -1 : 1;
	}
	return 0;
}

int group_sort_text(const struct textkeys *tk, size_t *idx, size_t n,
		    unsigned nk,
		    uint64_t (*id)(const void *ctx, size_t row, unsigned k),
		    const void *ctx)
{
	uint64_t *ids = n ? malloc(n * nk * sizeof(*ids)) : NULL;
	size_t *pos = n ? malloc(n * sizeof(*pos)) : NULL;

	if (n && (!ids || !pos || nk == 0)) {
		free(ids);
		free(pos);
		return -1;
	}
	for (size_t r = 0; r < n; r++) {
		pos[r] = r;
		for (unsigned k = 0; k < nk; k++)
			ids[r * nk + k] = id(ctx, idx[r], k);
	}
	by_bytes.tk = tk;
	by_bytes.nk = nk;
	by_bytes.ids = ids;
	if (n)	/* pos may be NULL without rows */
		qsort(pos, n, sizeof(*pos), bytes_cmp);
	/* idx in pos's order, through ids' room (nk >= 1 words a row) */
	for (size_t r = 0; r < n; r++)
		((size_t *)ids)[r] = idx[pos[r]];
	if (n)
		memcpy(idx, ids, n * sizeof(*idx));
	free(ids);
	free(pos);
	return 0;
}

const struct pass group_passes[] = {
	{ .op = CMD_GROUP, .done = group_done },
	{ .done = NULL },
};

bool group_by_option(const struct command *cmd)
{
	for (const struct opt_spec *o = cmd->opts; o && o->name; o++)
		if (o->id == OPT_BY)
			return true;
	return false;
}

/* The job's key and value columns and the grouping (c->by set). */
static int plan_columns(struct cli *c, enum gs_group_what what,
			struct gs_err *err);

/* plan_columns, but an operand that failed said why first: the columns
 * --by names were not read, so what --by says of them would mislead */
static int plan_quiet(struct cli *c, enum gs_group_what what,
		      struct gs_err *err)
{
	int rc = plan_columns(c, what, err);

	if (rc < 0 && c->operand_failed)
		*err = (struct gs_err){ .code = GS_ERUNTIME };
	return rc;
}

int group_plan(struct cli *c, enum gs_group_what what,
	       const struct pass **passes, struct gs_err *err)
{
	if (!c->by)
		return 0;
	if (plan_quiet(c, what, err) < 0)
		return -1;
	*passes = group_passes;
	return 0;
}

int group_plan_with(struct cli *c, const struct pass *own, bool ranks,
		    const struct pass **passes, struct gs_err *err)
{
	if (plan_quiet(c, GROUP_COUNT, err) < 0)
		return -1;
	spec.ranks = ranks;
	*passes = own;
	return 0;
}

static int plan_columns(struct cli *c, enum gs_group_what what,
			struct gs_err *err)
{
	unsigned width = c->fields ? c->width : c->job.columns;
	unsigned *key = NULL, *val, nk, nv;
	struct fields *f;

	if (fields_parse(c->by, &f, err) < 0)
		return as_by(err);
	int rc = fields_resolve(f, width, c->info.head, "", &key, &nk, err);

	fields_free(f);
	if (rc < 0)
		return as_by(err);
	if (nk > GS_RECORD_MAX)		/* what a state holds (group_state.c) */
		return gs_fail(err, GS_EUSAGE, "--by", "%u key columns, more "
			       "than %d", nk, GS_RECORD_MAX);
	if (c->info.text && text_plan(c, key, nk, width, err) < 0)
		return -1;
	if (c->fields) {	/* the cut records: keys, then -F's columns */
		for (unsigned k = 0; k < nk; k++)
			key[k] = k;
		nv = c->job.columns - nk;
		val = malloc((nv ? nv : 1) * sizeof(*val));
		for (unsigned j = 0; val && j < nv; j++)
			val[j] = nk + j;
	} else {
		val = others(key, nk, c->job.columns, &nv);
	}
	if (!val)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	if (nv == 0)
		return gs_fail(err, GS_EUSAGE, "--by", "every column is a "
			       "key: no values left (-F picks them)");
	spec = (struct gs_group){ .nkeys = nk, .nvals = nv, .key = key,
				  .val = val, .what = what, .limit = group_limit(),
				  .text = c->info.text ? text_keys : NULL };
	c->job.group = &spec;
	return 0;
}
