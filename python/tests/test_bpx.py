"""BPX: export and import round trip, temperature dependence, refusal of physics-based sets."""
import json

import pytest

import sitsenergy as se
from sitsenergy import bpx


def _roundtrip(configs, tmp_path, scenario, battery=None):
    sets = {"platform.battery": battery} if battery else {}
    sc = se.load(str(configs / scenario), set=sets)
    d = sc.bpx()
    assert d["Header"]["Model"] == "Partial"
    path = tmp_path / "cell.cfg"
    path.write_text(bpx.to_config(d))
    again = se.load(str(configs / scenario), set={"platform.battery": str(path)})
    assert again.bpx() == d  # every value, table and name, exactly
    return sc, again, d


def test_roundtrip_a123_cell(configs, tmp_path):
    sc, again, d = _roundtrip(configs, tmp_path, "scenarios/a123_cell_calibrate.cfg")
    ud = d["Parameterisation"]["User-defined"]
    assert ud["R0 [Ohm]"] == pytest.approx(0.01125)
    assert ud["R1 [Ohm]"] == pytest.approx(0.1194) and ud["C1 [F]"] == pytest.approx(97675.0)
    assert ud["Nominal cell capacity [A.h]"] == pytest.approx(2.0726)


def test_roundtrip_arrhenius_pack(configs, tmp_path):
    # the A123 4S2P pack: an Arrhenius resistance (BPX is per cell: the cell is exported)
    sc, again, d = _roundtrip(configs, tmp_path, "scenarios/orin_nx_video_enc.cfg",
                              "a123_lfp_4s2p")
    ud = d["Parameterisation"]["User-defined"]
    assert ud["Resistance activation energy [J.mol-1]"] == pytest.approx(25000.0)
    # its capacity over temperature (the C/30 tests' factors on 2.0726 Ah), T in K
    q = ud["Cell capacity by temperature [A.h]"]
    assert q["x"][0] == pytest.approx(258.15) and q["x"][-1] == pytest.approx(318.15)
    assert q["y"][0] == pytest.approx(2.0726 * 0.98858) and q["y"][4] == pytest.approx(2.0726)
    assert ud["Reference temperature [K]"] == pytest.approx(298.15)
    # the pack runs the same with the cell read back (same values, same results)
    base = str(configs / "scenarios/orin_nx_video_enc.cfg")
    # the cells at the ambient in both runs (the pack file's own node is not part of BPX)
    a = se.load(base, set={"platform.battery": "a123_lfp_4s2p", "duration_s": 60,
                           "platform.battery.node": "ambient"}).run()
    cell = tmp_path / "cell.cfg"  # written by _roundtrip: a 1S1P battery file
    text = cell.read_text().replace("series = 1;", "series = 4;").replace("parallel = 1;",
                                                                         "parallel = 2;")
    text = text.replace("};\n", "  initial_soc = 1.0;\n  efficiency = 0.92;\n};\n")
    cell.write_text(text)
    b = se.load(base, set={"platform.battery": str(cell), "duration_s": 60}).run()
    assert b.summary["battery"]["final_soc"] == a.summary["battery"]["final_soc"]
    assert b.summary["max_junction_temp_c"] == a.summary["max_junction_temp_c"]


