"""A sweep's rows through the library's engine (sits_sweep), one job's share."""

import os
import tempfile

from ._lib import ffi, lib, libc


def _check(rc, err):
    if rc:
        from . import _raise  # the package's error type (imported late: it imports this)
        _raise(rc, err)


def run_rows(config_text, specs, dists, sample, method, seed, job, jobs, out_path):
    """Rows idx % jobs == job of the sweep of `config_text` (the scenario's merged text, file
    names absolute) over `specs` ("KEY=V1,V2" / "KEY=A:B:N") and, with `sample`, `dists`
    ("KEY=uniform(a,b)") into the CSV `out_path` (header first). Returns the row count."""
    err = ffi.new("sits_err *")
    with tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False) as f:
        f.write(config_text)
        cfg = f.name
    s = ffi.NULL
    fh = ffi.NULL
    try:
        path_c = ffi.new("char[]", os.fsencode(cfg))  # borrowed by the sweep: kept alive
        s = lib.sits_sweep_new(path_c, ffi.NULL, 0, err)
        if s == ffi.NULL:
            _check(err.code or -2, err)
        keep = []
        for spec in specs:
            keep.append(ffi.new("char[]", spec.encode()))
            _check(lib.sits_sweep_vary(s, keep[-1], err), err)
        for spec in dists:
            keep.append(ffi.new("char[]", spec.encode()))
            _check(lib.sits_sweep_dist(s, keep[-1], err), err)
        if sample:
            _check(lib.sits_sweep_sample(s, int(sample), method.encode(), int(seed), err), err)
        fh = libc.fopen(os.fsencode(out_path), b"w")
        if fh == ffi.NULL:
            _check(-4, err)
        lib.sits_sweep_write_header(s, fh)
        violated = ffi.new("_Bool *")
        rows = 0
        for idx in range(job, lib.sits_sweep_count(s), jobs):
            rc = lib.sits_sweep_run_row(s, idx, fh, violated)
            if rc == -4:  # the row could not be written (other failures are in the row)
                _check(rc, err)
            rows += 1
        return rows
    finally:
        if fh != ffi.NULL:
            libc.fclose(fh)
        if s != ffi.NULL:
            lib.sits_sweep_free(s)
        os.unlink(cfg)
