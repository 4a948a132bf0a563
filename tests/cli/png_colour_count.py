#!/usr/bin/env python3
"""Counts the pixels of exact colours in an 8-bit RGB/RGBA PNG (what gnuplot's pngcairo
writes): png_colour_count.py FILE.png RRGGBB... Prints the counts, one line, in that order;
png_colour_count.py --x-extent FILE.png Y0 Y1 RRGGBB prints the first and last column of that
colour in rows Y0..Y1-1 (-1 -1: none). Standard library only (zlib),
so that a plot test can check what a plot shows, not only that gnuplot accepted it."""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise SystemExit(f"{path}: not 8-bit RGB/RGBA non-interlaced")
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, None, []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):  # undo the row's filter (PNG spec, section 9)
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i] if prev else 0
            c = prev[i - bpp] if prev and i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        rows.append(line)
    return rows, bpp


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--x-extent":  # --x-extent FILE Y0 Y1 RRGGBB
        rows, bpp = pixels(sys.argv[2])
        want, xs = bytes.fromhex(sys.argv[5]), []
        for r in rows[int(sys.argv[3]):int(sys.argv[4])]:
            xs += [x // bpp for x in range(0, len(r), bpp) if bytes(r[x:x + 3]) == want]
        print(f"{min(xs)} {max(xs)}" if xs else "-1 -1")  # the colour's columns in those rows
        sys.exit(0)
    rows, bpp = pixels(sys.argv[1])
    count = {bytes.fromhex(c): 0 for c in sys.argv[2:]}
    for r in rows:
        for x in range(0, len(r), bpp):
            px = bytes(r[x:x + 3])
            if px in count:
                count[px] += 1
    print(" ".join(str(count[bytes.fromhex(c)]) for c in sys.argv[2:]))
