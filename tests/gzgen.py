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
