#!/usr/bin/env python3
"""png-shrink.py IN.png OUT.png: an 8-bit RGB(A) PNG as a 256-colour
palette PNG, for docs/report.png (tools/report-picture).  Chromium draws a
report in some thousand colours, nearly all the anti-aliased edges of
text; the 256 most frequent are kept and each other colour is drawn as the
nearest of them, which keeps the text sharp at a third of the bytes.
Standard library only (zlib), so that no imaging package is needed."""
import struct
import sys
import zlib
from collections import Counter


def read(path):
    d = open(path, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    i, idat = 8, b""
    while i < len(d):
        n, t = struct.unpack(">I4s", d[i:i + 8])
        if t == b"IHDR":
            w, h, depth, ctype, _, _, lace = struct.unpack(">IIBBBBB", d[i + 8:i + 21])
        elif t == b"IDAT":
            idat += d[i + 8:i + 8 + n]
        i += n + 12
    assert depth == 8 and ctype in (2, 6) and lace == 0, "not 8-bit RGB(A)"
    return w, h, 3 if ctype == 2 else 4, zlib.decompress(idat)


def unfilter(w, h, bpp, raw):
    """The rows' bytes, each of PNG's five filters undone."""
    stride, rows, prev = w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + ((a + b) >> 1)) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else
                                      b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return rows


def chunk(t, b):
    return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b))


def main():
    w, h, bpp, raw = read(sys.argv[1])
    rows = unfilter(w, h, bpp, raw)
    px = [r[x:x + 3] for r in rows for x in range(0, w * bpp, bpp)]
    count = Counter(px)
    pal = [c for c, _ in count.most_common(256)]
    index = {c: k for k, c in enumerate(pal)}
    for c in count:
        if c not in index:
            index[c] = min(range(len(pal)), key=lambda k: sum(
                (pal[k][j] - c[j]) ** 2 for j in range(3)))
    out = bytearray()
    for y in range(h):
        out.append(0)
        out += bytes(index[px[y * w + x]] for x in range(w))
    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0))
    png += chunk(b"PLTE", b"".join(pal))
    png += chunk(b"IDAT", zlib.compress(bytes(out), 9)) + chunk(b"IEND", b"")
    open(sys.argv[2], "wb").write(png)


if __name__ == "__main__":
    main()
