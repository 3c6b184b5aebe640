/*
 * spill_io.h - the temp files of --by past its memory limit (group_spill.c):
 * one file in $TMPDIR, unlinked as soon as it is made, read and written at
 * offsets. The key table (group_spill.c) and the collected values of
 * quantile, median and mode (gvals_spill.c) spill through these.
 */
#ifndef SPILL_IO_H
#define SPILL_IO_H

#include <stddef.h>
#include <stdint.h>

/* A new temp file in $TMPDIR (/tmp where unset), already unlinked: its
 * descriptor, or -1 with errno. */
int spill_tmpfile(void);
/* The directory spill_tmpfile uses, for error messages. */
const char *spill_dir(void);
/* n bytes at off, all of them: 0, or -1 with errno (a short file: EIO; a
 * write of nothing: ENOSPC). */
int spill_read(int fd, void *p, size_t n, uint64_t off);
int spill_write(int fd, const void *p, size_t n, uint64_t off);
/* The bytes [off, off + n) let go (a hole; the file's size stays). */
void spill_punch(int fd, uint64_t off, uint64_t n);

#endif
