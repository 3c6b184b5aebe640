#!/usr/bin/env python3
"""gzgen.py - gzip files for tests/test_gzip.sh, written by Python's gzip and
zlib modules (a writer independent of gzip, pigz and bgzip), and what a test
needs to know about them.

  gzgen.py members RAW OUT     RAW as several members: Python's gzip, an
                               empty member, one with FNAME, FCOMMENT, FHCRC
                               and an extra field, a stored (level 0) one
  gzgen.py bgzf RAW OUT        RAW as BGZF blocks built here: blocks of odd
                               sizes up to 64 KiB, empty ones, levels 0 to 9,
                               a subfield before 'BC', the EOF block
  gzgen.py flags RAW OUT [bad] RAW as one member with every optional header
                               field, each long: an extra field of 65535
                               bytes and a name of 300000 (past a read's
                               128 KiB); bad: a wrong FHCRC. Prints where
                               its header's parts begin: XLEN, the extra
                               field, FNAME, FCOMMENT, FHCRC, the data
  gzgen.py fakes N OUT         N bytes holding whole gzip members (of a
                               few bytes each) between random bytes: as
                               a stored member's data they put member
                               headers, and members that decode, in the
                               compressed bytes of another
  gzgen.py many RAW OUT        RAW as many members of odd sizes (empty ones,
                               a byte, KiB, MiB), levels 0 (stored) to 9,
                               with and without FNAME, FCOMMENT, FEXTRA and
                               FHCRC
  gzgen.py bound OUT RAW       members of zeros of 32 MiB - 1, 32 MiB and
                               32 MiB + 1 (a span's bound: gzmembers.h),
                               random ones between them; RAW gets the data
  gzgen.py straddle OUT RAW    stored members of random bytes laid so that
                               at each multiple of 64 KiB (a span's least
                               size: gzmembers.c) a member header, one with
                               every optional field or an empty member
                               begins a few bytes before, at or after it,
                               or a trailer ends 3 bytes past it; RAW gets
                               the data
  gzgen.py pieces FILE AT...   FILE to stdout, cut at each AT with a pause
  gzgen.py starts FILE         where each member of FILE begins, one a line
                               (walked by inflating each member)
  gzgen.py flip FILE OUT AT    FILE with the byte at AT inverted
  gzgen.py lie FILE OUT K      BGZF FILE with its K'th block (from 0)
                               claiming in its 'BC' subfield 28 bytes more
                               than it holds, an empty block after it: gzip
                               reads two members, a BGZF reader one block
                               that does not inflate
"""
import gzip
import random
import struct
import sys
import time
import zlib


def deflate(data, level):
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def trailer(data):
    return struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def member_flags(data, extra=b"ab" + struct.pack("<H", 3) + b"xyz",
                 name=b"name.f32", comment=b"a comment", bad=False):
    """A member with every optional header field (RFC 1952, 2.3.1), and
    where each of the header's parts begins."""
    head = bytes([0x1F, 0x8B, 8, 0x04 | 0x08 | 0x10 | 0x02]) + \
        struct.pack("<I", 1234567) + bytes([0, 3])
    parts = [len(head), len(head) + 2]
    head += struct.pack("<H", len(extra)) + extra
    parts.append(len(head))
    head += name + b"\0"
    parts.append(len(head))
    head += comment + b"\0"
    parts.append(len(head))
    head += struct.pack("<H", (zlib.crc32(head) ^ bad) & 0xFFFF)
    parts.append(len(head))
    return head + deflate(data, 6) + trailer(data), parts


