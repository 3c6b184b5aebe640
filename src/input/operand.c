/*
 * operand.c - the steps of an operand's states after detection (see
 * input_impl.h): a format's header parsed and its type checked against the
 * stream's, its payload read and checked (maxval, bools), what may follow
 * it (nothing for npy: TRAIL; another image for pnm: NEXT_IMAGE), plain pnm
 * text made into samples (PLAIN), a Fortran-order npy read column by
 * column (COLUMNS), and text's first line (HEADLINE). input.c runs the
 * state machine that calls them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "headline.h"
#include "input_impl.h"

static const char *dtype_str(struct gs_dtype dt, char *buf, size_t size)
{
	bool one_byte = dt.type == GS_U8 || dt.type == GS_I8;

	snprintf(buf, size, "%s%s", dt.big_endian && !one_byte ? "big-endian " : "",
		 type_name(dt.type));
	return buf;
}

static bool dtype_equal(struct gs_dtype a, struct gs_dtype b)
{
	bool one_byte = a.type == GS_U8 || a.type == GS_I8;

	return a.type == b.type && (one_byte || a.big_endian == b.big_endian);
}

/* The first header fixes the stream's type unless input_set_dtype did. */
static int operand_check_type(struct input *in, struct gs_err *err)
{
	const struct fmt_header *h = &in->hdr;
	char a[32], b[32];

	if (!in->typed) {
		in->typed = true;
		in->dtype = h->dtype;
		in->columns = h->columns;
		in->rec = h->rec;
		return 0;
	}
	if ((h->rec.n || in->rec.n) &&
	    (!h->rec.n || !in->rec.n || !record_same(&h->rec, &in->rec))) {
		char ra[96], rb[96];

		return gs_fail(err, GS_ERUNTIME, in->name,
			       "records %s do not match the stream's %s",
			       h->rec.n ? record_name(&h->rec, ra, sizeof(ra))
					: dtype_str(h->dtype, ra, sizeof(ra)),
			       in->rec.n ? record_name(&in->rec, rb, sizeof(rb))
					 : dtype_str(in->dtype, rb, sizeof(rb)));
	}
	if (!dtype_equal(h->dtype, in->dtype))
		return gs_fail(err, GS_ERUNTIME, in->name,
			       "type %s does not match the stream's %s",
			       dtype_str(h->dtype, a, sizeof(a)),
			       dtype_str(in->dtype, b, sizeof(b)));
	/* records of mixed types were matched whole above (one column of
	 * them is read as bytes of records: in->columns is their size) */
	if (!in->rec.n && h->columns && in->columns &&
	    h->columns != in->columns)
		return gs_fail(err, GS_ERUNTIME, in->name,
			       "%u column%s not match the stream's %u",
			       h->columns, h->columns == 1 ? " does" : "s do",
			       in->columns);
	return 0;
}

/* "npy", or "pgm image 3" for the later images of a pnm file. */
static const char *operand_what(const struct input *in, char *buf, size_t size)
{
	if (in->image > 1)
		snprintf(buf, size, "%s image %u", in->fmt->name, in->image);
	else
		snprintf(buf, size, "%s", in->fmt->name);
	return buf;
}

static int operand_short(struct input *in, uint64_t has, struct gs_err *err)
{
	char what[48];

	return gs_fail(err, GS_ERUNTIME, in->name,
		       "%s header says %llu data bytes, file has %llu",
		       operand_what(in, what, sizeof(what)),
		       (unsigned long long)in->hdr.payload,
		       (unsigned long long)has);
}

/* What the payload bytes must hold: samples no larger than the header's
 * maxval (netpbm and numpy users count on it), bools as 0 or 1 (a nonzero
 * byte is True to numpy, and True counts 1 in its sums). Raw data has no
 * header: its bools are those of the type the job gave. */
static int operand_check_payload(struct input *in, uint8_t *p, size_t n,
				 struct gs_err *err)
{
	const struct fmt_header *h = &in->hdr;
	bool headed = in->fmt->parse != NULL;
	uint64_t pos = h->payload - in->left, bad;
	unsigned v;
	size_t i;

