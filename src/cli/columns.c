/*
 * columns.c - the width of a run's records and -F's columns cut from them
 * (cli_columns in cli.h).
 *
 * -c N is the records' width wherever given; an npy header's columns
 * agree with it (settle_dtype). Text without -c takes its width from its
 * first line: --header's names, or with -F the fields of the first line
 * (each line one record, as with -c). The job then runs on -F's columns:
 * job.columns is their count and c->width keeps the records' width, for
 * the inputs opened after (dot's B, each operand of --per-file).
 */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "fields.h"
#include "headline.h"
#include "mixedopt.h"
#include "textin.h"

#define WIDTH_MAX (1u << 20)	/* -c's cap */

/* The width text gives, into *width; left as it is where it gives none
 * (no --header or -F, -c given, or an empty input). */
static int text_width(struct cli *c, const struct input_info *info,
		      const char *name, unsigned *width, struct gs_err *err)
{
	unsigned w = headline_width(info->head);

	if (c->columns_given && !c->header)
		return 0;
	/* no line: no records, of the width an input before set (the
	 * stream's, for --per-file and dot's B) or that -F reaches */
	if (w == 0 && c->fields && !c->columns_given &&
	    !headline_named(info->head) && !c->width)
		*width = fields_max(c->fields);
	if (w == 0)
		return 0;
	if (c->columns_given && w != *width)
		return gs_fail(err, GS_EUSAGE, name, "--columns %u contradicts "
			       "the header's %u name%s", *width, w,
			       w == 1 ? "" : "s");
	if (w > WIDTH_MAX)
		return gs_fail(err, GS_EUSAGE, name, "%s %u fields, more than "
			       "%u columns", c->header ? "the header line has"
			       : "the first line has", w, WIDTH_MAX);
	*width = w;
	return 0;
}

/* Whether cols[0..n) are all of a record of width, in order. */
static bool whole(const unsigned *cols, unsigned n, unsigned width)
{
	for (unsigned i = 0; i < n; i++)
		if (cols[i] != i)
			return false;
	return n == width;
}

/* --per-file: each operand's header is the stream's, as in the stream
 * (an empty operand has none). */
static int same_header(struct cli *c, const struct input_info *info,
		       const char *name, struct gs_err *err)
{
	const char *line = headline_line(info->head);

	if (!c->per_file || !headline_named(info->head))
		return 0;
	if (!c->header_line)
		return (c->header_line = strdup(line)) ? 0 :
			gs_fail(err, GS_ERUNTIME, "", "out of memory");
	if (strcmp(line, c->header_line) != 0)
		return headline_mismatch(line, c->header_line, name, err);
	return 0;
}

/* Text: the fields -F does not pick are not read, so they may be words
 * (a CSV's names or labels beside its numbers), as cut(1) would pass
 * them by. --by marks its own (cmd/group.c). */
static int skip_unpicked(struct input *in, const unsigned *cols, unsigned n,
			 unsigned width, struct gs_err *err)
{
	uint8_t *mask = malloc(width ? width : 1);
	int rc;

	if (!mask)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	memset(mask, TEXTIN_SKIP, width);
	for (unsigned i = 0; i < n; i++)
		mask[cols[i]] = TEXTIN_NUMBER;
	rc = input_text_keys(in, NULL, mask, width);
	free(mask);
	return rc < 0 ? gs_fail(err, GS_ERUNTIME, "", "out of memory") : 0;
}

int cli_columns(struct cli *c, struct input *in, struct input_info *info,
		const char *name, struct gs_err *err)
{
	size_t t = type_size(c->job.dtype.type);
	unsigned width = c->job.columns, *cols, n;
	int rc;

	if (same_header(c, info, name, err) < 0 ||
	    (info->text && text_width(c, info, name, &width, err) < 0))
		goto fail;
	if (c->per_file && c->width && width != c->width) {
		gs_fail(err, GS_ERUNTIME, name, "--per-file: read alone, its "
			"records are %u values, not the stream's %u", width,
			c->width);
		goto fail;
	}
	c->job.columns = width;
	input_set_dtype(in, c->job.dtype, width);
	input_set_record(in, c->job.rec);
	/* --per-file's operand of a --by over text: its lines keyed as the
	 * stream's, into the run's one dictionary */
	if (info->text && c->key_mask && input_text_keys(in, c->text_keys,
					c->key_mask, c->key_width) < 0) {
		gs_fail(err, GS_ERUNTIME, "", "out of memory");
		goto fail;
	}
	if (!c->fields) {
		if (c->job.rec)
			cli_one_type(c);
		return 0;
	}
	if (c->job.rec)
		return cli_cut_record(c, in, info, name, err) < 0 ? -1 : 0;
	/* --per-file: an operand with no header line (an empty one) has no
	 * names, and no records to cut: it reads as the stream's first did */
	if (c->width && c->header && !headline_named(info->head)) {
		c->job.columns = c->cut;
		return 0;
	}
	if (fields_resolve(c->fields, width, info->head, name, &cols, &n,
			   err) < 0)
		goto fail;
	rc = whole(cols, n, width) ? 0 : input_project(in, cols, n, width, err);
	if (rc == 0 && info->text && !c->by && !c->key_mask)
		rc = skip_unpicked(in, cols, n, width, err);
	free(cols);
	c->width = width;
	c->cut = c->job.columns = n;
	/* what the job reads of it */
	if (info->total_bytes >= 0)
		info->total_bytes = info->total_bytes / (int64_t)(width * t) *
				    (int64_t)(n * t);
	return rc;
fail:
	/* an operand that failed is the line to read */
	if (c->operand_failed)
		*err = (struct gs_err){ .code = GS_ERUNTIME };
	return -1;
}