def test_roundtrip_ocv_by_temperature(configs, tmp_path):
    soc = [0.0, 0.25, 0.5, 0.75, 1.0]
    rows = {"273.15": [3.0, 3.2, 3.3, 3.4, 3.6], "298.15": [3.05, 3.25, 3.32, 3.42, 3.62],
            "318.15": [3.07, 3.27, 3.33, 3.43, 3.63]}
    d = {"Header": {"BPX": "0.5.0", "Title": "three-T cell", "Model": "Partial"},
         "Parameterisation": {"User-defined": {
             "Nominal cell capacity [A.h]": 3.0,
             "Open-circuit voltage [V]": {"x": soc, "y": rows["298.15"]},
             "Open-circuit voltage by temperature [V]": {
                 k: {"x": soc, "y": v} for k, v in rows.items()},
             "R0 [Ohm]": 0.02, "R1 [Ohm]": 0.01, "C1 [F]": 2000.0, "R2 [Ohm]": 0.02,
             "C2 [F]": 40000.0, "Lower voltage cut-off [V]": 2.8}}}
    path = tmp_path / "three.cfg"
    path.write_text(bpx.to_config(d))
    sc = se.load(str(configs / "scenarios/orin_nx_video_enc.cfg"),
                 set={"platform.battery": str(path), "duration_s": 30})
    out = bpx.read(sc.bpx())
    assert out["ocv_t_c"] == pytest.approx([0.0, 25.0, 45.0])
    assert out["ocv_v_t"][2] == pytest.approx(rows["318.15"])
    assert [p["c_f"] for p in out["rc"]] == pytest.approx([2000.0, 40000.0])
    assert out["cutoff_v"] == pytest.approx(2.8)
    assert sc.run().summary["end_reason"] == "duration"


def test_file_written_and_read(configs, tmp_path):
    sc = se.load(str(configs / "scenarios/a123_cell_calibrate.cfg"))
    bpx.write(sc, tmp_path / "c.json", title="A123 ANR26650")
    d = json.loads((tmp_path / "c.json").read_text())
    assert d["Header"]["Title"] == "A123 ANR26650"
    assert bpx.read(tmp_path / "c.json")["name"] == "A123_ANR26650"


def test_physics_based_refused():
    dfn = {"Header": {"BPX": "0.5.0", "Model": "DFN"},
           "Parameterisation": {"Cell": {}, "Electrolyte": {}, "Negative electrode": {},
                                "Positive electrode": {}, "Separator": {}}}
    with pytest.raises(bpx.BPXPhysicsBased, match="physics-based DFN"):
        bpx.read(dfn)
    with pytest.raises(bpx.BPXError, match="not a BPX file"):
        bpx.read({"x": 1})
    bad = {"Header": {"Model": "Partial"}, "Parameterisation": {"User-defined": {
        "R0 [Ohm]": -1, "Open-circuit voltage [V]": {"x": [0, 0.5, 1], "y": [3, 3.3, 3.6]},
        "Nominal cell capacity [A.h]": 2.0}}}
    with pytest.raises(bpx.BPXError, match="R0"):
        bpx.read(bad)


def test_pybamm_names_and_cell_section(configs, tmp_path):
    # PyBaMM's ECM calls the capacity "Cell capacity [A.h]"; a Partial BPX may keep the
    # capacity and cut-offs in its Cell section
    soc = [0.0, 0.5, 1.0]
    d = {"Header": {"BPX": "0.5.0", "Model": "Partial"},
         "Parameterisation": {
             "Cell": {"Nominal cell capacity [A.h]": 5.0, "Lower voltage cut-off [V]": 2.5},
             "User-defined": {"Open-circuit voltage [V]": {"x": soc, "y": [3.0, 3.6, 4.1]},
                              "R0 [Ohm]": 0.01}}}
    c = bpx.read(d)
    assert c["capacity_ah"] == 5.0 and c["cutoff_v"] == 2.5 and c["rc"] == []
    d["Parameterisation"]["User-defined"]["Cell capacity [A.h]"] = 4.8
    assert bpx.read(d)["capacity_ah"] == 4.8
    path = tmp_path / "c.cfg"
    path.write_text(bpx.to_config(d))
    sc = se.load(str(configs / "scenarios/orin_nx_video_enc.cfg"),
                 set={"platform.battery": str(path), "duration_s": 20})
    assert sc.bpx()["Parameterisation"]["User-defined"]["Nominal cell capacity [A.h]"] == 4.8