	if (in->textin)		/* text, not yet values */
		return 0;
	if (headed ? h->boolean : in->dtype.boolean)
		for (i = 0; i < n; i++)
			p[i] = p[i] != 0;
	if (!headed || h->maxval == 0 || h->maxval == 255 || h->maxval == 65535)
		return 0;
	bad = pnm_over_maxval(h, pos, &in->hi, p, n, &v);
	if (bad == UINT64_MAX)
		return 0;
	return gs_fail(err, GS_ERUNTIME, in->name,
		       "%s sample %u at byte %llu is above maxval %u",
		       in->fmt->name, v,
		       (unsigned long long)(in->doff - pos + bad), h->maxval);
}

/* A Fortran-order npy is read by pread from the file (npycols.h). */
static int operand_columns_start(struct input *in, struct gs_err *err)
{
	const char *codec = zsrc_codec(in->z);
	struct stat sb;
	off_t at;
	uint64_t has;

	if (!in->is_reg || codec)
		return gs_fail(err, GS_ERUNTIME, in->name,
			       "fortran-order npy with %d axes can only be read from an uncompressed file, not from %s (save np.ascontiguousarray(a) instead)",
			       in->hdr.ndim, codec ? codec : "a pipe");
	if (fstat(in->fd, &sb) < 0)
		return gs_fail(err, GS_ERUNTIME, in->name, "%s", strerror(errno));
	at = in->base + (off_t)in->doff;
	has = sb.st_size > at ? (uint64_t)(sb.st_size - at) : 0;
	if (has != in->hdr.payload)
		return operand_short(in, has, err);
	in->cols = (struct npy_cols){ .fd = in->fd, .data_at = at,
				      .h = &in->hdr, .scratch = in->hbuf,
				      .name = in->name };
	in->hpos = in->hlen = 0;
	in->st = ST_COLUMNS;
	return 0;
}

ssize_t opnd_columns(struct input *in, uint8_t *buf, size_t n,
		     struct gs_err *err)
{
	ssize_t r;

	if (in->left == 0) {
		opnd_done(in);
		return 0;
	}
	if (n > in->left)
		n = (size_t)in->left;
	r = npy_cols_read(&in->cols, buf, n, in->hdr.payload - in->left, err);
	if (r < 0 || operand_check_payload(in, buf, (size_t)r, err) < 0)
		return OPERAND_FAIL;
	in->left -= (uint64_t)r;
	in->doff += (uint64_t)r;
	return r;
}

/* Plain pgm/ppm: the text of one image turned into binary samples. */
ssize_t opnd_plain(struct input *in, uint8_t *buf, size_t n, int stall_ms,
		   struct gs_err *err)
{
	size_t used, made;
	ssize_t r;
	int k;

	for (;;) {
		if (in->hpos == in->hlen && !in->deof) {
			r = opnd_peek(in, stall_ms, err);
			if (r < 0)
				return r;
		}
		k = pnm_text_run(&in->text, in->hbuf + in->hpos,
				 in->hlen - in->hpos, in->deof, buf, n, &used,
				 &made, &in->hdr);
		in->hpos += used;
		in->doff += used;
		if (k < 0)
			return gs_fail(err, GS_ERUNTIME, in->name, "plain %s: %s",
				       in->fmt->name, in->hdr.msg);
		if (k == 1)
			opnd_done(in);
		if (made || k == 1)
			return (ssize_t)made;
	}
}

/* A header parsed: the format it names, its type checked, and the state
 * that reads its payload. */
static int operand_headed(struct input *in, struct gs_err *err)
{
	bool more = false;

	/* its own magic names it: the images of a pnm file may be of both
	 * kinds (a P6 after a P5) */
	in->fmt = informat_find(in->hbuf + in->hpos, in->hlen - in->hpos, &more);
	in->image++;
	if (operand_check_type(in, err) < 0)
		return OPERAND_FAIL;
	in->hpos += in->hdr.len;
	in->doff += in->hdr.len;
	in->left = in->hdr.payload;
	in->extra = 0;
	in->st = ST_PAYLOAD;
	if (in->hdr.plain) {
		pnm_text_start(&in->text, &in->hdr, in->doff);
		in->st = ST_PLAIN;
	}
	if (in->hdr.fortran)
		return operand_columns_start(in, err);
	return 0;
}

