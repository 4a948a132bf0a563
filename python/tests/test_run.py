"""load / run / steady / dvfs_table against closed forms and the shipped scenarios."""
import math
import os
import sys

import numpy as np
import pandas as pd
import pytest

import sitsenergy as se

TOL_K = 2e-4  # CVODE's tolerances on a 6-s time constant (as the C tests)


def test_one_node_series_closed_form(one_node):
    r = se.load(one_node).run()
    t = r.series.index.to_numpy()
    want = 25 + 15 * (1 - np.exp(-t / 6))
    assert r.series.index.name == "time_s"
    assert np.max(np.abs(r.series["temp_c.die"].to_numpy() - want)) < TOL_K
    assert r.series.attrs["units"]["temp_c.die"] == "degC"
    assert r.series.attrs["units"]["power_w.total"] == "W"
    assert np.allclose(r.series["power_w.total"], 5.0)
    assert r.summary["schema_version"] == 1
    assert r.summary["end_reason"] == "duration"
    assert r.summary["max_junction_temp_c"] == pytest.approx(25 + 15 * (1 - math.exp(-5)),
                                                            abs=TOL_K)
    assert r.summary["energy_j"] == pytest.approx(150.0, rel=1e-9)  # 5 W x 30 s
    assert list(r.events.columns)[:2] == ["time_s", "kind"]


def test_steady_closed_form(one_node):
    st = se.load(one_node).steady()
    assert st["schema_version"] == 1
    assert st["temp_c"]["die"] == pytest.approx(25 + 5 * 3, abs=1e-9)


def test_set_overrides_and_text_vs_file(one_node, tmp_path):
    p = tmp_path / "one.cfg"
    p.write_text(one_node)
    a = se.load(str(p), set={"ambient_c": 35})
    b = se.load(one_node, set={"ambient_c": 35})
    assert a.config_hash == b.config_hash
    assert a.run().summary["max_junction_temp_c"] == pytest.approx(
        35 + 15 * (1 - math.exp(-5)), abs=TOL_K)
    assert a.nodes == ["die"] and a.domains == []


def test_shipped_scenario_matches_its_own_summary(configs):
    sc = se.load(str(configs / "scenarios/orin_nx_video_enc.cfg"), set={"duration_s": 60})
    r = sc.run()
    assert sc.domains == ["cpu", "gpu", "dla", "enc"]
    assert {"temp_c.die", "power_w.gpu", "freq_mhz.gpu"} <= set(r.series.columns)
    # the summary JSON prints 10 significant digits: equal to that (5e-10 relative)
    assert r.series["temp_c.die"].max() == pytest.approx(r.summary["max_junction_temp_c"],
                                                         rel=1e-9)
    # per-domain energy closes on the series (trapezoid over 0.5 s samples: within 1 %)
    e = np.trapz(r.series["power_w.gpu"], r.series.index)
    assert e == pytest.approx(r.summary["domain_energy_j"]["gpu"], rel=0.01)


def test_dvfs_table_closed_form():
    # one node R = 3 K/W, a GPU of 2 nF at 200 MHz / 0.6 V with 0.3 W idle: full-load power
    # 0.3 + 2e-9 * 0.36 * 2e8 = 0.444 W -> 25 + 3 * 0.444 C
    text = """
platform = { thermal = {
  nodes = ( { name = "die"; c_j_per_k = 2.0; junction = true; } );
  links = ( { a = "die"; b = "ambient"; r_k_per_w = 3.0; } ); };
  domains = ( { name = "gpu"; node = "die"; ceff_f = 2e-9; idle_w = 0.3; max_rate = 100.0;
    opp = ( { freq_mhz = 200.0; volt_v = 0.6; }, { freq_mhz = 1000.0; volt_v = 1.0; } ); } );
  governor = { thermal = { kind = "step_wise"; sensor = "die"; trip_c = 30.0; }; }; };
workload = { phases = ( { duration_s = 10; demand = { gpu = 1.0; }; } ); };
"""
    df = se.load(text).dvfs_table("gpu")
    assert isinstance(df, pd.DataFrame) and df.index.name == "freq_mhz"
    assert df.loc[200.0, "steady_temp_c"] == pytest.approx(25 + 3 * 0.444, abs=1e-7)
    assert bool(df.loc[200.0, "sustainable"]) and not bool(df.loc[1000.0, "sustainable"])
    assert df.attrs["sustainable_power_mw"] == pytest.approx(5000 / 3, rel=1e-9)
    assert df.attrs["schema_version"] == 1


