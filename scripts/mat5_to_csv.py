#!/usr/bin/python3
"""Write the numeric N x 1 fields of a MATLAB struct variable as CSV.

Used to derive validation data from cycler files published as .mat (the Kollmeyer
Panasonic 18650PF set stores one struct `meas` per test). Reads them with SciPy's
scipy.io.loadmat (Debian: python3-scipy).

usage: mat5_to_csv.py FILE.mat VARIABLE FIELD[=COLUMN] ... > out.csv
       mat5_to_csv.py FILE.mat VARIABLE            # list the fields
"""
import sys

import numpy as np
from scipy.io import loadmat


def die(msg):
    sys.stderr.write("mat5_to_csv: %s\n" % msg)
    sys.exit(2)


def column(value):
    """The field as a 1-D float array, or None when it is not a numeric column."""
    a = np.asarray(value)
    if a.dtype.kind not in "biuf" or a.ndim > 2 or (a.ndim == 2 and min(a.shape) != 1):
        return None
    return a.astype(float).ravel()


def main(argv):
    if len(argv) < 3:
        die("usage: mat5_to_csv.py FILE.mat VARIABLE [FIELD[=COLUMN] ...]")
    try:
        mat = loadmat(argv[1], simplify_cells=True)
    except (OSError, ValueError, NotImplementedError) as e:
        die("%s: %s" % (argv[1], e))
    var = mat.get(argv[2])
    if not isinstance(var, dict):
        die("%s: no struct variable '%s'" % (argv[1], argv[2]))
    if len(argv) == 3:
        for name, value in var.items():
            col = column(value)
            print("%s\t%s" % (name, "%d rows" % len(col) if col is not None else "not numeric"))
        return
    cols, heads = [], []
    for spec in argv[3:]:
        field, _, head = spec.partition("=")
        if field not in var:
            die("no field '%s' (has %s)" % (field, ", ".join(var)))
        col = column(var[field])
        if col is None:
            die("field '%s' is not a numeric column" % field)
        cols.append(col)
        heads.append(head or field)
    if any(len(c) != len(cols[0]) for c in cols):
        die("fields differ in length")
    out = sys.stdout
    out.write(",".join(heads) + "\n")
    for row in zip(*cols):
        out.write(",".join("%.10g" % x for x in row) + "\n")


if __name__ == "__main__":
    main(sys.argv)
