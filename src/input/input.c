/*
 * input.c - the operands as one stream of payload bytes (see input.h).
 *
 * Each operand walks through a small state machine:
 *
 *   OPEN -> MAGIC (zstd, gzip or neither) -> DETECT (informat.c's rows, text, raw)
 *        -> HEADER -> PAYLOAD -> TRAIL (no gap: bytes after it are an error)
 *                             -> NEXT_IMAGE (a gap, maybe another header)
 *                  -> PLAIN (pnm P2/P3: decimal text to samples, one image)
 *                  -> COLUMNS (Fortran-order npy: read column by column)
 *        -> OPEN (the next operand) ... -> END
 *
 * No state asks which format it reads: the format's record (informat.h)
 * says how its header is parsed and what may follow a payload, and the
 * header's fields (fmthdr.h) how the payload is laid out and what values
 * it may hold.
 *
 * This file holds the machine itself (operand_step), the states up to
 * detection (OPEN, MAGIC, DETECT), and the public calls: reads, views,
 * probe, rewind. The states after detection (HEADER, PAYLOAD, TRAIL,
 * NEXT_IMAGE, PLAIN, COLUMNS, HEADLINE) are steps in operand.c; struct
 * input and the calls the two files share are in input_impl.h.
 *
 * Decoded bytes peeked for a header wait in a fixed buffer (hbuf) until they
 * are used, so every state can give up with INPUT_STALL and resume on the
 * next call, and input_probe can stop just before the payload. Payload bytes
 * go straight from zsrc (read(2) or zstd) into the caller's buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "coldread.h"
#include "fields.h"
#include "headline.h"
#include "informat.h"
#include "input.h"
#include "input_impl.h"
#include "textdetect.h"
#include "textin.h"
#include "zahead.h"
#include "zsrc.h"

/* The operands when none is given. */
static char *const stdin_only[] = { "-" };

static const char *operand_path(const struct input *in, int i)
{
	return in->paths[i];
}

static const char *operand_name(const struct input *in, int i)
{
	const char *p = operand_path(in, i);

	return strcmp(p, "-") == 0 ? "stdin" : p;
}

static void operand_close(struct input *in)
{
	if (in->fd_open && in->fd != STDIN_FILENO)
		close(in->fd);
	in->fd_open = false;
}

void opnd_done(struct input *in)
{
	operand_close(in);
	in->st = ST_OPEN;
}

/* Report an operand error once, then go on with the next operand. With
 * stop_on_error the run ends there instead, and the error goes back to it
 * unreported (step_done): the chunks read before it may fail first (a
 * scan's overflow), and only the first error in stream order is told. */
static void operand_fail(struct input *in, const struct gs_err *e)
{
	if (!in->reported[in->idx] && in->opts.warn && !in->opts.stop_on_error)
		in->opts.warn(in->opts.warn_ctx, e);
	in->reported[in->idx] = true;
	in->failed = true;
	opnd_done(in);
}

static int operand_open(struct input *in, struct gs_err *err)
{
	const char *path;
	struct stat sb;
	int fd, e;

	if (++in->idx >= in->npaths) {
		in->st = ST_END;
		return 0;
	}
	path = operand_path(in, in->idx);
	in->name = operand_name(in, in->idx);
	zahead_from(in->ahead, in->idx);
	fd = strcmp(path, "-") == 0 ? STDIN_FILENO
				    : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		e = errno;
		if (fd > STDIN_FILENO)
			close(fd);
		return gs_fail(err, GS_ERUNTIME, in->name, "%s", strerror(e));
	}
	if (S_ISDIR(sb.st_mode)) {
		if (fd != STDIN_FILENO)
			close(fd);
		return gs_fail(err, GS_ERUNTIME, in->name, "is a directory");
	}
	if (S_ISREG(sb.st_mode))
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	in->fd = fd;
	in->is_reg = S_ISREG(sb.st_mode);
	zsrc_start(in->z, fd, in->is_reg, in->name);
	in->fd_open = true;
	in->hpos = in->hlen = 0;
	in->deof = false;
	in->doff = 0;
	in->fmt = &informat_raw;
	in->image = 0;
	in->pend_pos = in->pend_len = 0;
	in->base = fd == STDIN_FILENO ? in->stdin_start : 0;
	in->st = ST_MAGIC;
	return 0;
}

