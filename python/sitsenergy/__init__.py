"""sitsenergy: the SITSEnergy C library (libsits) from Python.

    import sitsenergy as se
    sc = se.load("configs/scenarios/orin_nx_video_enc.cfg", set={"ambient_c": 40})
    r = sc.run()
    r.summary["max_junction_temp_c"], r.series["temp_c.die"], r.events
    se.sweep(sc, vary={"ambient_c": [25, 35, 45]}, jobs=2)      # a DataFrame, a row each
    se.read("out.h5")                                          # the same result, from a file

Errors of the library (a bad key at file:line, a solver failure) raise SitsError with the
library's message; nothing aborts the interpreter (GSL's abort-on-error handler is off).
"""

from __future__ import annotations

import html
import json
import operator
import os
import re
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Mapping, Optional, Sequence, Union, cast

import numpy as np
import pandas as pd

from ._lib import LibraryNotFound, ffi, lib
from ._lib import path as library_path
from ._sweep import run_rows

__all__ = ["load", "read", "sweep", "Scenario", "Result", "SitsError", "LibraryNotFound",
           "Plot", "library_version", "library_path", "bpx", "__version__", "ECANCELED", "EINPUT", "ENOMEM", "ESOLVER", "EIO",
           "EUNSUPPORTED", "EINTERNAL"]

SetArg = Optional[Union[Mapping[str, Any], Sequence[str]]]


def _package_version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
        try:
            return version("sitsenergy")
        except PackageNotFoundError:
            pass
    except ImportError:
        pass
    return library_version().split()[0].split("+")[0]


# the status codes of sits_status.h
EINPUT, ENOMEM, ESOLVER, EIO, EUNSUPPORTED, EINTERNAL, ECANCELED = -1, -2, -3, -4, -5, -6, -7
_CODES = {EINPUT: "bad input", ENOMEM: "out of memory", ESOLVER: "solver failure",
          EIO: "input/output error", EUNSUPPORTED: "not supported yet",
          EINTERNAL: "internal error", ECANCELED: "stopped by the caller"}


def _stop_error(exc_type, exc_value, tb):
    """A KeyboardInterrupt (Ctrl-C, SIGINT) raised while the library polls the stop callback:
    kept for run() to raise once the library has freed the run, and the run told to stop."""
    _interrupted.append(exc_value)
    return 1


_interrupted: list = []


def _reraise_interrupt() -> None:
    """The KeyboardInterrupt the stop callback caught, raised now that the library returned."""
    if _interrupted:
        exc = _interrupted.pop()
        del _interrupted[:]
        raise exc


@ffi.callback("int(void *)", onerror=_stop_error)
def _stop(user):
    # Python code runs here, so a pending SIGINT raises KeyboardInterrupt now (_stop_error);
    # an error in the caller's progress function stops the run too
    return 1 if _interrupted else 0


def _progress_error(exc_type, exc_value, tb):
    """An exception in the progress function (or a SIGINT while it ran): kept, the run then
    stopped by the stop callback, and raised once the library has returned."""
    _interrupted.append(exc_value)
    return None


@ffi.callback("void(double, double, void *)", onerror=_progress_error)
def _progress(t_s, end_s, user):
    ffi.from_handle(user)(t_s, end_s)


