/*
 * input.h - the operands of a command as one stream of element bytes.
 *
 * Operands are read in order like cat(1). Each is a file or "-" (stdin). For
 * each operand the layers are: bytes from the fd -> zstd decoding when the
 * name ends in ".zst" or the data begins with a zstd frame (magic or skippable
 * frame) -> a format header (.npy, PGM/PPM) that is parsed and stripped ->
 * payload bytes (plain P2/P3 text turned into binary samples, a Fortran-order
 * .npy read column by column). A magic of a format gpustat does not read
 * (gzip, xz, PNG, a PBM bitmap ...) fails the operand: it is never read as
 * raw data. --raw turns every detection off. With --text (or where the
 * first bytes are text: textdetect.h) the payloads are decimal text that
 * textin.h turns into records, and input_read hands out those.
 *
 * The first operand that carries a type (npy/pnm) fixes the stream's type and
 * columns unless the job set them; later operands that disagree are errors.
 *
 * An operand that fails (cannot be opened, bad header, corrupt zstd, read
 * error, npy data length not matching its header) is reported through the
 * warn callback and reading goes on with the next operand; input_failed()
 * then says so, and the CLI exits 1. The library itself never prints.
 */
#ifndef INPUT_H
#define INPUT_H

#include <sys/types.h>
#include "gs.h"

struct input;

/* What a header said about the data (or nothing for raw). */
struct input_info {
	bool has_type;		/* an npy/pnm header fixed dtype/columns */
	struct gs_dtype dtype;
	unsigned columns;	/* 0 when the header says nothing about it */
	/* a structured .npy's record (dtype is then u8), or NULL */
	const struct gs_record *rec;
	const char *format;	/* "raw", "npy", "pgm", "ppm" (+ " (zstd)") */
	int64_t total_bytes;	/* payload bytes of all operands if known, else -1 */
	bool text;		/* decimal text (--text, or found so) */
	bool compressed;	/* zstd (the first operand's data) */
	bool one_stream;	/* ...decoded as one stream, on one thread */
	/* text: its first line (headline.h), the names of --header or, with
	 * count_line, the count of its fields; NULL when not asked for */
	const struct headline *head;
};

/* The zstd CLI's default limit on a frame's window (--memory). */
#define INPUT_ZSTD_WINDOW_DEFAULT ((uint64_t)1 << 27)
/* The largest window zstd decodes (--long=31). */
#define INPUT_ZSTD_WINDOW_MAX ((uint64_t)1 << 31)

struct input_opts {
	bool raw;		/* --raw: no zstd, npy or pnm detection */
	/* Largest zstd window accepted, in bytes (--long, --memory); 0 means
	 * INPUT_ZSTD_WINDOW_DEFAULT. A frame that needs more is an error. */
	uint64_t zstd_window;
	/* Threads that may decode the frames of a multi-frame .zst file at
	 * once (-j); 0 or 1: one. */
	int threads;
	/* Called for every operand error that does not stop the stream. */
	void (*warn)(void *ctx, const struct gs_err *err);
	void *warn_ctx;
	/* An operand error ends the stream (after warn): for a scan, whose
	 * output would go on as if the operand were empty. */
	bool stop_on_error;
	/* --text: the payload is decimal text, read as textin.h says, and
	 * input_read hands out the records it makes; text_lines: one record
	 * per line (-c N, --header or -F given). An npy or pnm header is an
	 * error then. */
	bool text, text_lines;
	bool header;		/* --header: each text operand's first line names the columns */
	/* -F on text without -c: the stream's first line is counted, its
	 * fields the records' width (input_info.head); text_lines too */
	bool count_line;
	/* --by or -F: text whose fields are words is text all the same (its
	 * keys, the fields -F leaves, may be words), not refused as not
	 * numbers */
	bool words;
	/* The operands continue a stream whose kind (text or not) its first
	 * operand set without --text (--per-file reads each operand alone as
	 * that stream reads it): none is looked at for text, and text is
	 * text found, not --text's. */
	bool continued;
};

/* Open the operand list (npaths == 0 means stdin). Fails only for errors
 * that stop everything (out of memory); operand errors go to warn. */
int input_open(struct input **in, char *const *paths, int npaths,
	       const struct input_opts *opts, struct gs_err *err);

