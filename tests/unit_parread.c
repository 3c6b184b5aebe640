/*
 * unit_parread.c - parread (src/input/parread.h) against what read(2) gives:
 * the same bytes, the same count and the fd's offset moved past them, for
 * reads that start anywhere, end anywhere (inside a piece, on its edge,
 * past the end of the file) and use 1 to 64 threads; the end of the file;
 * an fd that cannot be read; a read longer than PARREAD_MAX_PIECES pieces.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "parread.h"
#include "unit.h"

#define P PARREAD_PIECE

static unsigned char byte_at(uint64_t i)
{
	return (unsigned char)((i * 2654435761u) >> 13 ^ i >> 20);
}

/* parread, or read(2) where it says so, as the input layer does. */
static ssize_t read_some(int fd, void *buf, size_t n, int threads)
{
	ssize_t r = parread(fd, buf, n, threads);

	return r == PARREAD_PLAIN ? read(fd, buf, n) : r;
}

static void check_range(int fd, uint64_t size, uint64_t off, size_t n,
			int threads, unsigned char *buf)
{
	size_t want = off >= size ? 0 : size - off < n ? size - off : n;
	size_t got = 0;
	ssize_t r;
	bool same = true;

	lseek(fd, (off_t)off, SEEK_SET);
	/* bytes it must not write stay marked */
	memset(buf, 0xa5, want + 4096 < n ? want + 4096 : n);
	/* a read(2) loop: parread may give a prefix, never wrong bytes */
	while (got < n && (r = read_some(fd, buf + got, n - got, threads)) > 0)
		got += (size_t)r;
	for (size_t i = 0; i < got && same; i++)
		same = buf[i] == byte_at(off + i);
	if (got < n)
		same &= buf[got] == 0xa5;
	CHECKF(got == want && same, "off %llu n %zu threads %d: got %zu of %zu, same %d",
	       (unsigned long long)off, n, threads, got, want, same);
	CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)(off + got));
}

static int make_file(const char *path, uint64_t size)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	unsigned char *b = malloc(size ? size : 1);

	for (uint64_t i = 0; i < size; i++)
		b[i] = byte_at(i);
	if (fd < 0 || write(fd, b, size) != (ssize_t)size)
		return -1;
	free(b);
	return fd;
}

static void test_ranges(const char *path)
{
	uint64_t size = 6 * P + 12345;
	int fd = make_file(path, size);
	const uint64_t offs[] = { 0, 1, 4095, P + 7, 5 * P, size - 3, size };
	const size_t ns[] = { PARREAD_MIN - 1, PARREAD_MIN, PARREAD_MIN + 1,
			      3 * P, 5 * P + 3, size, 16 * P };
	const int threads[] = { 1, 2, 3, 8, 64 };
	unsigned char *buf = malloc(16 * P);

	CHECK(fd >= 0);
	for (size_t a = 0; a < sizeof(offs) / sizeof(*offs); a++)
		for (size_t b = 0; b < sizeof(ns) / sizeof(*ns); b++)
			for (size_t t = 0; t < sizeof(threads) / sizeof(*threads); t++)
				check_range(fd, size, offs[a], ns[b], threads[t], buf);

	/* one call reads all it can: a whole range, or the file's rest */
	lseek(fd, 1, SEEK_SET);
	CHECK(parread(fd, buf, 4 * P, 8) == (ssize_t)(4 * P));
	lseek(fd, (off_t)(size - PARREAD_MIN - 5), SEEK_SET);
	CHECK(parread(fd, buf, 16 * P, 8) == (ssize_t)(PARREAD_MIN + 5));
	/* at the end read(2) decides (the file may have grown) */
	CHECK(parread(fd, buf, 16 * P, 8) == PARREAD_PLAIN);
	/* too few bytes or threads for threads */
	lseek(fd, 0, SEEK_SET);
	CHECK(parread(fd, buf, PARREAD_MIN - 1, 8) == PARREAD_PLAIN);
	CHECK(parread(fd, buf, 4 * P, 1) == PARREAD_PLAIN);
	close(fd);

	/* an fd that cannot be read: the error of the first piece */
	fd = open(path, O_WRONLY);
	errno = 0;
	CHECK(parread(fd, buf, 4 * P, 8) == -1 && errno == EBADF);
	close(fd);
	free(buf);
}

/* More than PARREAD_MAX_PIECES pieces' worth: larger pieces, in order. A
 * sparse file with a mark at every piece's edge (and the rest zeros). */
static void test_long(const char *path)
{
	uint64_t size = (uint64_t)PARREAD_MAX_PIECES * P + 3 * P + 7;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	unsigned char *buf = malloc(size);
	bool same = true;
	ssize_t r;

	CHECK(fd >= 0 && ftruncate(fd, (off_t)size) == 0);
	for (uint64_t at = 0; at < size; at += P / 2) {
		unsigned char m = (unsigned char)(at / (P / 2) + 1);

		CHECK(pwrite(fd, &m, 1, (off_t)at) == 1);
	}
	lseek(fd, 0, SEEK_SET);
	r = parread(fd, buf, size, 4);
	CHECK(r == (ssize_t)size);
	for (uint64_t i = 0; r == (ssize_t)size && i < size && same; i++)
		same = buf[i] == (i % (P / 2) ? 0 : (unsigned char)(i / (P / 2) + 1));
	CHECK(same);
	close(fd);
	free(buf);
}

int main(void)
{
	char path[] = "/tmp/unit_parread.XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	test_ranges(path);
	test_long(path);
	unlink(path);
	UNIT_END();
}
