#!/usr/bin/env python3
"""hist2d_example.py - the points of docs/hist2d.png: 2,000,000 (x, y) f32
pairs, little-endian, to stdout, from a mixture of four 2-D Gaussians (seed
2026, so the picture is the same each time). Made with

    python3 docs/hist2d_example.py |
        gpustat hist2d -q --bins 256 --range -4:4 -f png --norm eq > docs/hist2d.png
"""
import sys

import numpy as np

# (centre, standard deviations, correlation) of each component
MIX = [((-1.5, -1.0), (0.6, 0.4), 0.0),
       ((1.2, 1.3), (0.9, 0.35), 0.7),
       ((1.5, -1.8), (0.3, 0.8), -0.3),
       ((-1.6, 2.0), (0.25, 0.25), 0.0)]
N = 2_000_000

rng = np.random.default_rng(2026)
k = rng.integers(0, len(MIX), N)
p = np.empty((N, 2), np.float32)
for i, ((cx, cy), (sx, sy), rho) in enumerate(MIX):
    s = k == i
    z = rng.normal(size=(s.sum(), 2))
    p[s, 0] = cx + sx * z[:, 0]
    p[s, 1] = cy + sy * (rho * z[:, 0] + (1 - rho ** 2) ** 0.5 * z[:, 1])
sys.stdout.buffer.write(p.astype("<f4").tobytes())
