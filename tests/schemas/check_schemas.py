#!/usr/bin/env python3
"""check_schemas.py CLI ROOT WORK - every JSON output kind validated against its schema in
docs/schemas/ (jsonschema, Draft 2020-12), on several scenarios each; and each schema rejects
its output with a required field taken out (the schemas are not vacuous)."""
import copy
import json
import os
import subprocess
import sys

import jsonschema

cli, root, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
cfg = lambda rel: os.path.join(root, "configs", rel)
schemas = {}
for name in os.listdir(os.path.join(root, "docs", "schemas")):
    with open(os.path.join(root, "docs", "schemas", name)) as f:
        s = json.load(f)
    jsonschema.Draft202012Validator.check_schema(s)
    schemas[name.replace(".schema.json", "")] = s


def out(*args, ok=(0, 3)):
    p = subprocess.run([cli, *args], capture_output=True, text=True, cwd=work)
    if p.returncode not in ok:
        sys.exit(f"{' '.join(args)}: exit {p.returncode}: {p.stderr[-400:]}")
    return json.loads(p.stdout)


def check(kind, doc, what):
    v = jsonschema.Draft202012Validator(schemas[kind])
    errors = sorted(v.iter_errors(doc), key=str)
    if errors:
        sys.exit(f"{kind} ({what}): {errors[0].message} at {list(errors[0].path)}")
    if doc.get("schema_version") != 1:
        sys.exit(f"{kind} ({what}): schema_version {doc.get('schema_version')}")
    for key in schemas[kind]["required"]:  # each required field is needed
        broken = copy.deepcopy(doc)
        del broken[key]
        if v.is_valid(broken):
            sys.exit(f"{kind}: valid without '{key}'")
    counts[kind] = counts.get(kind, 0) + 1


counts = {}
ex = cfg("examples/video_enc.cfg")
check("run-summary", out("run", ex, "--set", "duration_s=60", "--summary", "json", "--quiet"),
      "example")
check("run-summary", out("run", ex, "--set", "platform.thermal.nodes.[0].critical_c=40",
                         "--summary", "json", "--quiet"), "critical end")
check("run-summary", out("run", cfg("scenarios/orin_nx_vlm_burst.cfg"), "--summary", "json",
                         "--quiet"), "power cap, no battery")
check("run-summary", out("run", cfg("scenarios/ev6_floorplan_throttle.cfg"), "--set",
                         "duration_s=0.2", "--set", 'platform.thermal.hotspot.model="grid"',
                         "--set", "platform.thermal.hotspot.rows=8", "--set",
                         "platform.thermal.hotspot.cols=8", "--summary", "json", "--quiet"),
      "grid path")
check("run-summary", out("run", cfg("scenarios/hotspot_3node_step.cfg"), "--set",
                         'solver.method="cvode"', "--summary", "json", "--quiet"), "cvode")
check("steady", out("steady", ex), "example")
check("steady", out("steady", ex, "--set", "platform.domains.[0].leak_per_k=0.2"), "runaway")
check("dvfs-table", out("dvfs-table", ex, "--format", "json"), "example cpu")
check("dvfs-table", out("dvfs-table", cfg("scenarios/mlu370_resnet50.cfg"), "--format", "json"),
      "mlu370")
check("replay", out("replay", cfg("scenarios/orin_nano_replay.cfg"), "--trace",
                    os.path.join(root, "tests/data/tegrastats/orin_nano_jp6_real.raw"),
                    "--summary", "json"), "orin nano")
lagged = out("replay", os.path.join(root, "validation/cases/orin_nano_jp6.cfg"), "--trace",
             os.path.join(root, "validation/data/orin_nano_jp6_tegrastats.raw"), "--set",
             "replay.sensors.[0].lag_s=0.5", "--summary", "json")
check("replay", lagged, "a sensor read through a lag")
if lagged["sensors"]["temp_c.tj"].get("lag_s") != 0.5:
    sys.exit("replay with replay.sensors.[0].lag_s=0.5: the JSON does not name the lag")
check("calibrate", out("calibrate", os.path.join(root, "validation/cases/orin_nano_jp6.cfg"),
                       "--trace", os.path.join(root, "validation/data/orin_nano_jp6_tegrastats.raw"),
                       "--fit", "thermal,ambient", "-o", "thermal.cfg"), "thermal")
check("calibrate", out("calibrate", os.path.join(root, "validation/cases/orin_nano_jp6.cfg"),
                       "--trace", os.path.join(root, "validation/data/orin_nano_jp6_tegrastats.raw"),
                       "--fit", "ambient,initial", "-o", "kept.cfg"), "kept network")