FAN = """
platform = { thermal = { nodes = ( { name = "die"; c_j_per_k = 10.0; } );
  links = ( { a = "die"; b = "ambient"; r_k_per_w = 4.0; } ); };
  fans = ( { name = "fan1"; a = "die"; b = "ambient"; duty = [0.0, 1.0]; r_k_per_w = [4.0, 1.0];
             sensor = "die"; trips = ( { temp_c = 50.0; hysteresis_c = 10.0; duty = 1.0; } ); } ); };
workload = { phases = ( { duration_s = 60.0; power_w = { die = 10.0; }; } ); };
ambient_c = 25.0; sample_period_s = 1.0;
"""


def test_fan_duty_series_and_events(tmp_path):
    # die 10 J/K heated by 10 W through 4 K/W: crosses the 50 C trip at 39.2 s, so the fan
    # (1 K/W) is on from the tick at 40 s; off below 40 C, at the tick of 52 s (closed form)
    r = se.load(FAN).run()
    duty = r.series["fan_duty.fan1"]
    assert r.series.attrs["units"]["fan_duty.fan1"] == "1"
    assert (duty.loc[:39.0] == 0).all() and (duty.loc[40.0:51.0] == 1).all()
    assert (duty.loc[52.0:] == 0).all()
    t40 = 65 - 40 * math.exp(-1)
    assert r.series["temp_c.die"].loc[40.0] == pytest.approx(t40, abs=1e-4)
    ev = r.events[r.events.kind == "fan_change"]
    assert ev.time_s.tolist() == [40.0, 52.0]
    assert ev.value.tolist() == [1.0, 0.0]
    r.to_h5(tmp_path / "fan.h5")
    back = se.read(tmp_path / "fan.h5")
    assert np.array_equal(back.series["fan_duty.fan1"].to_numpy(), duty.to_numpy())


def test_version_and_typing():
    import importlib.resources
    import pathlib
    import re
    assert re.fullmatch(r"\d+\.\d+\.\d+", se.__version__), se.__version__
    pyproject = pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml"
    assert f'version = "{se.__version__}"' in pyproject.read_text()
    assert se.library_version().startswith(se.__version__)
    assert importlib.resources.files("sitsenergy").joinpath("py.typed").is_file()
    assert se.load.__annotations__["return"] in ("Scenario", se.Scenario)


def test_notebook_view(one_node):
    r = se.load(one_node, set={"max_junction_temp_c": 39.0}).run()
    h = r._repr_html_()
    # the closed form: 25 + 15 (1 - exp(-5)) = 39.899 C at 30 s, over the 39 C limit
    assert "39.90 °C" in h and "<td style='text-align:left'>violated</td>" in h, h
    assert "61 samples" in h
    assert "assumptions (" in h and "no fan curve" in h
    assert "<script" not in r._repr_html_()


def test_ctrl_c_stops_a_run(configs):
    """SIGINT 1 s into a 14-s run raises KeyboardInterrupt within 0.5 s (it used to wait for
    the end of the run); the scenario runs again afterwards."""
    import os
    import signal
    import threading
    import time
    sc = se.load(str(configs / "examples/video_enc.cfg"),
                 set={"duration_s": 400000.0, "sample_period_s": 1.0, "solver.method": "cvode",
                      "battery_capacity_wh": 1e6})  # ~14 s on CVODE, no battery end
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(1.0, interrupt)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            sc.run()
        stopped = time.monotonic()
    finally:
        timer.cancel()
    assert sent and stopped - sent[0] < 0.5, stopped - sent[0]
    short = se.load(str(configs / "examples/video_enc.cfg"), set={"duration_s": 5.0})
    assert short.run().summary["end_reason"] == "duration"


