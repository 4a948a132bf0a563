#!/usr/bin/env python3
"""nvml_phased_capture.py - a phased GPU load captured through the runtime hook library.

The workload marks its own phases: this script loads libsits_rt (ctypes), opens its NVML
source (and sysfs, unless --no-sysfs), declares one phase column per load level, and samples
at --period-ms on one thread; the load runs on the main thread and tells the sampler which
phase it is in, so the library is used from one thread only, as sits_rt.h asks.

The load: back-to-back N x N bf16 matrix products (PyTorch, CUDA) for `duty` of every 0.5 s,
idle the rest. The pattern is a list of SECONDS:DUTY steps.

    python3 nvml_phased_capture.py --lib build/libsits_rt.so -o trace.csv \
        --pattern 15:0,30:0.25,45:1,20:0,40:0.75,10:1,10:0,10:1,10:0,30:0

The CSV is the normalised trace (sits_trace.h): time_s, power_w.gpu*, temp_c.gpu*, ...,
phase.dutyNNN; `sitsenergy replay`/`calibrate` read it as it is.
"""
import argparse
import ctypes
import sys
import threading
import time


class Err(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char * 512)]


class Opts(ctypes.Structure):
    _fields_ = [("sysfs_root", ctypes.c_char_p), ("no_sysfs", ctypes.c_int),
                ("nvml", ctypes.c_int), ("nvml_library", ctypes.c_char_p)]


def load_rt(path):
    rt = ctypes.CDLL(path)
    rt.sits_rt_open.restype = ctypes.c_void_p
    rt.sits_rt_open.argtypes = [ctypes.POINTER(Opts), ctypes.POINTER(Err)]
    rt.sits_rt_free.argtypes = [ctypes.c_void_p]
    rt.sits_rt_column_count.restype = ctypes.c_size_t
    rt.sits_rt_column_count.argtypes = [ctypes.c_void_p]
    rt.sits_rt_column_name.restype = ctypes.c_char_p
    rt.sits_rt_column_name.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    rt.sits_rt_gpu_count.restype = ctypes.c_size_t
    rt.sits_rt_gpu_count.argtypes = [ctypes.c_void_p]
    for fn in ("sits_rt_add_phase", "sits_rt_phase_begin", "sits_rt_phase_end"):
        getattr(rt, fn).argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(Err)]
    rt.sits_rt_sample.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double),
                                  ctypes.POINTER(ctypes.c_double), ctypes.POINTER(Err)]
    return rt


def label(duty):
    return "duty%03d" % round(duty * 100)


def sampler(rt, h, out, period, state, done):
    """One thread owns the library: it moves the phase marks to what the load says, then
    samples and writes a row, every period on the monotonic clock."""
    n = rt.sits_rt_column_count(h)
    names = [rt.sits_rt_column_name(h, k).decode() for k in range(n)]
    out.write("time_s," + ",".join(names) + "\n")
    vals = (ctypes.c_double * n)()
    t = ctypes.c_double()
    err = Err()
    open_phase = None
    nxt = time.monotonic()
    while not done.is_set():
        want = state["phase"]
        if want != open_phase:
            if open_phase:
                rt.sits_rt_phase_end(h, open_phase.encode(), ctypes.byref(err))
            if want:
                rt.sits_rt_phase_begin(h, want.encode(), ctypes.byref(err))
            open_phase = want
        if rt.sits_rt_sample(h, ctypes.byref(t), vals, ctypes.byref(err)):
            sys.exit("sits_rt_sample: " + err.msg.decode())
        out.write("%.6f," % t.value + ",".join("" if v != v else "%.9g" % v for v in vals) + "\n")
        nxt += period
        time.sleep(max(0.0, nxt - time.monotonic()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="path of libsits_rt.so")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--pattern", default="15:0,30:0.25,45:1,20:0,40:0.75,10:1,10:0,10:1,10:0,30:0")
    ap.add_argument("--period-ms", type=float, default=100.0)
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--no-sysfs", action="store_true")
    ap.add_argument("--phases-csv", help="also write start/seconds/duty per phase here")
    a = ap.parse_args()
    steps = [(float(s), float(d)) for s, d in (x.split(":") for x in a.pattern.split(","))]

    rt = load_rt(a.lib)
    err = Err()
    o = Opts(None, 1 if a.no_sysfs else 0, 1, None)
    h = rt.sits_rt_open(ctypes.byref(o), ctypes.byref(err))
    if not h:
        sys.exit("sits_rt_open: " + err.msg.decode())
    for d in sorted({d for _, d in steps}):
        if rt.sits_rt_add_phase(h, label(d).encode(), ctypes.byref(err)):
            sys.exit("sits_rt_add_phase: " + err.msg.decode())
    print("libsits_rt: %d GPUs through NVML, %d columns" %
          (rt.sits_rt_gpu_count(h), rt.sits_rt_column_count(h)), file=sys.stderr)

    import torch
    x = torch.randn(a.size, a.size, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(a.size, a.size, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()

    state = {"phase": None}
    done = threading.Event()
    with open(a.output, "w") as out:
        th = threading.Thread(target=sampler, args=(rt, h, out, a.period_ms / 1000, state, done))
        th.start()
        log = []
        try:
            for seconds, duty in steps:
                state["phase"] = label(duty)
                t0 = time.monotonic()
                log.append((time.time(), seconds, duty))
                while time.monotonic() - t0 < seconds:
                    p0 = time.monotonic()
                    while time.monotonic() - p0 < 0.5 * duty:
                        for _ in range(8):
                            torch.mm(x, y)
                        torch.cuda.synchronize()
                    time.sleep(max(0.0, 0.5 - (time.monotonic() - p0)))
        finally:
            state["phase"] = None
            time.sleep(2 * a.period_ms / 1000)
            done.set()
            th.join()
    rt.sits_rt_free(h)
    if a.phases_csv:
        with open(a.phases_csv, "w") as f:
            f.write("start_unix_s,seconds,duty\n")
            for s, sec, d in log:
                f.write("%.3f,%g,%g\n" % (s, sec, d))


if __name__ == "__main__":
    main()