static int operand_magic(struct input *in, int stall_ms, struct gs_err *err)
{
	int r;

	if (in->opts.raw) {
		in->st = ST_PAYLOAD;
		if (in->textin && headline_due(in->head))
			headline_begin(in->head), in->st = ST_HEADLINE;
		return 0;
	}
	if ((r = zsrc_named(operand_path(in, in->idx))) == 0 &&
	    (r = zsrc_detect(in->z, stall_ms, err)) < 0)
		return r;
	if (r && !zahead_take(in->ahead, in->idx, in->z) &&
	    zsrc_use(in->z, r) < 0)
		return INPUT_FATAL;
	in->st = ST_DETECT;
	return 0;
}

/* Peek more decoded bytes into hbuf, moving the unused ones to its start.
 * Returns the count, 0 at the end of the operand, INPUT_STALL or
 * OPERAND_FAIL. */
ssize_t opnd_peek(struct input *in, int stall_ms, struct gs_err *err)
{
	ssize_t r;

	if (in->hpos) {
		memmove(in->hbuf, in->hbuf + in->hpos, in->hlen - in->hpos);
		in->hlen -= in->hpos;
		in->hpos = 0;
	}
	if (in->deof)
		return 0;
	r = zsrc_read(in->z, in->hbuf + in->hlen, FMT_HEADER_MAX - in->hlen,
		      stall_ms, err);
	if (r > 0)
		in->hlen += (size_t)r;
	else if (r == 0)
		in->deof = true;
	return r;
}

/* Text without --text, decided on the stream's first operand with bytes
 * (textdetect.h): read as --text reads it (then f64 unless -t says:
 * input_info.text), or refused. Each text operand's BOM is skipped. */
static int detect_text(struct input *in, int stall_ms, struct gs_err *err)
{
	size_t n = in->hlen - in->hpos;
	struct text_verdict v;
	ssize_t r;

	textdetect(in->hbuf + in->hpos, n, in->deof, &in->opts, &v);
	if (v.kind == TEXT_MORE)
		return (r = opnd_peek(in, stall_ms, err)) < 0 ? (int)r : 0;
	if (v.kind == TEXT_HEADER ||
	    (v.kind == TEXT_WORDS && !in->opts.words))
		return gs_fail(err, GS_ERUNTIME, in->name, "%s", v.msg);
	/* the stream is binary: its bytes would be summed as raw values */
	if (v.kind == TEXT_NUMBERS && in->seen && !in->opts.text)
		return gs_fail(err, GS_ERUNTIME, in->name,
			       "decimal text, not binary data like the operands before it (--raw reads every operand's bytes)");
	in->seen |= n > 0;
	in->st = ST_PAYLOAD;
	in->hpos += v.bom;
	in->doff += v.bom;
	if (v.kind != TEXT_BINARY && !in->textin) {
		in->text_found = in->opts.text = true;
		in->textin = textin_new(in, in->opts.threads, in->opts.text_lines);
		if (!in->textin)
			return INPUT_FATAL;
	}
	if (in->textin && headline_due(in->head))
		headline_begin(in->head), in->st = ST_HEADLINE;
	return 0;
}

/* The format, from the first decoded bytes: one of the table, decimal
 * text, or raw data when none matches. */
static int operand_detect(struct input *in, int stall_ms, struct gs_err *err)
{
	bool more = false;
	const struct in_format *f = informat_find(in->hbuf + in->hpos,
						  in->hlen - in->hpos, &more);
	ssize_t r;

	if (!f && more && !in->deof)
		return (r = opnd_peek(in, stall_ms, err)) < 0 ? (int)r : 0;
	if (f && f->parse && in->opts.text)
		return gs_fail(err, GS_ERUNTIME, in->name,
			       in->text_found ? "%s data, not text like the operands before it"
			       : in->opts.header ? "%s data, not text (--header reads text)"
					      : "%s data, not text (read it without --text)",
			       f->name);
	if (f && f->refuse)
		return gs_fail(err, GS_ERUNTIME, in->name,
			       "%s, which gpustat does not read (%s, or --raw to read the bytes as they are)",
			       f->name, f->refuse);
	if (!f)		/* raw data or text */
		return detect_text(in, stall_ms, err);
	in->fmt = f;
	in->seen = true;
	in->st = ST_HEADER;
	return 0;
}