def test_errors_name_the_file(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"Header": {"Model": "Partial"},\n "Parameterisation": {\n')
    with pytest.raises(bpx.BPXError, match=r"bad\.json:3: not JSON"):
        bpx.read(str(p))
    p.write_text(json.dumps({"Header": {"Model": "DFN"},
                             "Parameterisation": {"Negative electrode": {}}}))
    with pytest.raises(bpx.BPXPhysicsBased, match=r"bad\.json: this BPX file is a physics"):
        bpx.read(str(p))


def test_roundtrip_resistance_rows_over_temperature(configs, tmp_path):
    # the NCA cell's R and C tables by temperature (r_t_c) and SOC (r_soc) go out as absolute
    # values and come back as the same factors (a run with the cell read back is the same run)
    sc, again, d = _roundtrip(configs, tmp_path, "scenarios/a123_cell_calibrate.cfg",
                              "panasonic_ncr18650pf_temps")
    ud = d["Parameterisation"]["User-defined"]
    r0 = ud["R0 by temperature and SOC [Ohm]"]
    assert sorted(r0) == ["253.15", "263.15", "273.15", "283.15", "298.15"]
    assert r0["253.15"]["x"] == [0.1, 0.3, 0.5, 0.7, 0.9]
    # configs/batteries/panasonic_ncr18650pf_temps.cfg: r0_ohm 0.0293141, -20 C row at SOC 0.1
    # has factor 0.864163; the second pair's C at 0 C: 14619.1 F x 0.0979877
    assert r0["253.15"]["y"][0] == pytest.approx(0.0293141 * 0.864163, rel=1e-11)
    c2 = ud["C2 by temperature and SOC [F]"]["273.15"]["y"]
    assert c2 == pytest.approx([14619.1 * 0.0979877] * 5, rel=1e-11)
    cell = bpx.read(d)
    assert cell["r_t_c"] == [-20.0, -10.0, 0.0, 10.0, 25.0]
    assert cell["r0_scale"][0][0] == pytest.approx(0.864163, rel=1e-12)
    assert cell["rc"][1]["c_scale"][2] == pytest.approx([0.0979877] * 5, rel=1e-12)
    base = str(configs / "scenarios/a123_cell_calibrate.cfg")
    a = se.load(base, set={"platform.battery": "panasonic_ncr18650pf_temps"}).run()
    b = again.run()
    assert b.summary["battery"] == a.summary["battery"]


def test_roundtrip_resistance_over_soc_and_hysteresis(configs, tmp_path):
    sets = ['platform.battery="panasonic_ncr18650pf"',
            "platform.battery.hysteresis={ m_v = 0.012; gamma = 40.0; initial = 1.0; "
            "m0_v = 0.003; }"]
    base = str(configs / "scenarios/a123_cell_calibrate.cfg")
    sc = se.load(base, set=sets)
    d = sc.bpx()
    ud = d["Parameterisation"]["User-defined"]
    # configs/batteries/panasonic_ncr18650pf.cfg: r0_ohm 0.0293141, r0_scale at SOC 0.1 2.05809
    assert ud["R0 by SOC [Ohm]"]["x"] == [0.1, 0.3, 0.5, 0.7, 0.9]
    assert ud["R0 by SOC [Ohm]"]["y"][0] == pytest.approx(0.0293141 * 2.05809, rel=1e-11)
    assert not any("temperature and SOC" in k for k in ud)
    assert ud["Hysteresis magnitude [V]"] == 0.012 and ud["Hysteresis decay rate"] == 40.0
    assert ud["Initial hysteresis state"] == 1.0 and ud["Instantaneous hysteresis [V]"] == 0.003
    path = tmp_path / "cell.cfg"
    path.write_text(bpx.to_config(d))
    again = se.load(base, set={"platform.battery": str(path)})
    assert again.bpx() == d
    assert again.run().summary["battery"] == sc.run().summary["battery"]


def test_resistance_tables_refused_when_inconsistent():
    soc = [0.0, 0.5, 1.0]
    base = {"Nominal cell capacity [A.h]": 2.0, "R0 [Ohm]": 0.02, "R1 [Ohm]": 0.01,
            "C1 [F]": 1000.0,
            "Open-circuit voltage [V]": {"x": soc, "y": [3.0, 3.5, 4.1]},
            "R0 by SOC [Ohm]": {"x": [0.2, 0.8], "y": [0.03, 0.02]}}

    def cell(**extra):
        ud = {k: v for k, v in {**base, **extra}.items() if v is not None}
        return {"Header": {"Model": "Partial"}, "Parameterisation": {"User-defined": ud}}

    assert bpx.read(cell())["r0_scale"] == pytest.approx([1.5, 1.0])
    with pytest.raises(bpx.BPXError, match="share their SOC points"):
        bpx.read(cell(**{"R1 by SOC [Ohm]": {"x": [0.2, 0.5, 0.8], "y": [0.01] * 3}}))
    with pytest.raises(bpx.BPXError, match="all be by SOC or all by the same temperatures"):
        bpx.read(cell(**{"R1 by temperature and SOC [Ohm]": {
            "273.15": {"x": [0.2, 0.8], "y": [0.02, 0.01]}}}))
    with pytest.raises(bpx.BPXError, match="positive numbers"):
        bpx.read(cell(**{"R1 by SOC [Ohm]": {"x": [0.2, 0.8], "y": [0.01, -0.01]}}))
    with pytest.raises(bpx.BPXError, match="x and y must be numbers"):
        bpx.read(cell(**{"R1 by SOC [Ohm]": {"x": [0.2, 0.8], "y": [0.01, "a lot"]}}))
    with pytest.raises(bpx.BPXError, match="x and y must be numbers"):
        bpx.read(cell(**{"Open-circuit voltage [V]": {"x": soc, "y": [3.0, None, 4.1]}}))
    with pytest.raises(bpx.BPXError, match="increase within"):
        bpx.read(cell(**{"R1 by SOC [Ohm]": {"x": [0.8, 0.2], "y": [0.01, 0.01]}}))
    with pytest.raises(bpx.BPXError, match="temperatures in K"):
        bpx.read(cell(**{"R0 by SOC [Ohm]": None,
                         "R0 by temperature and SOC [Ohm]": {"cold": {"x": [0, 1],
                                                                      "y": [1, 1]}}}))
    with pytest.raises(bpx.BPXError, match=r"'R2 by SOC \[Ohm\]': the cell has no pair 2"):
        bpx.read(cell(**{"R2 by SOC [Ohm]": {"x": [0.2, 0.8], "y": [0.01, 0.01]}}))
    with pytest.raises(bpx.BPXError, match="Hysteresis decay rate"):
        bpx.read(cell(**{"Hysteresis magnitude [V]": 0.01}))


def test_capacity_by_temperature_checked(configs, tmp_path):
    """A capacity table over temperature reads back into capacity_t_c/capacity_scale, and one
    whose temperatures do not increase, or with a capacity <= 0, is refused."""
    d = se.load(str(configs / "scenarios/orin_nx_video_enc.cfg"),
                set={"platform.battery": "a123_lfp_4s2p"}).bpx()
    c = bpx.read(d)
    assert c["capacity_t_c"] == [-15.0, -5.0, 5.0, 15.0, 25.0, 35.0, 45.0]
    assert c["capacity_scale"][0] == pytest.approx(0.98858)
    for bad in ({"x": [300.0, 280.0], "y": [2.0, 2.1]}, {"x": [280.0, 300.0], "y": [0.0, 2.1]}):
        d["Parameterisation"]["User-defined"]["Cell capacity by temperature [A.h]"] = bad
        with pytest.raises(bpx.BPXError, match="Cell capacity by temperature"):
            bpx.read(d)
