#!/usr/bin/env python3
"""Seeds for the fuzz harnesses: fuzz/corpus/NAME/*. Run from the repository
root; needs numpy (npy files written by numpy itself) and the zstd CLI.

input:  5 setup bytes (see fuzz_input.c) + npy v1/v2/v3 in both byte orders,
        P5/P6 with 8- and 16-bit samples and comments, concatenated images,
        zstd frames (single, concatenated, skippable, truncated), raw bytes.
hdr:    one selector byte (0 npy, 1 pnm) + a header.
opts:   NUL-separated arguments, the last 8 bytes also read as a double.
stream: any bytes are a plan (fuzz_stream.c); pseudo-random ones with the
        first byte over operand counts, pipe, cut and read-size settings.
"""
import io
import os
import random
import struct
import subprocess

import numpy as np

ROOT = "fuzz/corpus"


def put(name, fname, data):
    d = os.path.join(ROOT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, fname), "wb") as f:
        f.write(data)


def npy(arr, version):
    b = io.BytesIO()
    np.lib.format.write_array(b, arr, version=version)
    return b.getvalue()


def zstd(data, *args):
    return subprocess.run(["zstd", "-q", "-c", *args], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def skippable(payload, nibble=0):
    return struct.pack("<II", 0x184D2A50 | nibble, len(payload)) + payload


def payloads():
    a = np.arange(12, dtype="<f4").reshape(3, 4) / 3
    yield "npy1-f4-2d", npy(a, (1, 0))
    yield "npy2-be-i2", npy(np.arange(-5, 5, dtype=">i2"), (2, 0))
    yield "npy3-u1-3d", npy(np.arange(24, dtype="u1").reshape(2, 3, 4), (3, 0))
    yield "npy1-f8-scalar", npy(np.array(2.5, dtype="<f8"), (1, 0))
    yield "npy1-empty", npy(np.zeros((0, 3), dtype="<u8"), (1, 0))
    yield "npy1-f2", npy(np.linspace(0, 1, 7).astype("<f2"), (1, 0))
    img = bytes(range(12))
    yield "pgm8", b"P5\n4 3\n255\n" + img
    yield "pgm8-comments", b"P5 # a comment\n4\t3 #more\r255\n" + img
    yield "pgm16", b"P5\n2 3\n65535\n" + bytes(range(12))
    yield "ppm8", b"P6\n2 2\n200\n" + img
    yield "ppm16", b"P6 1 2 1000\n" + bytes(range(12))
    yield "pgm-two-images", b"P5\n2 2\n255\n" + img[:4] + b"\n\nP5 1 1 9\n" + b"\x07"
    yield "raw", bytes(range(0, 256, 3))
    yield "raw-P-not-pnm", b"P7 not a header"


def main():
    for name, data in payloads():
        put("input", name, b"\x00\x01\x80\x80\x80" + data)
        put("input", name + "-raw", b"\x01\x0d\x40\x80\xc0" + data)
        put("input", name + "-zst", b"\x00\x02\x80\x80\x80" + zstd(data))
        if name.startswith(("npy", "pgm", "ppm")):
            put("hdr", name, (b"\x00" if name.startswith("npy") else b"\x01") + data)
    big = npy(np.arange(3000, dtype="<u4"), (1, 0))
    put("input", "npy-zst-two-frames-pipe", b"\xc6\x05\x60\x00\x00" +
        zstd(big[:100]) + zstd(big[100:], "--no-check"))
    put("input", "zst-skippable", b"\x40\x03\x00\x00\x00" + skippable(b"meta", 7) +
        zstd(b"P5 3 1 255\nabc") + skippable(b""))
    put("input", "zst-truncated", b"\x00\x00\x00\x00\x00" + zstd(big)[:-9])
    put("input", "zst-name-three-ops", b"\x3c\x01\x40\x80\xc0" + zstd(big[:50]) +
        zstd(b"") + zstd(big[:200]))
    hdr_only = [
        b"\x93NUMPY\x01\x00\x46\x00{'descr': '<f4', 'fortran_order': True, 'shape': (10,), }" + b" " * 10 + b"\n",
        b"\x93NUMPY\x02\x00\x30\x00\x00\x00{\"shape\": (2L, 3L), \"fortran_order\": False, \"descr\": \"|u1\"}\n",
    ]
    for i, h in enumerate(hdr_only):
        put("hdr", "npy-hand-%d" % i, b"\x00" + h)
    opts = [
        b"-t\x00f32\x00--chunk-size\x0064MiB\x00-j\x002\x00file.f32\x00\x00\x00\x00\x00\x00\xf0\x3f",
        b"--type=<u8\x00-c\x003\x00--range\x00-1.5:2e3\x00--bins\x00100\x00--nonzero\x00a\x00b",
        b"-qvt\x00>i2\x00--endian\x00big\x00--format\x00json\x00-\x00--\x00-x\x00\x9a\x99\x99\x99\x99\x99\xb9\x3f",
        b"--streams=4\x00--device\x000\x00--backend\x00cpu\x00--raw\x00-ebfloat16\x00-o\x00out\x00x",
        b"-t\x00float64\x00--chunk-size\x001K\x00--chunk-size\x002TiB\x00--progress\x00--no-progress",
        b"--columns\x000\x00--threads\x0065\x00--bins\x00-1\x00--unknown\x00-Z",
        b"sum\x00prod\x00min\x00max\x00and\x00or\x00xor\x00half\x00=f2\x00|u1\x00\x00\x00\x00\x00\x00\x00\x00\x80",
    ]
    for i, o in enumerate(opts):
        put("opts", "args-%d" % i, o)
    rng = random.Random(5)
    for first in (0x00, 0x01, 0x02, 0x05, 0x0a, 0x12, 0x1e, 0x22, 0x41, 0x66):
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(64, 700)))
        put("stream", "plan-%02x" % first, bytes([first]) + body)


if __name__ == "__main__":
    main()