int opnd_header(struct input *in, int stall_ms, struct gs_err *err)
{
	const uint8_t *p = in->hbuf + in->hpos;
	size_t k = in->hlen - in->hpos;
	const char *kind = in->fmt->name;
	unsigned long long at = in->doff;
	ssize_t r;

	memset(&in->hdr, 0, sizeof(in->hdr));
	r = in->fmt->parse(p, k, &in->hdr);
	if (r < 0)
		return gs_fail(err, GS_ERUNTIME, in->name,
			       "bad %s header at byte %llu: %s", kind,
			       at + in->hdr.errpos, in->hdr.msg);
	if (r == 0 && k == FMT_HEADER_MAX)
		return gs_fail(err, GS_ERUNTIME, in->name,
			       "%s header at byte %llu is longer than %d bytes",
			       kind, at, FMT_HEADER_MAX);
	if (r == 0 && in->deof)
		return gs_fail(err, GS_ERUNTIME, in->name,
			       "truncated %s header at byte %llu", kind, at + k);
	if (r == 0)
		return (r = opnd_peek(in, stall_ms, err)) < 0 ? (int)r : 0;
	return operand_headed(in, err);
}

/* Payload bytes: those of a header's size, or raw data to the end. */
ssize_t opnd_payload(struct input *in, void *buf, size_t n, int stall_ms,
		     struct gs_err *err)
{
	bool sized = in->fmt->parse != NULL;
	size_t k = in->hlen - in->hpos;
	ssize_t r;

	if (sized && in->left < n)
		n = (size_t)in->left;
	if (sized && n == 0) {
		in->st = in->fmt->gap ? ST_NEXT_IMAGE : ST_TRAIL;
		return 0;
	}
	if (k) {
		r = (ssize_t)(k < n ? k : n);
		memcpy(buf, in->hbuf + in->hpos, (size_t)r);
		in->hpos += (size_t)r;
	} else if (in->deof) {
		r = 0;
	} else if ((r = zsrc_read(in->z, buf, n, stall_ms, err)) == 0) {
		in->deof = true;
	}
	if (r < 0)
		return r;
	if (r == 0 && sized)
		return operand_short(in, in->hdr.payload - in->left, err);
	if (r == 0)
		opnd_done(in);
	if (operand_check_payload(in, buf, (size_t)r, err) < 0)
		return OPERAND_FAIL;
	in->doff += (uint64_t)r;
	if (sized)
		in->left -= (uint64_t)r;
	return r;
}

/* After a payload that nothing may follow (npy): count what is left,
 * which should be nothing. */
int opnd_trail(struct input *in, int stall_ms, struct gs_err *err)
{
	ssize_t r;

	in->extra += in->hlen - in->hpos;
	in->hpos = in->hlen;
	r = opnd_peek(in, stall_ms, err);
	if (r != 0)
		return r < 0 ? (int)r : 0;
	if (in->extra)
		return operand_short(in, in->hdr.payload + in->extra, err);
	opnd_done(in);
	return 0;
}

/* After an image (pnm): the end, the format's gap then the end, or the
 * header of the next image. */
int opnd_next_image(struct input *in, int stall_ms, struct gs_err *err)
{
	ssize_t r;

	while (in->hpos < in->hlen && in->fmt->gap(in->hbuf[in->hpos])) {
		in->hpos++;
		in->doff++;
	}
	if (in->hpos < in->hlen) {
		in->st = ST_HEADER;
		return 0;
	}
	r = opnd_peek(in, stall_ms, err);
	if (r == 0)
		opnd_done(in);
	return r < 0 ? (int)r : 0;
}

/* Text's first line, before its payload (headline.h): --header's names
 * taken off it, or the stream's first line counted. */
int opnd_headline(struct input *in, int stall_ms, struct gs_err *err)
{
	size_t used;
	int r = headline_take(in->head, in->name, in->hbuf + in->hpos,
			      in->hlen - in->hpos, in->deof, &used, err);

	in->hpos += used;
	in->doff += used;
	if (r > 0)
		in->st = ST_PAYLOAD;
	if (r != 0)
		return r < 0 ? OPERAND_FAIL : 0;
	r = (int)opnd_peek(in, stall_ms, err);
	return r < 0 ? r : 0;
}