static ssize_t operand_state(struct input *in, void *buf, size_t n,
			     int stall_ms, struct gs_err *err);

/* A read smaller than one sample of a converted payload (plain pnm,
 * Fortran npy): one sample is made into pend and handed out from there. */
static ssize_t operand_pend(struct input *in, void *buf, size_t n,
			    int stall_ms, struct gs_err *err)
{
	size_t k;
	ssize_t r;

	if (in->pend_pos == in->pend_len) {
		r = operand_state(in, in->pend, type_size(in->hdr.dtype.type),
				  stall_ms, err);
		if (r <= 0)
			return r;
		in->pend_pos = 0;
		in->pend_len = (size_t)r;
	}
	k = in->pend_len - in->pend_pos;
	k = k < n ? k : n;
	memcpy(buf, in->pend + in->pend_pos, k);
	in->pend_pos += k;
	return (ssize_t)k;
}

/* One step of the state machine: payload bytes (> 0), 0 when it only moved
 * on, INPUT_STALL, or OPERAND_FAIL/INPUT_FATAL with err filled. */
static ssize_t operand_step(struct input *in, void *buf, size_t n,
			    int stall_ms, struct gs_err *err)
{
	if (in->pend_pos < in->pend_len || ((in->st == ST_PLAIN ||
	    in->st == ST_COLUMNS) && n && n < type_size(in->hdr.dtype.type)))
		return operand_pend(in, buf, n, stall_ms, err);
	return operand_state(in, buf, n, stall_ms, err);
}

static ssize_t operand_state(struct input *in, void *buf, size_t n,
			     int stall_ms, struct gs_err *err)
{
	switch (in->st) {
	case ST_OPEN:
		return operand_open(in, err);
	case ST_MAGIC:
		return operand_magic(in, stall_ms, err);
	case ST_DETECT:
		return operand_detect(in, stall_ms, err);
	case ST_HEADER:
		return opnd_header(in, stall_ms, err);
	case ST_PAYLOAD:
		return opnd_payload(in, buf, n, stall_ms, err);
	case ST_TRAIL:
		return opnd_trail(in, stall_ms, err);
	case ST_NEXT_IMAGE:
		return opnd_next_image(in, stall_ms, err);
	case ST_PLAIN:
		return opnd_plain(in, buf, n, stall_ms, err);
	case ST_COLUMNS:
		return opnd_columns(in, buf, n, err);
	case ST_HEADLINE:
		return opnd_headline(in, stall_ms, err);
	case ST_END:
		break;
	}
	return 0;
}

/* operand_step with operand errors reported and skipped: -1 only when
 * fatal. */
static ssize_t step_done(struct input *in, ssize_t r, const struct gs_err *e,
			 struct gs_err *err)
{
	if (r == OPERAND_FAIL) {
		operand_fail(in, e);
		if (!in->opts.stop_on_error)
			return 0;
		*err = *e;
		return -1;
	}
	if (r == INPUT_FATAL)
		return gs_fail(err, GS_ERUNTIME, in->name, "out of memory");
	return r;
}

static ssize_t input_step(struct input *in, void *buf, size_t n, int stall_ms,
			  struct gs_err *err)
{
	struct gs_err e;
	ssize_t r = operand_step(in, buf, n, stall_ms, &e);

	return step_done(in, r, &e, err);
}

