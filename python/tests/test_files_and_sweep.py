"""read() of an HDF5 result equals the run; sweep() against closed forms and the CLI engine."""
import math

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
    os_ = __import__("os")
    link = tmp_path / "link.png"
    os_.symlink(cfg, link)
    with pytest.raises(se.SitsError, match="not a regular file"):
        p.save(link)
    assert link.is_symlink() and cfg.read_text() == one_node
    fifo = tmp_path / "fifo.png"
    os_.mkfifo(fifo)
    with pytest.raises(se.SitsError, match="not a regular file"):
        p.save(fifo)
