/*
 * out.h - where results go: stdout or -o FILE. Writes are checked, and so is
 * the final close, so "> /dev/full" fails loudly (coreutils' close_stdout).
 * A closed pipe kills us with SIGPIPE like cat(1): main() restores its
 * default action, so "| head" ends the run quietly.
 */
#ifndef OUT_H
#define OUT_H

#include "gs.h"

struct out {
	int fd;
	const char *name;	/* for messages: "stdout" or the file */
	bool is_tty;
	bool seekable;		/* a regular file: npy headers can be patched */
};

int out_open(struct out *o, const char *path, struct gs_err *err);
int out_write(struct out *o, const void *buf, size_t n, struct gs_err *err);
/* Write n bytes at offset off (seekable outputs only), then come back. */
int out_pwrite(struct out *o, const void *buf, size_t n, uint64_t off,
	       struct gs_err *err);
int out_close(struct out *o, struct gs_err *err);

#endif
