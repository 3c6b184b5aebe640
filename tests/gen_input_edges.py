#!/usr/bin/env python3
"""gen_input_edges.py - fixtures/input/ for tests/test_input_edges.sh ("trust
at the edges": plain Netpbm, formats gpustat refuses, maxval, numpy's
rules for .npy, zstd window limits).

Inputs are written by numpy, Python's gzip/bz2/lzma and the zstd CLI, or byte
by byte where no library writes them (plain PGM/PPM, refused magics); every
expected output (NAME.out) is computed here by numpy, never by gpustat.
Run from the repository root; the files are committed, so the test needs
neither numpy nor zstd.
"""
import bz2
import gzip
import io
import lzma
import os
import subprocess

import numpy as np

D = "fixtures/input"
rng = np.random.default_rng(13)


def put(name, data):
    with open(os.path.join(D, name), "wb") as f:
        f.write(data)


def out(name, text):
    with open(os.path.join(D, name + ".out"), "w") as f:
        f.write(text)


def hist_text(a, nbins):
    counts = np.bincount(a.ravel().astype(np.int64), minlength=nbins)
    return "".join("%d\t%d\n" % (v, c) for v, c in enumerate(counts))


def sums_text(cols):
    return "\t".join(str(int(x)) for x in cols) + "\n"


def plain(magic, w, h, maxval, samples):
    """A plain Netpbm file with comments and uneven white space."""
    s = "%s\n# made by gen_input_edges.py\n%d %d\n%d\n" % (magic, w, h, maxval)
    for i, v in enumerate(samples.ravel()):
        s += str(int(v)) + ("\n" if i % 7 == 6 else "  " if i % 5 else " # c\n")
    return s.encode()


def netpbm():
    img = rng.integers(0, 256, size=(5, 7), dtype=np.uint8)
    put("img.pgm", b"P5 7 5 255\n" + img.tobytes())
    put("img_plain.pgm", plain("P2", 7, 5, 255, img))
    out("img_hist", hist_text(img, 256))
    w16 = rng.integers(0, 1001, size=(3, 4), dtype=np.uint16)
    put("img16_plain.pgm", plain("P2", 4, 3, 1000, w16))
    out("img16_sum", sums_text([w16.astype(np.int64).sum()]))
    rgb = rng.integers(0, 256, size=(4, 3, 3), dtype=np.uint8)
    put("rgb_plain.ppm", plain("P3", 3, 4, 255, rgb))
    out("rgb_sum", sums_text(rgb.reshape(-1, 3).astype(np.int64).sum(axis=0)))
    put("short_plain.pgm", b"P2 3 2 255\n1 2 3\n4 5\n")
    put("long_plain.pgm", b"P2 2 1 255\n1 2 3\n")
    put("over_plain.pgm", b"P2 2 1 100\n100 101\n")
    put("bad_plain.pgm", b"P2 2 1 255\n1 2.5\n")
    # binary samples above maxval: 8-bit at byte 13, 16-bit at byte 14
    put("over8.pgm", b"P5 3 1 100\n" + bytes([0, 100, 101]))
    put("over16.pgm", b"P5 2 1 1000\n" + np.array([1000, 1001], ">u2").tobytes())


def foreign():
    payload = bytes(range(200)) * 3
    put("data.gz", gzip.compress(payload, mtime=0))
    put("data.bz2", bz2.compress(payload))
    put("data.xz", lzma.compress(payload))
    put("data.lz4", b"\x04\x22\x4d\x18\x64\x40\xa7" + payload[:40])
    put("img.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" + payload[:40])
    put("img.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + payload[:40])
    put("bits_plain.pbm", b"P1\n2 2\n0 1\n1 0\n")
    put("bits.pbm", b"P4\n8 1\n\xa5")
    put("img.pam", b"P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\n"
        b"TUPLTYPE GRAYSCALE\nENDHDR\n\x07")
    put("img.pfm", b"PF\n1 1\n-1.0\n" + np.array([1, 2, 3], "<f4").tobytes())
    out("gz_raw_sum", sums_text([np.frombuffer(
        open(os.path.join(D, "data.gz"), "rb").read(), np.uint8).astype(np.int64).sum()]))


def npy_file(dict_text, payload):
    """A v1.0 .npy with this header text, padded as numpy pads."""
    hl = (10 + len(dict_text) + 1 + 63) // 64 * 64
    head = dict_text.encode("latin1").ljust(hl - 10 - 1) + b"\n"
    return b"\x93NUMPY\x01\x00" + (hl - 10).to_bytes(2, "little") + head + payload


def npy():
    put("nul_descr.npy", npy_file("{'descr': '<f8\0', 'fortran_order': False, "
                                  "'shape': (1,), }", np.ones(1).tobytes()))
    put("int_shape.npy", npy_file("{'descr': '<f8', 'fortran_order': False, "
                                  "'shape': (2), }", np.ones(2).tobytes()))
    for name in ("nul_descr.npy", "int_shape.npy"):
        try:
            np.load(os.path.join(D, name))
        except ValueError:
            pass
        else:
            raise SystemExit(name + ": numpy reads it")
    b = rng.integers(0, 2, size=50).astype(bool)
    f = io.BytesIO()
    np.save(f, b)
    data = bytearray(f.getvalue())
    data[-1], data[-2], data[-3] = 2, 255, 0   # raw bytes numpy reads as bools
    put("bool.npy", bytes(data))
    loaded = np.load(os.path.join(D, "bool.npy"))
    out("bool_sum", sums_text([loaded.sum()]))
    out("bool_hist", hist_text(loaded.astype(np.uint8), 256))
    put("wide.npy", npy_file("{'descr': '<f8', 'fortran_order': False, "
                             "'shape': (1, 2097152), }", b""))
    # np.save(f, a.T) writes Fortran order; 5000 rows span two batches
    a = rng.integers(-1000, 1000, size=(3, 5000), dtype=np.int32)
    np.save(os.path.join(D, "fortran2d.npy"), a.T)
    assert np.load(os.path.join(D, "fortran2d.npy")).flags.f_contiguous
    out("fortran2d_sum", sums_text(a.T.astype(np.int64).sum(axis=0)))
    put("fortran2d_scan.bin", np.cumsum(a.T.astype(np.int64), axis=0).astype("<i8").tobytes())
    c = np.asfortranarray(rng.integers(0, 100, size=(5, 2, 3), dtype=np.uint16))
    np.save(os.path.join(D, "fortran3d.npy"), c)
    out("fortran3d_sum", sums_text(c.reshape(5, 6).astype(np.int64).sum(axis=0)))
    put("fortran2d.npy.zst", subprocess.run(
        ["zstd", "-q", "-c", os.path.join(D, "fortran2d.npy")],
        check=True, stdout=subprocess.PIPE).stdout)


def zstd_windows():
    v = rng.integers(-30000, 30000, size=12000, dtype=np.int16) // 64
    raw = v.astype("<i2").tobytes()
    out("win_sum", sums_text([v.astype(np.int64).sum()]))
    for wlog in (27, 28, 31):
        z = subprocess.run(["zstd", "-q", "-c", "--long=%d" % wlog],
                           input=raw, check=True, stdout=subprocess.PIPE).stdout
        # the frame keeps the window asked for (no content size to shrink it)
        assert z[4] & 0x20 == 0 and 10 + (z[5] >> 3) == wlog, (wlog, z[:6])
        put("win%d.zst" % wlog, z)


def main():
    os.makedirs(D, exist_ok=True)
    netpbm()
    foreign()
    npy()
    zstd_windows()


if __name__ == "__main__":
    main()