def members(raw):
    n = len(raw)
    cut = [0, n // 7, n // 7, n // 2, n // 2 + 12345, n]
    out = gzip.compress(raw[cut[0]:cut[1]], mtime=0)
    out += gzip.compress(b"", mtime=0)
    out += member_flags(raw[cut[2]:cut[3]])[0]
    out += gzip.compress(raw[cut[3]:cut[4]], compresslevel=0, mtime=0)
    out += gzip.compress(raw[cut[4]:cut[5]], compresslevel=9, mtime=0)
    return out


def bgzf_block(data, level, pre=b""):
    """One BGZF block; pre: subfields before 'BC'."""
    body = deflate(data, level)
    xlen = len(pre) + 6
    size = 12 + xlen + len(body) + 8
    assert size <= 65536
    head = bytes([0x1F, 0x8B, 8, 4, 0, 0, 0, 0, 0, 0xFF]) + struct.pack("<H", xlen)
    head += pre + b"BC" + struct.pack("<HH", 2, size - 1)
    return head + body + trailer(data)


def bgzf(raw):
    rng = random.Random(29)
    out, at = b"", 0
    while at < len(raw):
        k = rng.choice([1, 777, 4096, 30000, 65280, rng.randrange(1, 65281)])
        level = rng.choice([0, 1, 6, 9])
        pre = rng.choice([b"", b"XY\x02\x00hi"])
        piece = raw[at:at + k]
        if level == 0 and len(piece) > 65000:
            piece = piece[:65000]	# stored: a few bytes of overhead
        out += bgzf_block(piece, level, pre)
        at += len(piece)
        if rng.random() < 0.05:
            out += bgzf_block(b"", 6)
    return out + bgzf_block(b"", 6)	# bgzip's EOF block


def fakes(n):
    rng = random.Random(8)
    out = bytearray()
    while len(out) < n:
        out += rng.randbytes(rng.randrange(0, 3000))
        out += gzip.compress(rng.randbytes(rng.randrange(0, 9)), mtime=0)
    return bytes(out[:n])


def member(data, rng):
    """data as one member, with a random level and header."""
    level = rng.choice([0, 0, 1, 6, 9])
    if rng.random() < 0.5:
        return gzip.compress(data, compresslevel=level, mtime=rng.randrange(2**32))
    extra = b"zz" + struct.pack("<H", 2) + b"ok" if rng.random() < 0.5 else b""
    flg = (0x04 if extra else 0) | rng.choice([0, 0x08]) | rng.choice([0, 0x10])
    flg |= rng.choice([0, 0x02])
    head = bytes([0x1F, 0x8B, 8, flg, 1, 2, 3, 4, 0, 255])
    if extra:
        head += struct.pack("<H", len(extra)) + extra
    if flg & 0x08:
        head += b"piece.bin\0"
    if flg & 0x10:
        head += b"a comment\0"
    if flg & 0x02:
        head += struct.pack("<H", zlib.crc32(head) & 0xFFFF)
    return head + deflate(data, level) + trailer(data)


def many(raw):
    rng = random.Random(30)
    out, at = bytearray(), 0
    while at < len(raw):
        k = rng.choice([0, 1, 100, 4096, 65536, 300000, rng.randrange(1, 900000)])
        out += member(raw[at:at + k], rng)
        at += k
    return bytes(out)


def bound(raw_out):
    rng = random.Random(31)
    out, raw = bytearray(), open(raw_out, "wb")
    for zeros in [(32 << 20) - 1, 32 << 20, (32 << 20) + 1]:
        for data in [rng.randbytes(rng.randrange(1, 700000)), bytes(zeros)]:
            out += gzip.compress(data, compresslevel=1, mtime=0)
            raw.write(data)
    data = rng.randbytes(500000)
    raw.write(data)
    return bytes(out + gzip.compress(data, mtime=0))


def straddle(raw_out):
    rng = random.Random(32)
    out, raw = bytearray(), open(raw_out, "wb")

    def put(data, flg=0, level=0):
        head = bytes([0x1F, 0x8B, 8, flg, 0, 0, 0, 0, 0, 255])
        if flg & 0x04:
            head += struct.pack("<H", 4) + b"ab\0\0"
        if flg & 0x08:
            head += b"nm\0"
        if flg & 0x10:
            head += b"cm\0"
        if flg & 0x02:
            head += struct.pack("<H", zlib.crc32(head) & 0xFFFF)
        out.extend(head + deflate(data, level) + trailer(data))
        raw.write(data)

    def pad_to(pos):	# stored members of random bytes, 23 bytes more
        while len(out) < pos:
            need = pos - len(out)
            k = min(need - 23, 30000)
            if need - 23 - k < 100 and need - 23 != k:
                k -= 200
            put(rng.randbytes(k))
        assert len(out) == pos

    for i, (delta, flg) in enumerate([(-3, 0x0E), (-1, 0), (0, 0), (1, 0x1E),
                                      (-9, 0x02), (-10, 0x0C), (3, None),
                                      (-2, 0x1E)]):
        at = (64 << 10) * (i + 1) + delta
        if flg is None:	# a member whose trailer ends at
            pad_to(at - 500)
            put(rng.randbytes(500 - 23))
            continue
        pad_to(at)
        if i % 2:
            put(b"", flg)
        put(rng.randbytes(rng.randrange(1, 5000)), flg, rng.choice([0, 6]))
    pad_to((64 << 10) * 10 + 1000)
    return bytes(out)


def starts(data):
    at, res = 0, []
    while at < len(data):
        res.append(at)
        d = zlib.decompressobj(31)
        d.decompress(data[at:])
        at = len(data) - len(d.unused_data)
    return res


def bc_field(data, at):
    """Where the 'BC' subfield of the BGZF block at `at` begins."""
    xlen = struct.unpack_from("<H", data, at + 10)[0]
    sub = at + 12
    while data[sub:sub + 2] != b"BC":
        sub += 4 + struct.unpack_from("<H", data, sub + 2)[0]
        assert sub < at + 12 + xlen
    return sub


def lie(data, k):
    at = 0
    for _ in range(k):
        at += struct.unpack_from("<H", data, bc_field(data, at) + 4)[0] + 1
    sub = bc_field(data, at)
    size = struct.unpack_from("<H", data, sub + 4)[0] + 1
    out = bytearray(data[:at + size]) + bgzf_block(b"", 6) + data[at + size:]
    struct.pack_into("<H", out, sub + 4, size + 28 - 1)
    return bytes(out)


def main():
    cmd = sys.argv[1]
    if cmd in ("members", "bgzf"):
        raw = open(sys.argv[2], "rb").read()
        open(sys.argv[3], "wb").write(members(raw) if cmd == "members" else bgzf(raw))
    elif cmd == "fakes":
        open(sys.argv[3], "wb").write(fakes(int(sys.argv[2])))
    elif cmd == "many":
        raw = open(sys.argv[2], "rb").read()
        open(sys.argv[3], "wb").write(many(raw))
    elif cmd == "straddle":
        open(sys.argv[2], "wb").write(straddle(sys.argv[3]))
    elif cmd == "bound":
        open(sys.argv[2], "wb").write(bound(sys.argv[3]))
    elif cmd == "flags":
        raw = open(sys.argv[2], "rb").read()
        rng = random.Random(29)
        extra = bytes(rng.randrange(256) for _ in range(65535))
        name = bytes(rng.randrange(1, 256) for _ in range(300000))
        out, parts = member_flags(raw, extra, name, b"x" * 1000,
                                  len(sys.argv) > 4)
        open(sys.argv[3], "wb").write(out)
        print(" ".join(str(p) for p in parts))
    elif cmd == "pieces":
        d = open(sys.argv[2], "rb").read()
        at = 0
        try:
            for cut in [int(a) for a in sys.argv[3:]] + [len(d)]:
                sys.stdout.buffer.write(d[at:cut])
                sys.stdout.buffer.flush()
                time.sleep(0.05)
                at = cut
        except BrokenPipeError:     # the reader stopped at an error
            sys.stderr.close()
    elif cmd == "starts":
        print("\n".join(str(s) for s in starts(open(sys.argv[2], "rb").read())))
    elif cmd == "flip":
        d = bytearray(open(sys.argv[2], "rb").read())
        d[int(sys.argv[4])] ^= 0xFF
        open(sys.argv[3], "wb").write(d)
    elif cmd == "lie":
        d = open(sys.argv[2], "rb").read()
        open(sys.argv[3], "wb").write(lie(d, int(sys.argv[4])))


main()