int input_open(struct input **inp, char *const *paths, int npaths,
	       const struct input_opts *opts, struct gs_err *err)
{
	struct input *in = calloc(1, sizeof(*in));
	struct stat sb;
	int i;

	*inp = NULL;
	if (!in)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	in->paths = npaths > 0 ? paths : stdin_only;
	in->npaths = npaths > 0 ? npaths : 1;
	if (opts)
		in->opts = *opts;
	in->idx = -1;
	in->seen = in->opts.continued;
	in->text_found = in->opts.continued && in->opts.text;
	in->st = ST_OPEN;
	in->name = operand_name(in, 0);
	in->fd = -1;
	in->fmt = &informat_raw;
	uint64_t window = in->opts.zstd_window ? in->opts.zstd_window
					       : INPUT_ZSTD_WINDOW_DEFAULT;

	in->z = zsrc_new(window, in->opts.threads);
	/* a speed-up only: none when it cannot be had */
	if (!in->opts.raw)
		in->ahead = zahead_new(in->paths, in->npaths, in->opts.threads,
				       window);
	in->hbuf = malloc(FMT_HEADER_MAX);
	in->reported = calloc((size_t)in->npaths, sizeof(bool));
	if (in->opts.text)
		in->textin = textin_new(in, in->opts.threads, in->opts.text_lines);
	if (in->opts.header || in->opts.count_line)
		in->head = headline_new(in->opts.header);
	if (!in->z || !in->hbuf || !in->reported || (in->opts.text && !in->textin) ||
	    ((in->opts.header || in->opts.count_line) && !in->head)) {
		input_close(in);
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	}
	for (i = 0; i < in->npaths; i++)
		in->uses_stdin |= strcmp(operand_path(in, i), "-") == 0;
	if (in->uses_stdin && fstat(STDIN_FILENO, &sb) == 0 && S_ISREG(sb.st_mode)) {
		in->stdin_start = lseek(STDIN_FILENO, 0, SEEK_CUR);
		in->stdin_reg = in->stdin_start >= 0;
	}
	*inp = in;
	return 0;
}

/* In a state that hands out payload bytes. */
static bool in_data(const struct input *in)
{
	return in->st == ST_PAYLOAD || in->st == ST_PLAIN ||
	       in->st == ST_COLUMNS;
}

/* An empty raw operand with more to come and nothing seen before: the
 * stream's kind comes from a later one (an empty file before text). */
static bool in_blank(const struct input *in)
{
	return in->st == ST_PAYLOAD && !in->fmt->parse && !in->seen &&
	       in->deof && in->hpos == in->hlen && in->idx + 1 < in->npaths;
}

int input_probe(struct input *in, struct input_info *info, struct gs_err *err)
{
	bool typed;

	while ((!in_data(in) || in_blank(in)) && in->st != ST_END)
		if (input_step(in, NULL, 0, -1, err) < 0)
			return -1;
	typed = in_data(in) && in->fmt->parse;
	memset(info, 0, sizeof(*info));
	info->has_type = typed;
	if (typed) {
		info->dtype = in->hdr.dtype;
		info->columns = in->hdr.columns;
		info->rec = in->hdr.rec.n ? &in->hdr.rec : NULL;
	}
	info->compressed = in_data(in) && zsrc_compressed(in->z);
	info->one_stream = info->compressed && !zsrc_parallel(in->z);
	info->format = in->fmt->name;
	if (info->compressed) {
		snprintf(in->fmtname, sizeof(in->fmtname), "%s (%s)",
			 in->fmt->name, zsrc_codec(in->z));
		info->format = in->fmtname;
	}
	info->total_bytes = informat_total(in->paths, in->npaths, in->opts.raw,
					   in->stdin_reg ? in->stdin_start : -1);
	if (in->textin) {	/* its records' size is known once they are made */
		info->text = true;
		info->format = "text";
		if (zsrc_compressed(in->z)) {
			snprintf(in->fmtname, sizeof(in->fmtname), "text (%s)",
				 zsrc_codec(in->z));
			info->format = in->fmtname;
		}
		info->total_bytes = -1;
		info->head = in->head;
	}
	return 0;
}

void input_set_dtype(struct input *in, struct gs_dtype dtype, unsigned columns)
{
	in->typed = true;
	in->dtype = dtype;
	in->columns = columns;
	if (in->textin)
		textin_set_type(in->textin, dtype, columns);
	if (in->textin && in->head)	/* the first line gave the columns */
		textin_headline(in->textin, in->opts.header);
}

void input_set_record(struct input *in, const struct gs_record *rec)
{
	in->rec = rec ? *rec : (struct gs_record){ .n = 0 };
}

