#!/usr/bin/env python3
"""The layout of a screenshot, coarse enough that fonts do not matter.

    layout.py grid SHOT.png          print the grid of SHOT.png
    layout.py compare REF SHOT.png   compare SHOT.png with the grid in REF

The screenshot (a PNG, 8 bits a channel, not interlaced: what headless
Chromium writes) is cut into cells of CELL x CELL pixels; a cell is ink
('#') when enough of its pixels differ from the white of the page, shade
('+') when most of them are a light colour (the background of a block of
code, a box), and blank ('.') otherwise.  The grid is a few lines of text that a test keeps
beside itself.

compare exits 0 when the shot's grid matches REF and 1 otherwise,
printing the grid with each cell that does not match marked 'X'.  A cell
matches when it is what REF says, or what a neighbour of it in REF says:
a line of text a few pixels longer or lower under another font moves the
edge of a region by a cell, not a region.  A region that is missing,
empty, moved or drawn over another leaves cells inside it wrong, and
more than --tolerance of them fail the comparison.
"""
import struct
import sys
import zlib

CELL = 30
# a pixel is ink when a channel is this far from white (255)
INK_LEVEL = 60
# a cell is ink when this share of its pixels is
INK_SHARE = 0.02
# a pixel is shade when a channel is off white, but less than ink; a
# cell is shade when this share of its pixels is
SHADE_LEVEL = 6
SHADE_SHARE = 0.4


def read_png(path):
    """(width, height, rows): rows a list of bytes of RGB pixels."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("error: '%s' is not a PNG" % path)
    pos, idat, head = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if not head:
        sys.exit("error: '%s' has no IHDR chunk" % path)
    width, height, depth, colour, _, _, interlace = head
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or not channels or interlace:
        sys.exit("error: '%s': only 8-bit grey, RGB or RGBA PNGs without "
                 "interlacing are read (depth %d, colour type %d, interlace %d)"
                 % (path, depth, colour, interlace))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
            elif kind != 0:
                sys.exit("error: '%s': row %d has filter type %d" % (path, y, kind))
        rows.append(bytes(line))
        prev = line
    if channels < 3:
        rows = [bytes(v for p in range(0, stride, channels) for v in (r[p],) * 3)
                for r in rows]
    elif channels == 4:
        rows = [bytes(v for p in range(0, stride, 4) for v in r[p:p + 3]) for r in rows]
    return width, height, rows


def grid(path):
    width, height, rows = read_png(path)
    cols, lines = width // CELL, height // CELL
    ink = [[0] * cols for _ in range(lines)]
    shade = [[0] * cols for _ in range(lines)]
    for y in range(lines * CELL):
        row, inks, shades = rows[y], ink[y // CELL], shade[y // CELL]
        for x in range(cols * CELL):
            p = 3 * x
            v = min(row[p], row[p + 1], row[p + 2])
            if v < 255 - INK_LEVEL:
                inks[x // CELL] += 1
            elif v < 255 - SHADE_LEVEL:
                shades[x // CELL] += 1
    need, shaded = INK_SHARE * CELL * CELL, SHADE_SHARE * CELL * CELL
    return ["".join("#" if n >= need else "+" if m >= shaded else "."
                    for n, m in zip(a, b)) for a, b in zip(ink, shade)]


def compare(ref, shot, tolerance):
    if len(ref) != len(shot) or any(len(a) != len(b) for a, b in zip(ref, shot)):
        print("the shot is %dx%d cells, the reference %dx%d"
              % (len(shot[0]) if shot else 0, len(shot), len(ref[0]) if ref else 0, len(ref)))
        return 1
    marked, wrong = [], 0
    for y, line in enumerate(shot):
        out = []
        for x, v in enumerate(line):
            near = {ref[j][i] for j in range(max(0, y - 1), min(len(ref), y + 2))
                    for i in range(max(0, x - 1), min(len(line), x + 2))}
            if v == ref[y][x] or v in near:
                out.append(v)
            else:
                out.append("X")
                wrong += 1
        marked.append("".join(out))
    cells = len(ref) * len(ref[0])
    print("%d of %d cells do not match the reference (at most %d may)" % (wrong, cells, tolerance))
    if wrong > tolerance:
        print("\n".join(marked))
        return 1
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "grid":
        print("\n".join(grid(argv[2])))
        return 0
    if len(argv) in (4, 5) and argv[1] == "compare":
        tolerance = int(argv[4]) if len(argv) == 5 else 12
        with open(argv[2], encoding="utf-8") as f:
            ref = [l.rstrip("\n") for l in f if l.strip() and not l.startswith(";")]
        return compare(ref, grid(argv[3]), tolerance)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
