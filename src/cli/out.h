/*
 * out.h - where results go: stdout or -o FILE. Writes are checked, and so is
 * the final close, so "> /dev/full" fails loudly (coreutils' close_stdout).
 * A closed pipe kills us with SIGPIPE like cat(1): main() restores its
 * default action, so "| head" ends the run quietly.
 *
 * -o FILE never destroys FILE on failure: the output goes to a temporary
 * file in FILE's directory that out_close() renames over FILE, and that
 * out_abort() (or a signal, or the exit of a run that forgot) removes. A
 * FILE that exists and is not a regular file (/dev/null, a FIFO) is written
 * in place, as there is nothing to rename over.
 */
#ifndef OUT_H
#define OUT_H

#include "gs.h"

struct out {
	int fd;
	const char *name;	/* for messages: "stdout" or the file */
	char *target;		/* where a temporary file is renamed to, or NULL */
	char *tmp;		/* the temporary file while it is written */
	bool is_tty;
	/* a regular file not opened for appending: an npy header written at
	 * start can be patched later */
	bool seekable;
	uint64_t start;		/* offset of the first byte we write */
	uint64_t written;	/* bytes out_write() wrote, a short write's too */
};

/* Refuse an output that is one of the inputs (the same device and inode:
 * a hard link or symlink too), before anything is opened for writing, as
 * cat(1) does: path is the FILE of option opt ("-o") or NULL/"-" for
 * stdout, inputs the operands (none means stdin). Only regular files are
 * compared. */
int out_check_inputs(const char *opt, const char *path, char *const *inputs,
		     int ninputs, struct gs_err *err);

/* Whether paths a and b (NULL: stdout) are one file: the same device and
 * inode, or, where one does not exist yet, the same place. */
bool out_same_file(const char *a, const char *b);

int out_open(struct out *o, const char *path, struct gs_err *err);
int out_write(struct out *o, const void *buf, size_t n, struct gs_err *err);
/* Write n bytes at offset off from where our output began (seekable
 * outputs only), then come back. */
int out_pwrite(struct out *o, const void *buf, size_t n, uint64_t off,
	       struct gs_err *err);
/* Finish: close the file and rename a temporary one over FILE. On an error
 * the temporary file is removed and FILE is left as it was. */
int out_close(struct out *o, struct gs_err *err);
/* Cut a seekable output back to the first keep bytes that out_write()
 * wrote (a partial record after a short write), and its offset (which a
 * shell's `{ ...; } > f` shares with the commands after us) back to
 * their end; nothing is cut where others wrote after our bytes or moved
 * the offset. 0, or -1 with errno. */
int out_cut(struct out *o, uint64_t keep);
/* Give up: remove a temporary file (FILE stays as it was); a regular file
 * written in place (stdout redirected to it) is cut back to where our output
 * began, its offset too (out_cut); pipes, devices and appending files keep
 * what they were sent. */
void out_abort(struct out *o);

#endif