banded = out("replay", os.path.join(work, "thermal.cfg"), "--trace",
             os.path.join(root, "validation/data/orin_nano_jp6_tegrastats.raw"), "--summary", "json")
check("replay", banded, "a calibrated scenario: bands")
if "band" not in banded["sensors"]["temp_c.tj"]:
    sys.exit("replay of a calibrated scenario: no band")
for kind, args in (("run-summary", ("run", "--summary", "json", "--quiet")), ("steady", ("steady",))):
    doc = out(args[0], os.path.join(work, "thermal.cfg"), *args[1:])
    check(kind, doc, "a calibrated scenario: band")
    if "band" not in doc:
        sys.exit(f"{args[0]} of a calibrated scenario: no band")
auto = out("calibrate", os.path.join(root, "validation/cases/orin_nano_jp6.cfg"), "--trace",
           os.path.join(root, "validation/data/orin_nano_jp6_tegrastats.raw"), "--fit", "auto",
           "-o", "auto.cfg")
check("calibrate", auto, "auto")
if auto.get("bounds", {}).get("method") != "physics":
    sys.exit("calibrate --fit auto: no physics bounds")
check("calibrate", out("calibrate", os.path.join(root, "validation/cases/orin_nano_jp6.cfg"),
                       "--trace", os.path.join(root, "validation/data/orin_nano_jp6_tegrastats.raw"),
                       "--fit", "thermal,ambient", "--orders", "1,2", "-o", "orders.cfg"), "orders")
fan = ('platform.fans=({name="fan";a="heatsink";b="ambient";sensor="die";duty=[0.0,1.0];'
       'r_k_per_w=[3.4,2.0];trips=({temp_c=55.0;hysteresis_c=5.0;duty=1.0;});})')
trips = out("calibrate", os.path.join(root, "validation/cases/orin_nano_jp6.cfg"),
            "--trace", os.path.join(root, "validation/data/orin_nano_jp6_tegrastats.raw"),
            "--fit", "thermal,ambient,trips", "--set", fan, "-o", "trips.cfg")
check("calibrate", trips, "trip scan")
if len(trips["trip_scan"]) != 36 or "trips" not in trips["fit"]:
    sys.exit(f"calibrate (trip scan): {len(trips['trip_scan'])} trials, fit {trips['fit']}")
check("calibrate", out("calibrate", cfg("scenarios/leaf_cell_calibrate.cfg"), "--trace",
                       os.path.join(root, "validation/data/leaf_c15_discharge_cycle2.csv"),
                       "--fit", "battery", "-o", "battery.cfg", "--bpx", "battery.bpx.json"), "battery")
check("calibrate", out("calibrate", cfg("scenarios/leaf_cell_calibrate.cfg"), "--trace",
                       os.path.join(root, "validation/data/leaf_c15_discharge_cycle2.csv"),
                       "--fit", "battery,lag", "-o", "lag.cfg"), "battery with lag")
check("calibrate", out("calibrate", cfg("scenarios/leaf_cell_calibrate.cfg"), "--trace",
                       os.path.join(root, "validation/data/leaf_c15_discharge_cycle2.csv"),
                       "--fit", "soc,lag", "--train-fraction", "0.1", "-o", "kept.cfg"),
      "kept cell")
check("calibrate", out("calibrate", cfg("scenarios/leaf_cell_calibrate.cfg"), "--trace",
                       os.path.join(root, "validation/data/leaf_c15_discharge_cycle2.csv"),
                       "--fit", "battery,lag", "--initial-soc", "1", "-o", "soc_given.cfg"),
      "a given initial SOC")
check("calibrate", out("calibrate", os.path.join(root, "validation/cases/pan18650pf_us06.cfg"),
                       "--set", "platform.battery=panasonic_ncr18650pf", "--trace",
                       os.path.join(root, "validation/data/pan18650pf_nn_m10degC.csv"),
                       "--temp-col", "temp_c", "--fit", "soc,lag,arrhenius",
                       "--train-fraction", "0.6", "-o", "arrhenius.cfg"), "kept cell, arrhenius")
nn = lambda t: os.path.join(root, "validation/data/pan18650pf_nn_%sdegC.csv" % t)
check("calibrate", out("calibrate", os.path.join(root, "validation/cases/pan18650pf_us06.cfg"),
                       "--trace", nn("m10"), "--trace", nn("m20"), "--temp-col", "temp_c",
                       "--fit", "battery,rows", "--train-fraction", "0.1", "-o", "rows.cfg",
                       "--bpx", "rows.bpx.json"),
      "two tests, rows over temperature")
