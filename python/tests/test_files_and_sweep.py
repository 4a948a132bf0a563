"""read() of an HDF5 result equals the run; sweep() against closed forms and the CLI engine."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import sitsenergy as se

h5py = pytest.importorskip("h5py")


def test_h5_roundtrip(configs, tmp_path):
    sc = se.load(str(configs / "scenarios/orin_nx_video_enc.cfg"), set={"duration_s": 30})
    r = sc.run()
    r.to_h5(tmp_path / "out.h5")
    f = se.read(tmp_path / "out.h5")
    assert f.summary == r.summary
    assert list(f.series.columns) == list(r.series.columns)  # the same order as run()'s
    a = r.series.sort_index(axis=1)
    b = f.series.sort_index(axis=1)
    assert list(a.columns) == list(b.columns)
    assert np.array_equal(a.to_numpy(), b.to_numpy())
    assert np.array_equal(a.index.to_numpy(), b.index.to_numpy())
    assert f.series.attrs["units"]["temp_c.die"] == "degC"
    assert len(f.events) == len(r.events)


def test_h5_grid_layers_become_cell_columns(configs, tmp_path):
    sc = se.load(str(configs / "scenarios/ev6_floorplan_throttle.cfg"),
                 set={"platform.thermal.hotspot.model": "grid", "platform.thermal.hotspot.rows": 4,
                      "platform.thermal.hotspot.cols": 4, "duration_s": 0.2})
    r = sc.run()
    r.to_h5(tmp_path / "g.h5")
    f = se.read(tmp_path / "g.h5")
    cols = [c for c in r.series.columns if c.startswith("temp_c.L")]
    assert len(cols) == 4 * 16
    assert np.array_equal(f.series[cols].to_numpy(), r.series[cols].to_numpy())


def test_sweep_closed_form_and_jobs(one_node):
    sc = se.load(one_node)
    df1 = se.sweep(sc, vary={"ambient_c": [20, 30, 40]})
    df2 = se.sweep(sc, vary={"ambient_c": [20, 30, 40]}, jobs=2)
    assert list(df1.index) == [0, 1, 2]
    for amb, got in zip([20, 30, 40], df1["max_junction_temp_c"]):
        assert got == pytest.approx(amb + 15 * (1 - math.exp(-5)), abs=2e-4)
    assert df1.drop(columns=[]).equals(df2)
    assert (df1["verdict_ok"] == 1).all()


def test_sweep_sampled(one_node):
    df = se.sweep(se.load(one_node), dist={"ambient_c": "uniform(20,30)"}, sample=8, seed=3)
    assert len(df) == 8
    amb = df["ambient_c"].to_numpy()
    assert ((amb >= 20) & (amb <= 30)).all()
    assert np.allclose(df["max_junction_temp_c"], amb + 15 * (1 - math.exp(-5)), atol=2e-4)


def test_h5_groups_open_alone_with_their_coordinates(configs, tmp_path):
    """Each group of a run's HDF5 opened alone by xarray (open_dataset(group=...)) has
    time_s as a coordinate with its values and units (a hard link to /time_s), and a grid's
    layers their y_m and x_m; read() does not take the links for series."""
    xr = pytest.importorskip("xarray")
    pytest.importorskip("netCDF4")
    r = se.load(str(configs / "scenarios/orin_nx_video_enc.cfg"), set={"duration_s": 30}).run()
    r.to_h5(tmp_path / "run.h5")
    t = r.series.index.to_numpy()
    for g in ("temp_c", "node_power_w", "power_w", "freq_mhz", "battery", "fan_duty"):
        ds = xr.open_dataset(tmp_path / "run.h5", group=g)
        assert list(ds.coords) == ["time_s"], g
        assert np.array_equal(ds["time_s"].to_numpy(), t), g
        assert ds["time_s"].attrs["units"] == "s"
    assert "temp_c.time_s" not in se.read(tmp_path / "run.h5").series.columns
    sc = se.load(str(configs / "scenarios/ev6_floorplan_throttle.cfg"),
                 set={"platform.thermal.hotspot.model": "grid", "platform.thermal.hotspot.rows": 4,
                      "platform.thermal.hotspot.cols": 4, "duration_s": 0.2})
    sc.run().to_h5(tmp_path / "grid.h5")
    ds = xr.open_dataset(tmp_path / "grid.h5", group="temp_c")
    assert set(ds.coords) == {"time_s", "y_m", "x_m"}
    assert ds["silicon"].dims == ("time_s", "y_m", "x_m")
    assert ds["x_m"].size == 4 and (np.diff(ds["x_m"].to_numpy()) > 0).all()


def test_to_xarray_keeps_units_and_time(configs, tmp_path):
    xr = pytest.importorskip("xarray")
    r = se.load(str(configs / "scenarios/orin_nx_video_enc.cfg"), set={"duration_s": 30}).run()
    ds = r.to_xarray()
    assert isinstance(ds, xr.Dataset)
    assert list(ds.data_vars) == list(r.series.columns)  # run()'s order
    assert np.array_equal(ds["time_s"].to_numpy(), r.series.index.to_numpy())
    assert ds["time_s"].attrs["units"] == "s"
    assert ds["temp_c.die"].attrs["units"] == "degC"
    assert ds["power_w.total"].attrs["units"] == "W"
    assert np.array_equal(ds["temp_c.die"].to_numpy(), r.series["temp_c.die"].to_numpy())
    assert ds.attrs["max_junction_temp_c"] == r.summary["max_junction_temp_c"]
    # a rolling mean keeps the units (a DataFrame's rolling() drops .attrs)
    assert ds["temp_c.die"].rolling(time_s=5).mean().attrs["units"] == "degC"
    # the same from the HDF5 file
    r.to_h5(tmp_path / "x.h5")
    back = se.read(tmp_path / "x.h5").to_xarray()
    assert np.array_equal(back["temp_c.die"].to_numpy(), ds["temp_c.die"].to_numpy())
    assert back["freq_mhz.gpu"].attrs["units"] == "MHz"


def test_plot_is_a_png_with_the_limit(one_node, tmp_path):
    import shutil
    if not shutil.which("gnuplot"):
        pytest.skip("gnuplot is not installed")
    r = se.load(one_node).run()
    p = r.plot(tmp_path / "run.png", title="one node")
    assert p.png[:8] == b"\x89PNG\r\n\x1a\n"
    assert p._repr_png_() == p.png
    assert (tmp_path / "run.png").read_bytes() == p.png
    w, h = int.from_bytes(p.png[16:20], "big"), int.from_bytes(p.png[20:24], "big")
    assert (w, h) == (1200, 600)
    cfg = tmp_path / "one.cfg"  # the scenario's own file is not overwritten
    cfg.write_text(one_node)
    with pytest.raises(se.SitsError):
        se.load(str(cfg)).run().plot(cfg)
    assert cfg.read_text() == one_node
    # a symlink or a FIFO is not replaced
    link = tmp_path / "link.png"
    os.symlink(cfg, link)
    with pytest.raises(se.SitsError, match="not a regular file"):
        p.save(link)
    assert link.is_symlink() and cfg.read_text() == one_node
    fifo = tmp_path / "fifo.png"
    os.mkfifo(fifo)
    with pytest.raises(se.SitsError, match="not a regular file"):
        p.save(fifo)


MARKS = """
platform = { thermal = {
  nodes = ( { name = "die"; c_j_per_k = 2.0; junction = true; critical_c = 95.0; } );
  links = ( { a = "die"; b = "ambient"; r_k_per_w = 7.0; } ); };
  domains = ( { name = "gpu"; node = "die"; ceff_f = 1.0e-8; idle_w = 0.5; max_rate = 100.0;
    opp = ( { freq_mhz = 300.0; volt_v = 0.6; power_w = 2.0; },
            { freq_mhz = 600.0; volt_v = 0.75; power_w = 6.0; },
            { freq_mhz = 900.0; volt_v = 0.9; power_w = 12.0; } ); } );
  governor = { kind = "performance"; period_s = 0.05;
    thermal = { kind = "step_wise"; sensor = "die"; trip_c = 70.0; hysteresis_c = 2.0; };
    power_cap = { window_s = 1.0; }; }; };
