#!/usr/bin/env python3
"""Prints how many pixels of a PNG are not white (8-bit RGB or RGBA, as
Chromium's screenshots are), and exits 1 if fewer than the share asked for:
`png-ink.py FILE MIN_SHARE`. Standard library only (zlib)."""

import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise SystemExit(f"{path}: only 8-bit RGB/RGBA, not interlaced")
    step = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * step
    previous = bytearray(stride)
    for y in range(height):
        row = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, line = row[0], bytearray(row[1:])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up = previous[i]
            corner = previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        yield from (tuple(line[i:i + 3]) for i in range(0, stride, step))
        previous = line


def main():
    path, share = sys.argv[1], float(sys.argv[2])
    total = ink = 0
    for rgb in pixels(path):
        total += 1
        ink += rgb != (255, 255, 255)
    print(f"{path}: {ink} of {total} pixels drawn ({100 * ink / total:.1f} %)")
    sys.exit(0 if ink >= share * total else 1)


if __name__ == "__main__":
    main()
