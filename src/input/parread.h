/*
 * parread.h - a big read of a regular file on several threads at once.
 * Private to the input layer (zsrc.c reads uncompressed operands with it).
 *
 * One core copies page-cached data at about the speed of cat(1) (7 GB/s
 * on a 16-core Xeon host of an H100), below what a GPU takes over PCIe;
 * 16 parallel readers of one file reach 38 GB/s there. So a read of n bytes is cut
 * into pieces of PARREAD_PIECE that pool threads pread at once, each
 * taking the next piece as it finishes one (no thread waits on a slow
 * neighbour's fixed share). The result is the same bytes a read(2) of n
 * would give, and the fd's offset moves past them as read(2) moves it.
 * A range not in memory (a cold file) is read as coldread.h says: queued
 * for the disk ahead of the pieces by default.
 */
#ifndef PARREAD_H
#define PARREAD_H

#include <sys/types.h>

/* A piece: large enough that a pread costs nothing beside its copy, small
 * enough that a 64 MiB chunk gives 16 cores two pieces each to balance. */
#define PARREAD_PIECE ((size_t)2 << 20)
/* Reads of fewer bytes (or fewer left in the file) go to one read(2):
 * waking threads would cost more than the copy. */
#define PARREAD_MIN (2 * PARREAD_PIECE)
/* Most pieces of one read: a longer read has larger pieces. */
#define PARREAD_MAX_PIECES 256

/* GPUSTAT_READ_THREADS=N: at most N threads read, whatever -j says (1: one
 * read(2) at a time), for measuring the reader apart from the CPU's
 * arithmetic; still no more than the cores. */
#define PARREAD_THREADS_ENV "GPUSTAT_READ_THREADS"

/* The caller should use read(2) itself. */
#define PARREAD_PLAIN (-2)

/*
 * Read up to n bytes at regular file fd's offset into buf on up to threads
 * threads (-j; never more than the machine's cores), and move the offset
 * past them. Returns the count: only a whole prefix of the range counts, so
 * a file that shrinks or grows meanwhile reads as a read(2) loop would
 * (what comes after a short piece is read again by the next call). 0 at the
 * end of the file, -1 with errno set when the first byte cannot be read,
 * or PARREAD_PLAIN when one read(2) is the better way: a small read, a
 * small rest of the file, threads < 2, no threads to be had, another
 * thread inside parread already, or a cold range under
 * GPUSTAT_COLD_READ=seq.
 */
ssize_t parread(int fd, void *buf, size_t n, int threads);

#endif