class _ProgressLine:
    """run(progress=True): one line on stderr, rewritten at most twice a second: the share
    simulated, the time so far and, at the pace so far, the time left."""

    def __init__(self) -> None:
        self.t0, self.last, self.shown = time.monotonic(), -1.0, False

    def __call__(self, t_s: float, end_s: float) -> None:
        now = time.monotonic()
        if now - self.last < 0.5 and t_s < end_s:
            return
        self.last, self.shown = now, True
        frac = t_s / end_s if end_s > 0 else 0.0
        spent = now - self.t0
        left = f", ~{spent * (1 - frac) / frac:.0f} s left" if frac > 0 else ""
        sys.stderr.write(f"\rsitsenergy: {100 * frac:5.1f} % of {end_s:g} s simulated, "
                         f"{spent:.1f} s so far{left}   ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _spans(events: Any, on: str, off: str, t0: float, t1: float) -> list:
    """The [start, end] spans between events `on` and `off` (one still open at the end runs
    to t1); spans closer than 1/400 of the run merged, more so until at most 200 remain (as
    `run --plot` shades them)."""
    spans, start = [], None
    for kind, t in zip(events["kind"], events["time_s"]):
        if kind == on and start is None:
            start = float(t)
        elif kind == off and start is not None:
            spans.append([start, float(t)])
            start = None
    if start is not None:
        spans.append([start, t1])
    gap = (t1 - t0) / 400.0
    while spans:
        merged = [spans[0]]
        for a, b in spans[1:]:
            if a - merged[-1][1] < gap:
                merged[-1][1] = b
            else:
                merged.append([a, b])
        spans = merged
        if len(spans) <= 200:
            break
        gap *= 2
    return spans


_ENDING_EVENTS = {"critical_temp": "critical", "battery_cutoff": "cutoff",
                  "battery_empty": "empty", "brownout": "brown-out"}


class _TqdmBar:
    """run(progress=True) where tqdm is installed: its bar (a widget in a notebook with
    ipywidgets, text on stderr elsewhere) over the simulated seconds."""

    def __init__(self, tqdm: Any) -> None:
        self.tqdm, self.bar = tqdm, cast(Any, None)

    def __call__(self, t_s: float, end_s: float) -> None:
        if self.bar is None:
            self.bar = self.tqdm(total=end_s, unit="s", unit_scale=False, desc="sitsenergy",
                                 bar_format="{desc}: {percentage:5.1f}%|{bar}| {n:.4g}/{total:g} "
                                            "s simulated [{elapsed}<{remaining}]")
        self.bar.update(min(t_s, end_s) - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _progress_display() -> Union["_TqdmBar", "_ProgressLine"]:
    """tqdm's bar when tqdm is installed, else the plain line."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _ProgressLine()
    return _TqdmBar(tqdm)


class SitsError(Exception):
    """A library error: .code (the sits_status code: EINPUT, ESOLVER, ...), .message
    (file:line: what), and .file and .line (int) where the message names them (else None)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message
        m = re.match(r"(?:--set [^:]*: )?(.+?):(\d+):", message)
        self.file, self.line = (m.group(1), int(m.group(2))) if m else (None, None)


def _raise(rc: int, err: Any) -> None:
    msg = ffi.string(err.msg).decode("utf-8", "replace") or _CODES.get(rc, "error")
    raise SitsError(rc, msg)


def _num(v: Any) -> float:
    """A summary number, NaN where the JSON has null."""
    return float("nan") if v is None else float(v)


def _text(ptr: Any) -> str:
    """A malloc'ed C string as str (freed)."""
    try:
        return ffi.string(ptr).decode("utf-8")
    finally:
        lib.sits_free(ptr)


def library_version() -> str:
    """The library's version with its git hash, as `sitsenergy --version` prints it."""
    return ffi.string(lib.sits_version()).decode()


def _sets(set_: SetArg) -> list:
    """{key: value} (or "KEY=VALUE" strings) as the --set texts; strings are quoted."""
    if set_ is None:
        return []
    if isinstance(set_, (list, tuple)):
        return [str(s) for s in set_]
    out = []
    assert isinstance(set_, Mapping)  # for type checkers: the sequence case returned above
    for k, v in set_.items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, str):
            v = json.dumps(v)  # a libconfig string: quoted, escaped
        out.append(f"{k}={v}")
    return out


def load(path_or_text: Union[str, os.PathLike], set: SetArg = None,  # noqa: A002 (the CLI's word)
         name: Optional[str] = None) -> Scenario:
    """A scenario from a file path or from the text of one, with overrides `set` ({key:
    value}, as --set KEY=VALUE). In a text, file, platform and workload names resolve
    against the working folder. Raises SitsError (file:line: what) on bad input."""
    if not isinstance(path_or_text, (str, os.PathLike)):
        raise TypeError("load() takes a path or a scenario's text, not "
                        f"{type(path_or_text).__name__}")
    if not os.fspath(path_or_text).strip():
        raise SitsError(EINPUT, "load(): an empty path or text (give a scenario file or its text)")
    sets = _sets(set)
    c_sets = [ffi.new("char[]", s.encode()) for s in sets]
    arr = ffi.new("const char *[]", c_sets) if c_sets else ffi.NULL
    out = ffi.new("sits_scenario **")
    err = ffi.new("sits_err *")
    text = os.fspath(path_or_text) if isinstance(path_or_text, os.PathLike) else str(
        path_or_text)
    # a path: an existing file, an os.PathLike, or one line without a key's '=' or ':' and
    # not an @include (a missing
    # file is then reported as one: "x.cfg: cannot read", not as a syntax error in a text)
    is_file = "\n" not in text and (
        os.path.exists(text) or isinstance(path_or_text, os.PathLike) or
        ("=" not in text and ":" not in text and not text.lstrip().startswith("@")))
    if is_file:
        rc = lib.sits_scenario_load(os.fsencode(text), arr, len(sets), out, err)
        source = os.path.abspath(text)
    else:
        rc = lib.sits_scenario_load_text(text.encode(), (name or "<text>").encode(), arr,
                                         len(sets), out, err)
        source = None
    if rc:
        _raise(rc, err)
    return Scenario(out[0], source, sets)


class Scenario:
    """A loaded, checked scenario (sits_scenario)."""

    def __init__(self, ptr: Any, source: Optional[str], sets: Sequence[str]) -> None:
        self._p = ffi.gc(ptr, lib.sits_scenario_free)
        self.source, self.sets = source, list(sets)
        origin = "python: sitsenergy.load(" + repr(source or "<text>") + (
            f", set={sets!r})" if sets else ")")
        lib.sits_scenario_set_origin(self._p, origin.encode())

    @property
    def config_text(self) -> str:
        """The merged configuration (platform, workload, overrides in): it re-runs as it is."""
        return ffi.string(lib.sits_scenario_config_text(self._p)).decode()

    @property
    def config_hash(self) -> int:
        return int(lib.sits_scenario_config_hash(self._p))

    @property
    def domains(self) -> list:
        return [ffi.string(lib.sits_scenario_domain_name(self._p, d)).decode()
                for d in range(lib.sits_scenario_domain_count(self._p))]

    @property
    def nodes(self) -> list:
        return [ffi.string(lib.sits_scenario_node_name(self._p, i)).decode()
                for i in range(lib.sits_scenario_node_count(self._p))]

    def run(self, band: bool = True,
            progress: Union[bool, Callable[[float, float], Any], None] = None) -> Result:
        """Simulates the scenario: a Result (summary, series, events). On a calibrated
        scenario (one with an uncertainty group) the summary has the 95 % band ("band", as
        `run --summary json`), which costs one more run per fitted parameter; band=False
        skips it. progress=True shows tqdm's bar where tqdm is installed (a widget in a
        notebook), else a progress line on stderr (the share simulated, the time so far and
        left; a notebook shows it under the cell); a callable is called as
        progress(t_s, end_s) as the run advances (an exception in it stops the run and is
        raised). Ctrl-C (SIGINT) stops it within a fraction of a second with
        KeyboardInterrupt; the run's memory is freed."""
        out = ffi.new("sits_result **")
        err = ffi.new("sits_err *")
        opts = ffi.new("sits_run_opts *")
        opts.stop = _stop
        line = _progress_display() if progress is True else None
        fn = line if line is not None else (progress if callable(progress) else None)
        handle = ffi.new_handle(fn) if fn is not None else None
        if handle is not None:
            opts.progress, opts.progress_user = _progress, handle
        del _interrupted[:]
        try:
            rc = lib.sits_run(self._p, opts, out, err)
        finally:
            if line is not None:
                line.close()
        opts.progress, opts.progress_user = ffi.NULL, ffi.NULL  # the bands' runs report none
        _reraise_interrupt()
        if rc:
            _raise(rc, err)
        r = ffi.gc(out[0], lib.sits_result_free)
        if band:
            rc = lib.sits_run_bands(self._p, opts, r, err)
            _reraise_interrupt()
            if rc:
                _raise(rc, err)
        return Result._from_run(self, r)

    def steady(self) -> dict:
        """The steady state (the `steady` command's JSON) as a dict."""
        err = ffi.new("sits_err *")
        p = lib.sits_steady_json_text(self._p, err)
        if p == ffi.NULL:
            _raise(err.code or EINPUT, err)
        return json.loads(_text(p))

    def dvfs_table(self, domain: Optional[str] = None) -> pd.DataFrame:
        """The DVFS table of `domain` (default: the first) as a DataFrame indexed by
        freq_mhz; the table-wide figures (knee, max sustainable OPP, dynamic power
        coefficient, sustainable power, trip) are in .attrs."""
        err = ffi.new("sits_err *")
        p = lib.sits_dvfs_table_json_text(self._p, domain.encode() if domain else ffi.NULL,
                                          err)
        if p == ffi.NULL:
            _raise(err.code or EINPUT, err)
        d = json.loads(_text(p))
        df = pd.DataFrame(d.pop("opps")).set_index("freq_mhz")
        df.attrs.update(d)
        return df

    def bpx(self, title: Optional[str] = None) -> dict:
        """The platform's battery cell as a BPX dict (see sitsenergy.bpx)."""
        err = ffi.new("sits_err *")
        p = lib.sits_scenario_bpx_text(self._p, (title or "sitsenergy cell").encode(), err)
        if p == ffi.NULL:
            _raise(err.code or EINPUT, err)
        return json.loads(_text(p))

    def __repr__(self) -> str:
        return f"<sitsenergy.Scenario {self.source or '<text>'} hash={self.config_hash:016x}>"


def _columns(nodes, domains, battery, fans=()):
    cols, units = [], {}
    for n in nodes:
        cols.append(f"temp_c.{n}"), units.update({f"temp_c.{n}": "degC"})
    for n in nodes:
        cols.append(f"node_power_w.{n}"), units.update({f"node_power_w.{n}": "W"})
    cols.append("power_w.total"), units.update({"power_w.total": "W"})
    for d in domains:
        cols.append(f"power_w.{d}"), units.update({f"power_w.{d}": "W"})
    for d in domains:
        cols.append(f"freq_mhz.{d}"), units.update({f"freq_mhz.{d}": "MHz"})
    if battery:
        for c, u in (("battery.soc", "1"), ("battery.voltage_v", "V"),
                     ("battery.current_a", "A")):
            cols.append(c), units.update({c: u})
    for f in fans:
        cols.append(f"fan_duty.{f}"), units.update({f"fan_duty.{f}": "1"})
    return cols, units


class Plot:
    """A PNG made by Result.plot(): .png the bytes, .save(path), shown inline in a notebook."""

    def __init__(self, png: bytes) -> None:
        self.png = png

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes the PNG to path (through a temporary file beside it, then renamed)."""
        path = os.fspath(path)
        if os.path.lexists(path) and (os.path.islink(path) or not os.path.isfile(path)):
            raise SitsError(EINPUT, f"{path}: not a regular file (a link, a device or a FIFO "
                                    "is not replaced)")
        fd, tmp = tempfile.mkstemp(prefix=".plot.", dir=os.path.dirname(os.path.abspath(path)))
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(self.png)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise

    def _repr_png_(self) -> bytes:
        return self.png

    def __repr__(self) -> str:
        return f"<sitsenergy.Plot PNG, {len(self.png)} bytes>"


class Result:
    """A run: .summary (dict, as --summary json), .series (DataFrame indexed by time_s,
    columns as the CSV's, units in .series.attrs["units"]), .events (DataFrame)."""

    def __init__(self, summary: dict, series: pd.DataFrame, events: pd.DataFrame,
                 scenario: Optional[Scenario] = None, handle: Any = None) -> None:
        self.summary, self.series, self.events = summary, series, events
        self._scenario, self._h = scenario, handle

    @classmethod
    def _from_run(cls, sc: Scenario, r: Any) -> Result:
        n = lib.sits_result_sample_count(r)
        blocks = []
        for what in ("temp_c", "node_power_w", "total_power_w", "domain_power_w", "freq_mhz",
                     "battery_soc", "battery_voltage_v", "battery_current_a", "fan_duty"):
            cols = ffi.new("size_t *")
            p = lib.sits_result_series(r, what.encode(), cols)
            if p == ffi.NULL or cols[0] == 0:
                continue
            a = np.frombuffer(ffi.buffer(p, n * cols[0] * 8), dtype=np.float64)
            blocks.append(a.reshape(n, cols[0]).copy())
        cols = ffi.new("size_t *")
        t = np.frombuffer(ffi.buffer(lib.sits_result_series(r, b"time_s", cols), n * 8),
                          dtype=np.float64).copy()
        battery = lib.sits_scenario_battery(sc._p) != ffi.NULL
        fans = [ffi.string(lib.sits_scenario_fan_name(sc._p, k)).decode()
                for k in range(lib.sits_scenario_fan_count(sc._p))]
        names, units = _columns(sc.nodes, sc.domains, battery, fans)
        data = np.hstack(blocks) if blocks else np.empty((n, 0))
        series = pd.DataFrame(data, index=pd.Index(t, name="time_s"), columns=names)
        series.attrs["units"] = units
        summary = json.loads(_text(lib.sits_summary_json_text(sc._p, r)))
        ev = []
        for k in range(lib.sits_result_event_count(r)):
            e = lib.sits_result_event(r, k)
            ev.append({"time_s": e.time_s, "kind": ffi.string(e.kind).decode(),
                       "detail": ffi.string(e.detail).decode(),
                       "subject": ffi.string(e.subject).decode(),
                       "unit": ffi.string(e.unit).decode(), "value": e.value,
                       "from": getattr(e, "from"), "limit": e.limit, "soc": e.soc})
        events = pd.DataFrame(ev, columns=["time_s", "kind", "detail", "subject", "unit",
                                           "value", "from", "limit", "soc"])
        return cls(summary, series, events, sc, r)

    def to_h5(self, path: Union[str, os.PathLike]) -> None:
        """Writes the run's HDF5 file (the `run -o` layout) through the library."""
        if self._h is None or self._scenario is None:
            raise SitsError(EINPUT, "this result was read from a file: it is already one")
        _refuse_inputs(self._scenario, path)
        err = ffi.new("sits_err *")
        rc = lib.sits_write_h5(self._scenario._p, self._h, os.fsencode(path), err)
        if rc:
            _raise(rc, err)

    def to_xarray(self) -> Any:
        """The series as an xarray.Dataset: one variable per column on the coordinate time_s
        (with its units attribute, "s"), each variable with its units attribute; the summary's
        scalar figures (names with their units) as the Dataset's attributes. Needs xarray
        (Debian: python3-xarray)."""
        try:
            import xarray as xr
        except ImportError as e:
            raise ImportError("Result.to_xarray() needs xarray (Debian: apt-get install "
                              "python3-xarray; or pip install xarray)") from e
        units = self.series.attrs.get("units", {})
        t = self.series.index.to_numpy()
        data = {c: ("time_s", self.series[c].to_numpy(), {"units": units.get(c, "")})
                for c in self.series.columns}
        ds = xr.Dataset(data, coords={"time_s": ("time_s", t, {"units": "s"})})
        for k, v in self.summary.items():  # netCDF attributes: numbers and strings
            if isinstance(v, bool):
                ds.attrs[k] = int(v)
            elif isinstance(v, (int, float, str)):
                ds.attrs[k] = v
        return ds

    def plot(self, path: Union[str, os.PathLike, None] = None,
             title: Optional[str] = None) -> "Plot":
        """The run as `sitsenergy run --plot` draws it, by gnuplot (PNG): each node's
        temperature against time, the total power on a second axis, the junction limit dashed
        and, on a calibrated scenario, the peak's 95 % band as a strip; of more than ten nodes
        (a floorplan) the ten hottest; thermal throttling shaded red and the power cap in
        force amber, an event that ends the run (critical, battery) marked. Returns a Plot (shown inline in a notebook; .png holds
        the bytes); with path, also written there."""
        s = self.summary
        lim = (s.get("constraints") or {}).get("max_junction_temp_c", {}).get("limit")
        temps = [c for c in self.series.columns if c.startswith("temp_c.")]
        n_temps = len(temps)
        if n_temps > 10:  # a floorplan's hundred blocks: the ten hottest, so the key fits
            temps = list(self.series[temps].max().sort_values(ascending=False).index[:10])
        src = self._scenario.source if self._scenario is not None else None
        name = os.path.basename(src) if src and "\n" not in src else "run"
        title = title or (f"{name}: verdict {s.get('verdict', '?')}"
                          + (f" (the 10 hottest of {n_temps} nodes)" if n_temps > 10 else ""))
        band = s.get("band") or {}
        peak, hw = s.get("max_junction_temp_c"), band.get("max_junction_temp_half_width_c")
        with tempfile.TemporaryDirectory(prefix="sitsenergy_plot_") as d:
            csv = os.path.join(d, "series.csv")
            png = os.path.join(d, "plot.png")
            self.series[temps + ["power_w.total"]].to_csv(csv)
            q = lambda v: "'" + str(v).replace("'", "''") + "'"  # gnuplot's quoting
            cmds = ["set terminal pngcairo size 1200,600 font 'sans,11'",
                    f"set output {q(png)}", "set termoption noenhanced",
                    "set datafile separator ','", "set key autotitle columnhead",
                    "set key outside right top", "set grid", "set ytics nomirror", "set y2tics",
                    "set xlabel 'time (s)'", "set ylabel 'temperature (C)'",
                    "set y2label 'total power (W)'", "set autoscale xfix",
                    "set offsets 0, 0, graph 0.05, graph 0.05",
                    f"set title {q(title)}"]
            curves = []
            t = self.series.index.to_numpy()
            ev = self.events
            if len(t) >= 2 and ev is not None and len(ev):  # shaded as run --plot shades them
                for on, off, colour, label in (("throttle_start", "throttle_end", "#f6c9c4",
                                                "thermal throttling"),
                                               ("cap_active", "cap_released", "#f3e2b3",
                                                "power cap")):
                    spans = _spans(ev, on, off, float(t[0]), float(t[-1]))
                    spans = [[float(a), float(b)] for a, b in spans]
                    for a, b in spans:
                        b = float(max(b, a + (t[-1] - t[0]) / 1000.0))
                        cmds.append(f"set object rect from {a!r}, graph 0 to {b!r}, graph 1 "
                                    f"fc rgb '{colour}' fs solid 1.0 noborder behind")
                    if spans:
                        curves.append(f"NaN with boxes fc rgb '{colour}' fs solid 1.0 noborder "
                                      f"title '{label}'")
                shown = 0
                for kind, te in zip(ev["kind"], ev["time_s"]):
                    if kind in _ENDING_EVENTS and shown < 20:
                        cmds.append(f"set arrow from {te!r}, graph 0 to {te!r}, graph 1 nohead "
                                    "lc rgb '#7b1fa2' dt 3 lw 1.5 front")
                        cmds.append(f"set label {q(_ENDING_EVENTS[kind])} at {te!r}, graph 0.97 "
                                    "rotate by 90 right offset -0.6, 0 front tc rgb '#7b1fa2'")
                        shown += 1
            # the total power first, light, so the temperatures stay visible over it
            curves.append(f"{q(csv)} using 1:{len(temps) + 2} axes x1y2 with steps "
                          "lc rgb '#b8b8b8'")
            if isinstance(peak, (int, float)) and isinstance(hw, (int, float)):
                curves.append(f"{q(csv)} using 1:({peak - hw!r}):({peak + hw!r}) with "
                              "filledcurves fc rgb '#c8d8f0' fs solid 0.7 noborder title "
                              f"'Tj peak {peak:.2f} +- {hw:.2f} C (95 % band)'")
            if isinstance(lim, (int, float)):
                curves.append(f"{lim!r} with lines dt 2 lw 2 lc rgb '#c03030' title "
                              f"'junction limit {lim:g} C'")
            curves += [f"{q(csv)} using 1:{k + 2} with lines lw 2" for k in range(len(temps))]
            cmds.append("plot " + ", ".join(curves))
            try:
                p = subprocess.run(["gnuplot"], input="\n".join(cmds) + "\n", text=True,
                                   capture_output=True)
            except FileNotFoundError as e:
                raise SitsError(EIO, "Result.plot() needs gnuplot (Debian: apt-get install "
                                     "gnuplot-nox)") from e
            if p.returncode or not os.path.exists(png):
                raise SitsError(EIO, "gnuplot failed: " + p.stderr.strip()[-300:])
            with open(png, "rb") as f:
                out = Plot(f.read())
        if path is not None:
            if self._scenario is not None:
                _refuse_inputs(self._scenario, path)
            out.save(path)
        return out

    def _repr_html_(self) -> str:
        """A notebook's view: the end, the headline figures with units, the verdict and what
        the answer rests on."""
        s = self.summary
        rows = [("end", f"{s.get('end_reason')} after {s.get('simulated_s', float('nan')):.3f} s"),
                ("max junction temperature", f"{s.get('max_junction_temp_c', float('nan')):.2f} °C"),
                ("final junction temperature",
                 f"{_num(s.get('final_junction_temp_c')):.2f} °C"),
                ("average power", f"{s.get('avg_power_w', float('nan')):.3f} W"),
                ("peak power", f"{s.get('peak_power_w', float('nan')):.3f} W"),
                ("energy", f"{s.get('energy_j', float('nan')):.1f} J")]
        b = s.get("battery")
        if b:
            rows.append(("battery", f"SOC {b['final_soc']:.4f} at the end, runtime "
                                    f"{b['runtime_s']:.0f} s"
                                    f"{' (estimated)' if b.get('estimated') else ''}"))
        rows.append(("verdict", str(s.get("verdict"))))
        cells = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                        f"<td style='text-align:left'>{html.escape(v)}</td></tr>" for k, v in rows)
        notes = "".join(f"<li>{html.escape(a)}</li>" for a in s.get("assumptions", []))
        return (f"<div><b>sitsenergy.Result</b>: {len(self.series)} samples"
                f"<table>{cells}</table>"
                + (f"<details><summary>assumptions ({len(s.get('assumptions', []))})"
                   f"</summary><ul>{notes}</ul></details>" if notes else "") + "</div>")

    def __repr__(self) -> str:
        return (f"<sitsenergy.Result {len(self.series)} samples, end "
                f"{self.summary.get('end_reason')}>")


def _same_file(a: Union[str, os.PathLike], b: Union[str, os.PathLike]) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _refuse_inputs(scenario: Scenario, path: Union[str, os.PathLike]) -> None:
    """An output onto a file the scenario read (the scenario, its platform, battery,
    workload, included files, traces, floorplans) is refused, as the CLI refuses it."""
    p = scenario._p
    for k in range(lib.sits_scenario_input_count(p)):
        src = os.fsdecode(ffi.string(lib.sits_scenario_input(p, k)))
        if os.path.exists(path) and _same_file(path, src):
            raise SitsError(EINPUT, f"{os.fspath(path)}: an output would replace the input "
                                    f"{src} (read by the scenario)")


def read(path: Union[str, os.PathLike]) -> Result:
    """A Result from a `run -o` HDF5 file (needs h5py, Debian's python3-h5py): the summary
    from its summary_json attribute, the series and events from its datasets (a grid
    floorplan's layers as the cell columns L<layer>_<row>_<col>)."""
    import h5py  # optional: only files need it

    layers = ("silicon", "interface", "spreader", "sink")
    with h5py.File(path, "r") as f:
        t = f["time_s"][:]
        cols, units = {}, {}

        def take(group, prefix):
            for name, d in f[group].items():
                cls = d.attrs.get("CLASS", b"")
                if (cls.decode() if isinstance(cls, bytes) else cls) == "DIMENSION_SCALE":
                    continue  # the group's link to /time_s (or /grid's scales)
                u = d.attrs.get("units", "")
                u = u.decode() if isinstance(u, bytes) else u
                if d.ndim == 1:
                    key = f"{prefix}.{name}" if prefix else name
                    cols[key], units[key] = d[:], u
                elif name in layers:  # time x rows x cols
                    L = layers.index(name)
                    a = d[:]
                    for i in range(a.shape[1]):
                        for j in range(a.shape[2]):
                            key = f"{prefix}.L{L}_{i}_{j}"
                            cols[key], units[key] = a[:, i, j], u

        take("temp_c", "temp_c")
        take("node_power_w", "node_power_w")
        take("power_w", "power_w")
        take("freq_mhz", "freq_mhz")
        if "battery" in f:
            take("battery", "battery")
        if "fan_duty" in f:
            take("fan_duty", "fan_duty")
        summary = json.loads(f.attrs["summary_json"])
        ev = f["events"][:]
        events = pd.DataFrame({k: (ev[k].astype(str) if ev.dtype[k].kind == "S" else ev[k])
                               for k in ev.dtype.names},
                              columns=list(ev.dtype.names))
    series = pd.DataFrame(cols, index=pd.Index(t, name="time_s"))
    # the columns in run()'s order (HDF5 lists a group's members by name): nodes, domains and
    # fans in the order the summary names them
    order, _ = _columns(list(summary.get("peak_temp_c", {})),
                        list(summary.get("domain_energy_j", {})),
                        summary.get("battery") is not None, list(summary.get("fans", {})))
    if set(order) == set(series.columns):
        series = series[order]
    series.attrs["units"] = units
    return Result(summary, series, events)


def sweep(scenario: Union[Scenario, str, os.PathLike],
          vary: Optional[Mapping[str, Union[str, Sequence[Any]]]] = None,
          sample: Optional[int] = None, dist: Optional[Mapping[str, str]] = None,
          method: str = "lhs", seed: int = 1, jobs: int = 1) -> pd.DataFrame:
    """The scenario over the Cartesian product of `vary` ({key: [values]} or {key:
    "START:STOP:COUNT"}) and, with `sample` = N, N draws of `dist` ({key:
    "uniform(a,b)"|"normal(mu,sigma)"|...}) by `method` (lhs, sobol, halton, random): a
    DataFrame with a row per combination, as the `sweep` command's CSV. `jobs` worker
    processes (concurrent.futures) share the rows. Each row runs the library's sweep engine
    (sits_sweep), so a row equals the CLI's."""
    if not isinstance(scenario, Scenario):
        scenario = load(scenario)
    specs = []
    for k, v in (vary or {}).items():
        vals = v if isinstance(v, str) else ",".join(
            json.dumps(x) if isinstance(x, str) else repr(x) for x in v)
        specs.append(f"{k}={vals}")
    dists = [f"{k}={v}" for k, v in (dist or {}).items()]
    if sample is not None:
        n: Optional[int] = None
        try:  # any integer type (numpy's too), not a bool or a float
            n = None if isinstance(sample, bool) else operator.index(sample)
        except TypeError:
            pass
        if n is None or not 1 <= n <= 10_000_000:
            raise SitsError(EINPUT, f"sample={sample!r}: expected a whole number of draws from 1 "
                                    "to 10000000 (the CLI's --sample range)")
        sample = n
    if dists and not sample:
        raise SitsError(EINPUT, "dist needs sample = the number of draws")
    if sample and not dists:
        raise SitsError(EINPUT, "sample needs at least one dist to draw from")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 256:
        raise SitsError(EINPUT, f"jobs={jobs!r}: expected a whole number of worker processes "
                                "from 1 to 256 (the CLI's -j range)")
    with tempfile.TemporaryDirectory(prefix="sitsenergy_sweep_") as tmp:
        outs = [os.path.join(tmp, f"job{j}.csv") for j in range(jobs)]
        if jobs == 1:
            run_rows(scenario.config_text, specs, dists, sample, method, seed, 0, 1, outs[0])
        else:
            from concurrent.futures import ProcessPoolExecutor
            with ProcessPoolExecutor(max_workers=jobs) as ex:
                futs = [ex.submit(run_rows, scenario.config_text, specs, dists, sample, method,
                                  seed, j, jobs, outs[j]) for j in range(jobs)]
                for fu in futs:
                    fu.result()
        frames = [pd.read_csv(p) for p in outs]
    df = pd.concat(frames, ignore_index=True).sort_values("index").set_index("index")
    return df


__version__ = _package_version()
"""The package's version (its installed metadata; from a source tree, the library's)."""

from . import bpx  # noqa: E402  (uses the names above)