workload = { phases = ( { duration_s = 20.0; demand = { gpu = 1.0; }; },
                        { duration_s = 20.0; demand = { gpu = 0.1; }; } ); };
ambient_c = 25.0; duration_s = 40.0; tdp_budget_w = 9.0;
"""


def _colours(png_path, *rgb):
    counter = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "cli",
                           "png_colour_count.py")
    out = subprocess.run([sys.executable, counter, str(png_path), *rgb], check=True,
                         capture_output=True, text=True).stdout.split()
    return [int(v) for v in out]


def test_plot_marks_throttling_and_events(tmp_path):
    """Result.plot() shades thermal throttling (#f6c9c4) and the power cap (#f3e2b3) and marks
    a critical temperature (#7b1fa2), as run --plot does (the same run as the CLI's test:
    the cap from 0.6 s, the trip at 17.55 s; with critical_c 45 C the run ends at 5.3 s)."""
    import shutil
    if not shutil.which("gnuplot"):
        pytest.skip("gnuplot is not installed")
    cfg = tmp_path / "marks.cfg"
    cfg.write_text(MARKS)
    both = se.load(str(cfg)).run().plot(tmp_path / "both.png")
    assert both.png[:4] == b"\x89PNG"
    thermal, cap, event = _colours(tmp_path / "both.png", "f6c9c4", "f3e2b3", "7b1fa2")
    assert thermal > 300 and cap > 300 and event == 0, (thermal, cap, event)
    se.load(str(cfg), set={"platform.thermal.nodes.[0].critical_c": 45.0}).run().plot(
        tmp_path / "critical.png")
    thermal, cap, event = _colours(tmp_path / "critical.png", "f6c9c4", "f3e2b3", "7b1fa2")
    assert thermal == 0 and cap > 300 and event > 50, (thermal, cap, event)