/* Read the first operand's header (if any) without consuming payload; call
 * it before the first input_read. Operands that fail on the way are reported
 * and skipped, so the header is that of the first operand that opens. */
int input_probe(struct input *in, struct input_info *info, struct gs_err *err);

/* Tell the input what the stream's dtype/columns are (after the CLI checked
 * -t against the header); later operands with npy/pnm headers are checked
 * against it. */
void input_set_dtype(struct input *in, struct gs_dtype dtype, unsigned columns);
/* ...and, after it, the stream's records of mixed types (gs.h; NULL:
 * none), which later structured headers must match. */
void input_set_record(struct input *in, const struct gs_record *rec);
/* The stream's records of mixed types, or NULL. */
const struct gs_record *input_record(const struct input *in);
/* Text input grouped by --by: the fields of the columns keycol[0..n)
 * marks are string keys, read as their ids in keys (textin.h,
 * textkeys.h). -1 when out of memory or the input is not text. */
struct textkeys;
int input_text_keys(struct input *in, struct textkeys *keys,
		    const uint8_t *keycol, unsigned n);

/* -F: input_read hands out records of width values (as input_set_dtype
 * said) cut to columns cols[0..n) (0-based, in that order; fields.h), and
 * input_view gives none. Call it after input_set_dtype. */
int input_project(struct input *in, const unsigned *cols, unsigned n,
		  unsigned width, struct gs_err *err);

/* -v: how the compressed bytes read so far were decoded, as "zstd: N MiB
 * of frames decoded in parallel on T threads, M MiB as one stream" in
 * buf: false when nothing compressed was read. */
bool input_decode_line(const struct input *in, char *buf, size_t n);

#define INPUT_STALL (-2)
/* Read up to n payload bytes into buf: regular files fill it unless the input
 * ends; pipes wait (as stall_ms says) for the first byte, then take only what
 * is already there. Returns the count (> 0), 0 at the end
 * of the last operand, INPUT_STALL when stall_ms >= 0 and no byte arrived for
 * stall_ms milliseconds (pipes and terminals only; files never stall), or -1
 * on an error that stops everything (err filled). */
ssize_t input_read(struct input *in, void *buf, size_t n, int stall_ms,
		   struct gs_err *err);

/* The next n bytes or fewer of the stream in place, where they are the
 * payload of an uncompressed regular file that input_read would copy as it
 * is (or a regular file's zstd frames, where they were decoded): their
 * count, with *p at them, a multiple of align (the kernels load whole
 * elements); give them back with input_unview(*p, count) when done. 0
 * where input_read must be used for the next bytes (also where they would
 * lie at an address that is no multiple of align); -1 with err filled.
 * Records may straddle views as they straddle reads. */
ssize_t input_view(struct input *in, size_t n, size_t align, const void **p,
		   struct gs_err *err);
void input_unview(const void *p, size_t n);

/* For the text layer (textin.h): input_read within one operand, so that
 * it knows where each ends. Returns bytes (> 0), 0 when the operand has
 * ended (or none is left), INPUT_STALL or -1; the call after an operand
 * ended opens the next one. input_operand_ended: the operand last read has
 * ended (its last bytes may have come with that read); input_ended: every
 * operand has. */
ssize_t input_read_operand(struct input *in, void *buf, size_t n,
			   int stall_ms, struct gs_err *err);
bool input_operand_ended(const struct input *in);
bool input_ended(const struct input *in);

/* Name of the operand being read ("-" shows as "stdin") and the payload byte
 * offset within it, for error messages. */
const char *input_name(const struct input *in);

bool input_failed(const struct input *in);	/* some operand was reported */

/* Whether every operand can be read again from its start (regular files,
 * stdin redirected from a regular file), and doing so. */
bool input_rewindable(const struct input *in);
int input_rewind(struct input *in, struct gs_err *err);

/* Whether an operand is a regular file (stdin redirected from one too)
 * whose pages are mostly on disk, not in the page cache (coldread.h): it
 * comes at the disk's rate. */
bool input_cold(const struct input *in);

void input_close(struct input *in);

/* The payload bytes of regular files read so far in this process: *all
 * that were asked whether they are in memory (reads of a few MiB and more
 * on several threads, and views), *cold those that were not (coldread.h);
 * returns how cold ones are read ("ahead", GPUSTAT_COLD_READ's choice). */
const char *input_cold_bytes(uint64_t *all, uint64_t *cold);

#endif