check("calibrate", out("calibrate", os.path.join(root, "validation/cases/pan18650pf_us06.cfg"),
                       "--trace", nn("m10"), "--trace", nn("m20"), "--temp-col", "temp_c",
                       "--fit", "battery,lag,rows", "--train-fraction", "0.1", "--average-s", "1",
                       "-o", "rows_avg.cfg"), "two tests, rows, 1-s averages")
check("calibrate", out("calibrate", os.path.join(root, "validation/cases/pan18650pf_us06.cfg"),
                       "--set", "platform.battery=panasonic_ncr18650pf_temps", "--trace", nn("0"),
                       "--trace", nn("m10"), "--temp-col", "temp_c", "--fit", "soc,lag",
                       "--train-fraction", "0.05", "-o", "kept2.cfg"), "two tests, kept cell")
check("calibrate", out("calibrate", cfg("scenarios/a123_cell_calibrate.cfg"), *sum(
    (["--cycle", os.path.join(root, "validation/data", f)] for f in
     ("a123_dyn_25degC_s1.csv", "a123_dyn_25degC_s1_rest.csv", "a123_dyn_25degC_s2.csv",
      "a123_dyn_25degC_s3.csv")), []), "-o", "cycle.cfg"), "cycle")
check("calibrate", out("calibrate", os.path.join(root, "validation/cases/orin_nano_jp6.cfg"),
                       "--trace", os.path.join(root, "validation/data/orin_nano_jp6_tegrastats.raw"),
                       "--fit", "capacitance,ambient", "-o", "capacitance.cfg"), "capacitance")
auto = out("calibrate", os.path.join(root, "validation/cases/orin_nano_jp6.cfg"), "--trace",
           os.path.join(root, "validation/data/orin_nano_jp6_tegrastats.raw"), "--fit", "auto",
           "-o", "auto.cfg")
check("calibrate", auto, "auto")
if "auto" not in auto["fit"] or sum(c["chosen"] for c in auto["power_timing"]) != 1:
    sys.exit(f"calibrate (auto): fit {auto['fit']}, candidates {auto['power_timing']}")
check("sweep-summary", out("sweep", cfg("scenarios/orin_nx_video_enc.cfg"), "--set",
                           "duration_s=30", "--dist", "ambient_c=uniform(20,45)", "--sample", "6",
                           "--summary", "json", "-o", "s.csv"), "sampled")
for f in ("validation/data/h200_nvsmi_allcols.csv", "validation/data/h200_nvml_hook_capture.csv",
          "validation/data/orin_nano_jp6_tegrastats.raw", "validation/data/agx_orin_jtop.csv"):
    info = out("trace-info", os.path.join(root, f), "--summary", "json")
    check("trace-info", info, f)
    if info["columns"][0]["name"] != "time_s" or info["rows"] < 100:
        sys.exit(f"trace-info ({f}): {info['rows']} rows, first column {info['columns'][0]}")
# The BPX cells calibrate writes, against BPX 1.1.0's rules (tests/schemas/bpx-1.1.0.schema.json)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bpx-1.1.0.schema.json")) as f:
    bpx_schema = jsonschema.Draft202012Validator(json.load(f))


def tables(v, where):
    if isinstance(v, dict) and "x" in v:
        if len(v["x"]) != len(v["y"]) or len(v["x"]) < 2:
            sys.exit(f"bpx: {where}: x and y of {len(v['x'])} and {len(v['y'])} values")
    elif isinstance(v, dict):
        for k, w in v.items():
            tables(w, where + "." + k)


for name in ("battery.bpx.json", "rows.bpx.json"):
    with open(os.path.join(work, name)) as f:
        cell = json.load(f)
    errors = sorted(bpx_schema.iter_errors(cell), key=str)
    if errors:
        sys.exit(f"bpx ({name}): {errors[0].message} at {list(errors[0].path)}")
    tables(cell["Parameterisation"]["User-defined"], "User-defined")
    older = copy.deepcopy(cell)
    older["Header"]["BPX"] = "0.5.0"  # Partial arrived in BPX 1.1: the schema is not vacuous
    if bpx_schema.is_valid(older):
        sys.exit("bpx: a Partial file at BPX 0.5.0 passed")
    counts["bpx"] = counts.get("bpx", 0) + 1
print("validated: " + ", ".join(f"{k} x{n}" for k, n in sorted(counts.items())))