int input_text_keys(struct input *in, struct textkeys *keys,
		    const uint8_t *keycol, unsigned n)
{
	return in->textin ? textin_set_keys(in->textin, keys, keycol, n) : -1;
}

const struct gs_record *input_record(const struct input *in)
{
	return in->rec.n ? &in->rec : NULL;
}

/* The operands' records, whole (input_read cuts them with -F). */
static ssize_t read_records(struct input *in, void *buf, size_t n,
			   int stall_ms, struct gs_err *err)
{
	size_t got = 0;
	ssize_t r;

	if (in->textin)
		return textin_read(in->textin, buf, n, stall_ms, err);
	/* Once bytes are in hand, take only what is there without waiting:
	 * the caller decides how long a stall it tolerates. */
	while (got < n && in->st != ST_END) {
		r = input_step(in, (uint8_t *)buf + got, n - got,
			       got ? 0 : stall_ms, err);
		if (r == INPUT_STALL && got)
			break;
		if (r < 0)
			return r;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

ssize_t input_read(struct input *in, void *buf, size_t n, int stall_ms,
		   struct gs_err *err)
{
	if (in->proj)
		return proj_read(in->proj, buf, n, stall_ms, err);
	return read_records(in, buf, n, stall_ms, err);
}

int input_project(struct input *in, const unsigned *cols, unsigned n,
		  unsigned width, struct gs_err *err)
{
	in->proj = proj_new(cols, n, width, in->dtype.type, read_records, in);
	return in->proj ? 0 : gs_fail(err, GS_ERUNTIME, "", "out of memory");
}

/* Views are given where opnd_payload would copy the file's bytes as
 * they are (no peeked bytes wait, no text, no values to check or change,
 * no columns to cut),
 * and never across the end of an operand, where reads run on into the next
 * one or find what is wrong with it: a file's mapped bytes are viewed only
 * whole (n of them), so that chunks and errors fall where they fall
 * without views; a file's zstd frames a frame at a time (zpipe_view), so
 * chunks are shorter, and an error is the same, after the frames before
 * it were computed on. Bytes the format's detection peeked from a frame
 * are handed back to it first (zsrc_unread), so that an operand's first
 * chunk is a view too. Once a file's frames have all been served, its end
 * is read here (opnd_payload's way: a peek that finds 0, or bytes the
 * reads then take) and the next operand opened, up to its payload: so a
 * run of zstd shards is viewed shard after shard, where each chunk would
 * otherwise be a copy that opens the next one. */
static bool view_ok(struct input *in, size_t n)
{
	const struct fmt_header *h = &in->hdr;
	bool sized = in->st == ST_PAYLOAD && in->fmt->parse != NULL;

	if (in->st != ST_PAYLOAD || in->textin || in->proj || in->deof ||
	    in->pend_pos < in->pend_len)
		return false;
	if (sized ? h->boolean || (h->maxval && h->maxval != 255 &&
				  h->maxval != 65535)
		  : in->dtype.boolean)
		return false;
	if (sized && in->left < n)
		return false;
	/* payload bytes peeked (the format's detection reads ahead) go back
	 * to their frame where they still lie in it, so the view starts
	 * where the reads would */
	if (in->hpos < in->hlen && !zsrc_unread(in->z, in->hlen - in->hpos))
		return false;
	in->hpos = in->hlen = 0;
	return true;
}

/* The end of an operand whose frames were all served: what opnd_payload
 * does when its read finds 0 (an unsized payload), or the bytes that come
 * after the frames, peeked for the reads to take. */
static ssize_t operand_served(struct input *in, struct gs_err *err)
{
	ssize_t r = opnd_peek(in, -1, err);

	if (r == 0)
		opnd_done(in);
	return r < 0 ? r : 0;
}

ssize_t input_view(struct input *in, size_t n, size_t align, const void **p,
		   struct gs_err *err)
{
	struct gs_err e;
	ssize_t r;

	for (;;) {
		bool sized = in->st == ST_PAYLOAD && in->fmt->parse != NULL;

		if (!view_ok(in, n))
			return 0;
		r = zsrc_view(in->z, n, align, p, err);
		if (r < 0)
			return r;
		if (r > 0) {
			in->doff += (uint64_t)r;
			if (sized)
				in->left -= (uint64_t)r;
			return r;
		}
		if (sized || !zsrc_served(in->z))
			return 0;
		if (step_done(in, operand_served(in, &e), &e, err) < 0)
			return -1;
		while (!in_data(in) && in->st != ST_END)
			if (input_step(in, NULL, 0, -1, err) < 0)
				return -1;
	}
}

void input_unview(const void *p, size_t n)
{
	zsrc_unview(p, n);
}

ssize_t input_read_operand(struct input *in, void *buf, size_t n,
			   int stall_ms, struct gs_err *err)
{
	size_t got = 0;
	ssize_t r;

	/* the next operand, past those that fail to open */
	while (in->st == ST_OPEN)
		if ((r = input_step(in, NULL, 0, -1, err)) < 0)
			return r;
	while (got < n && !input_operand_ended(in)) {
		r = input_step(in, (uint8_t *)buf + got, n - got,
			       got ? 0 : stall_ms, err);
		if (r == INPUT_STALL && got)
			break;
		if (r < 0)
			return r;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

bool input_operand_ended(const struct input *in)
{
	return in->st == ST_OPEN || in->st == ST_END;
}

bool input_ended(const struct input *in)
{
	return in->st == ST_END;
}

bool input_decode_line(const struct input *in, char *buf, size_t n)
{
	struct zsrc_decoded d;

	zsrc_decoded(in->z, &d);
	if (d.parallel + d.stream == 0)
		return false;
	if (d.parallel)
		snprintf(buf, n, "%s: %.1f MiB of frames decoded in parallel "
			 "on %d threads, %.1f MiB as one stream",
			 d.codec ? d.codec : "zstd", d.parallel / 1048576.0,
			 d.threads, d.stream / 1048576.0);
	else
		snprintf(buf, n, "%s: %.1f MiB decoded as one stream",
			 d.codec ? d.codec : "zstd", d.stream / 1048576.0);
	return true;
}

const char *input_name(const struct input *in)
{
	return in->name;
}

bool input_failed(const struct input *in)
{
	return in->failed;
}

bool input_rewindable(const struct input *in)
{
	struct stat sb;
	const char *path;
	int i;

	/* operands that cannot be opened or are directories fail on every
	 * pass alike, so they do not stop a second one */
	for (i = 0; i < in->npaths; i++) {
		path = operand_path(in, i);
		if (strcmp(path, "-") == 0) {
			if (!in->stdin_reg)
				return false;
		} else if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) &&
			   !S_ISDIR(sb.st_mode)) {
			return false;
		}
	}
	return true;
}

bool input_cold(const struct input *in)
{
	bool cold = false;

	for (int i = 0; i < in->npaths && !cold; i++) {
		const char *path = operand_path(in, i);
		int fd;

		if (strcmp(path, "-") == 0) {
			cold = in->stdin_reg && coldread_file_cold(STDIN_FILENO);
			continue;
		}
		/* never blocks on a FIFO or a device among the operands */
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			cold = coldread_file_cold(fd);
			close(fd);
		}
	}
	return cold;
}

int input_rewind(struct input *in, struct gs_err *err)
{
	if (!input_rewindable(in))
		return gs_fail(err, GS_ERUNTIME, in->name,
			       "input cannot be read twice (not a regular file)");
	operand_close(in);
	if (in->uses_stdin && lseek(STDIN_FILENO, in->stdin_start, SEEK_SET) < 0)
		return gs_fail(err, GS_ERUNTIME, "stdin", "%s", strerror(errno));
	in->idx = -1;
	in->name = operand_name(in, 0);
	zahead_reset(in->ahead);
	in->hpos = in->hlen = 0;
	in->pend_pos = in->pend_len = 0;
	in->st = ST_OPEN;
	textin_reset(in->textin);
	proj_reset(in->proj);
	return 0;
}

void input_close(struct input *in)
{
	if (!in)
		return;
	operand_close(in);
	textin_free(in->textin);
	proj_free(in->proj);
	headline_free(in->head);
	zahead_free(in->ahead);
	zsrc_free(in->z);
	free(in->hbuf);
	free(in->reported);
	free(in);
}
