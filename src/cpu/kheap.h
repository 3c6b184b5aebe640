/*
 * kheap.h - the heap of a k-way merge by key, one for every merge of
 * sorted runs (group_spill.c, gvals_spill.c, group_shared.c's reading of
 * the partitions in order): a min-heap of cursors by their current key,
 * kw order key words (ktable.h) compared as unsigned, word by word.
 *
 * A cursor is any struct that begins with a struct kcur; the heap is an
 * array of pointers to those, so a cursor's own fields come back by a
 * cast of the pointer.
 */
#ifndef KHEAP_H
#define KHEAP_H

#include <stddef.h>
#include <stdint.h>

struct kcur {
	const uint64_t *key;	/* the current key: kw words */
};

/* -1, 0, 1 as a's kw words are below, equal to, above b's. */
static inline int kheap_cmp(const uint64_t *a, const uint64_t *b, size_t kw)
{
	for (size_t k = 0; k < kw; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

/* h[i] moved down the heap h[0..n) to its place; n / 2 calls from the
 * last parent up to 0 make a heap of any array. */
static inline void kheap_sift(struct kcur **h, size_t n, size_t i, size_t kw)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct kcur *s;

		if (l < n && kheap_cmp(h[l]->key, h[m]->key, kw) < 0)
			m = l;
		if (l + 1 < n && kheap_cmp(h[l + 1]->key, h[m]->key, kw) < 0)
			m = l + 1;
		if (m == i)
			return;
		s = h[i];
		h[i] = h[m];
		h[m] = s;
		i = m;
	}
}

/* h[0..n) made a heap. */
static inline void kheap_make(struct kcur **h, size_t n, size_t kw)
{
	for (size_t i = n / 2; i-- > 0;)
		kheap_sift(h, n, i, kw);
}

#endif
