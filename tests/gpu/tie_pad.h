/*
 * tie_pad.h - how the host checks' near-tie columns end
 * (prod_host_check.cu). f holds factors whose product
 * is a tie of the output format times 2^scale (scale <= 0); this adds up
 * to three pairs 2^j, 2^-j and powers 2^-j that bring the scale to 0 (each
 * within 2^step, which the input type holds), makes one factor negative,
 * and writes them into v padded with ones to nrec values, shuffled. The
 * including file defines rnd(), whose calls this makes in a fixed order.
 */
#ifndef TIE_PAD_H
#define TIE_PAD_H

#include <math.h>
#include <algorithm>
#include <vector>

static void tie_pad(std::vector<double> &f, long long scale, int step,
		    std::vector<double> &v, size_t nrec)
{
	for (int i = (int)(rnd() % 4); i > 0; i--) {
		int j = 1 + (int)(rnd() % step);

		f.push_back(ldexp(1, j));
		f.push_back(ldexp(1, -j));
	}
	while (scale < 0) {
		int j = scale < -step ? step : (int)-scale;

		f.push_back(ldexp(1, -j));
		scale += j;
	}
	f[rnd() % f.size()] *= -1;
	v.assign(nrec, 1.0);
	for (size_t i = 0; i < f.size() && i < nrec; i++)
		v[i] = f[i];
	for (size_t i = nrec; i > 1; i--)
		std::swap(v[i - 1], v[rnd() % i]);
}

#endif
