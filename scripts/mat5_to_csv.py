#!/usr/bin/env python3
"""Write the numeric N x 1 fields of a MATLAB v5 struct variable as CSV.

Used to derive validation data from cycler files published as .mat (the
Kollmeyer Panasonic 18650PF set stores one struct `meas` per test). Standard
library only: MAT v5 is a sequence of tagged elements (zlib-compressed at the
top level), a struct is a matrix whose fields are matrices in turn.

usage: mat5_to_csv.py FILE.mat VARIABLE FIELD[=COLUMN] ... > out.csv
       mat5_to_csv.py FILE.mat VARIABLE            # list the fields
"""
import struct
import sys
import zlib

MI_INT8, MI_UINT8, MI_INT16, MI_UINT16, MI_INT32, MI_UINT32 = 1, 2, 3, 4, 5, 6
MI_SINGLE, MI_DOUBLE, MI_INT64, MI_UINT64 = 7, 9, 12, 13
MI_MATRIX, MI_COMPRESSED = 14, 15
MX_STRUCT, MX_DOUBLE = 2, 6
NUMERIC = {MI_INT8: "b", MI_UINT8: "B", MI_INT16: "h", MI_UINT16: "H",
           MI_INT32: "i", MI_UINT32: "I", MI_SINGLE: "f", MI_DOUBLE: "d",
           MI_INT64: "q", MI_UINT64: "Q"}


def die(msg):
    sys.stderr.write("mat5_to_csv: %s\n" % msg)
    sys.exit(2)


def elements(buf, top=False):
    """Yield (type, payload) of the tagged elements in buf."""
    pos = 0
    while pos + 8 <= len(buf):
        tag = struct.unpack_from("<I", buf, pos)[0]
        if tag >> 16:  # small element: size in the upper half, data in the tag
            yield tag & 0xFFFF, buf[pos + 4:pos + 4 + (tag >> 16)]
            pos += 8
            continue
        size = struct.unpack_from("<I", buf, pos + 4)[0]
        start = pos + 8
        if start + size > len(buf):
            die("truncated element (type %d, %d bytes)" % (tag, size))
        yield tag, buf[start:start + size]
        pos = start + (size if top and tag == MI_COMPRESSED else (size + 7) // 8 * 8)


def matrix(payload):
    parts = list(elements(payload))
    if len(parts) < 3:
        return None
    flags = struct.unpack_from("<I", parts[0][1])[0]
    dims = struct.unpack("<%di" % (len(parts[1][1]) // 4), parts[1][1])
    out = {"class": flags & 0xFF, "dims": dims, "name": parts[2][1].decode("ascii"),
           "rest": parts[3:]}
    if out["class"] == MX_STRUCT:
        rest = out["rest"]
        width = struct.unpack("<i", rest[0][1])[0]
        raw = rest[1][1]
        names = [raw[i:i + width].split(b"\0", 1)[0].decode("ascii")
                 for i in range(0, len(raw), width)]
        out["fields"] = dict(zip(names, (p for t, p in rest[2:])))
        out["order"] = names
    return out


def column(payload):
    m = matrix(payload)
    if m is None or not m["rest"]:
        return None
    kind, data = m["rest"][0]
    code = NUMERIC.get(kind)
    if code is None or len(m["dims"]) != 2 or min(m["dims"]) != 1:
        return None
    n = len(data) // struct.calcsize(code)
    return [float(v) for v in struct.unpack("<%d%s" % (n, code), data[:n * struct.calcsize(code)])]


def main(argv):
    if len(argv) < 3:
        die("usage: mat5_to_csv.py FILE.mat VARIABLE [FIELD[=COLUMN] ...]")
    raw = open(argv[1], "rb").read()
    if len(raw) < 128 or not raw.startswith(b"MATLAB 5.0 MAT-file") or raw[126:128] != b"IM":
        die("%s: not a little-endian MATLAB 5.0 MAT-file" % argv[1])
    var = None
    for kind, payload in elements(raw[128:], top=True):
        if kind == MI_COMPRESSED:
            payload = zlib.decompress(payload)
            kind, payload = next(elements(payload))
        if kind == MI_MATRIX:
            m = matrix(payload)
            if m and m["name"] == argv[2]:
                var = m
                break
    if var is None or var["class"] != MX_STRUCT:
        die("%s: no struct variable '%s'" % (argv[1], argv[2]))
    if len(argv) == 3:
        for name in var["order"]:
            col = column(var["fields"][name])
            print("%s\t%s" % (name, "%d rows" % len(col) if col is not None else "not numeric"))
        return
    cols, heads = [], []
    for spec in argv[3:]:
        field, _, head = spec.partition("=")
        if field not in var["fields"]:
            die("no field '%s' (has %s)" % (field, ", ".join(var["order"])))
        col = column(var["fields"][field])
        if col is None:
            die("field '%s' is not a numeric column" % field)
        cols.append(col)
        heads.append(head or field)
    n = len(cols[0])
    if any(len(c) != n for c in cols):
        die("fields differ in length")
    out = sys.stdout
    out.write(",".join(heads) + "\n")
    for i in range(n):
        out.write(",".join("%.10g" % c[i] for c in cols) + "\n")


if __name__ == "__main__":
    main(sys.argv)