BANDED = """
platform = { thermal = {
  nodes = ( { name = "die"; c_j_per_k = 2.0; junction = true; } );
  links = ( { a = "die"; b = "ambient"; r_k_per_w = 3.0; } ); }; };
workload = { phases = ( { duration_s = 300.0; power_w = { die = 5.0; }; } ); };
ambient_c = 25.0; max_junction_temp_c = 41.0;
uncertainty = { parameters = [ "platform.thermal.links.[0].r_k_per_w", "ambient_c" ];
  values = [ 3.0, 25.0 ]; std_err = [ 0.1, 0.5 ];
  correlation = [ 1.0, 0.3, 0.3, 1.0 ];
  sensors = [ "temp_c.die" ]; residual_q95_c = [ 0.4 ]; };
"""


def test_run_band_on_a_calibrated_scenario():
    """The C test's closed form (test_thermal_cal.c): Tj 40 C, R and the ambient moved by 0.1
    K/W and 0.5 K, correlated 0.3: half-width sqrt(0.4^2 + 1.96^2 x 0.65) = 1.63001 K,
    P(Tj < 41 C) = 0.8854."""
    r = se.load(BANDED).run()
    b = r.summary["band"]
    assert b["parameters"] == 2
    assert b["max_junction_temp_half_width_c"] == pytest.approx(1.63001, abs=1e-4)
    assert b["p_junction_ok"] == pytest.approx(0.8854, abs=1e-3)
    assert "band" not in se.load(BANDED).run(band=False).summary  # as without the group


def test_types_check_with_mypy():
    """The package's type hints hold (mypy, Debian's mypy package; skipped without it)."""
    import shutil
    import subprocess
    mypy = shutil.which("mypy")
    if not mypy:
        pytest.skip("mypy is not installed")
    pkg = os.path.dirname(se.__file__)
    p = subprocess.run([mypy, "--ignore-missing-imports", "--no-incremental",
                        "--cache-dir", os.devnull, pkg], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-2000:]


def test_progress_callable_and_line(one_node, capsys):
    """progress=callable sees the run advance to its end; an exception in the callable stops
    the run and is raised; progress=True shows tqdm's bar where tqdm is installed."""
    seen = []
    r = se.load(one_node).run(progress=lambda t, end: seen.append((t, end)))
    assert len(seen) >= 10
    assert all(end == pytest.approx(30.0) for _, end in seen)
    assert all(b[0] >= a[0] for a, b in zip(seen, seen[1:]))  # never backwards
    assert seen[-1][0] == pytest.approx(30.0, abs=0.5)
    assert r.summary["simulated_s"] == pytest.approx(30.0)

    class Enough(Exception):
        pass

    def stop_at_ten(t, end):
        if t > 10:
            raise Enough()
    with pytest.raises(Enough):
        se.load(one_node).run(progress=stop_at_ten)
    assert se.load(one_node).run().summary["simulated_s"] == pytest.approx(30.0)  # next run fine
    pytest.importorskip("tqdm")  # Debian's python3-tqdm, in the test packages
    se.load(one_node).run(progress=True)  # tqdm's bar: to the end, its own format
    bar = capsys.readouterr().err
    assert "sitsenergy: 100.0%|" in bar and "30/30 s simulated" in bar, bar


def test_progress_line_without_tqdm(one_node, capsys, monkeypatch):
    """Without tqdm, progress=True writes its own line on stderr."""
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm raises ImportError
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    se.load(one_node).run(progress=True)
    line = capsys.readouterr().err
    assert "sitsenergy:" in line and "% of 30 s simulated" in line, line

