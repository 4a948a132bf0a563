"""A bounded fuzz of load() and set= (issue #36): mutated shipped scenarios and random
overrides either load (and then run a short while) or raise SitsError with a message; nothing
ends the interpreter, nothing else is raised. The seeds are fixed, so a failure repeats."""
import random

import pytest

import sitsenergy as se

SCENARIOS = ["examples/video_enc.cfg", "scenarios/orin_nx_vlm_burst.cfg",
             "scenarios/hotspot_3node_step.cfg", "scenarios/mlu370_resnet50.cfg",
             "scenarios/article_j5_vlm.cfg"]

# values a user (or a script gone wrong) could give: 64-bit edges, non-finite and odd texts
VALUES = [2**31 + 25, 2**32 + 2, 2**63 - 1, -2**63, 2**64, 1e308, -1e308, 1e-300, 0, -0.0, -1,
          float("nan"), float("inf"), "nan", "1e999", "", "x", "\u00e9\u4e2d", "a;b", "{", True,
          "@include \"/dev/zero\""]
KEYS = ["ambient_c", "duration_s", "sample_period_s", "tdp_budget_w", "max_junction_temp_c",
        "battery_capacity_wh", "battery_default", "max_samples", "platform", "workload_profile",
        "platform.thermal.nodes.[0].c_j_per_k", "platform.thermal.links.[0].r_k_per_w",
        "platform.thermal.nodes.[99].c_j_per_k", "platform.battery.r0_ohm",
        "platform.governor.thermal.hysteresis_c", "platform.fans.[0].trips.[0].temp_c",
        "solver.method", "nosuch.key", "platform.", ".", "a=b"]
TOKENS = ["=", ";", "{", "}", "(", ")", "[", "]", ",", "\"", "@include \"\"", "0x7fffffffffffffff",
          "4294967321", "1e309", "-", "\n", "\0", "platform", "nodes", "L"]


def _shorten(sc_text):
    return sc_text + "\nduration_s = 2.0;\n"


def _mutate(rng, text):
    k = rng.randrange(5)
    i = rng.randrange(len(text) + 1)
    if k == 0:  # cut
        return text[:i]
    if k == 1:  # delete a span
        return text[:i] + text[i + rng.randint(1, 40):]
    if k == 2:  # insert a token
        return text[:i] + rng.choice(TOKENS) + text[i:]
    if k == 3:  # a number replaced by an edge value
        for _ in range(20):
            j = rng.randrange(len(text))
            if text[j].isdigit():
                e = j
                while e < len(text) and (text[e].isdigit() or text[e] in ".e-"):
                    e += 1
                return text[:j] + repr(rng.choice(VALUES[:12])) + text[e:]
        return text
    lines = text.split("\n")  # a line repeated
    j = rng.randrange(len(lines))
    return "\n".join(lines[:j] + [lines[j]] + lines[j:])


def _try(load):
    try:
        sc = load()
    except se.SitsError as e:
        assert e.message and e.code in (se.EINPUT, se.ENOMEM, se.EIO, se.EUNSUPPORTED), e.message
        return "error"
    try:
        sc.run()
    except se.SitsError as e:
        assert e.message, "a SitsError without a message"
        return "run error"
    return "ok"


@pytest.mark.parametrize("name", SCENARIOS)
def test_mutated_scenarios(configs, monkeypatch, name):
    monkeypatch.chdir(configs / name.split("/")[0])  # names and includes resolve as shipped
    text = (configs / name).read_text()
    rng = random.Random(name)
    seen = {}
    for _ in range(300):
        t = _shorten(_mutate(rng, text))
        out = _try(lambda: se.load(t, set={"duration_s": 2.0}))
        seen[out] = seen.get(out, 0) + 1
    assert seen.get("error", 0) > 0, seen  # the mutations reach the checks


def test_random_overrides(configs):
    rng = random.Random(36)
    path = str(configs / "examples/video_enc.cfg")
    seen = {}
    for _ in range(600):
        sets = {rng.choice(KEYS): rng.choice(VALUES) for _ in range(rng.randint(1, 3))}
        sets["duration_s"] = sets.get("duration_s", 2.0)
        out = _try(lambda: se.load(path, set=sets))
        seen[out] = seen.get(out, 0) + 1
    assert seen.get("error", 0) > 0 and seen.get("ok", 0) > 0, seen


def test_64_bit_numbers_are_read_or_refused(configs):
    path = str(configs / "examples/video_enc.cfg")
    with pytest.raises(se.SitsError, match="ambient_c"):
        se.load(path, set={"ambient_c": 4294967321})  # 2**32 + 25: not 25 C
    with pytest.raises(se.SitsError, match="c_j_per_k must be > 0"):
        se.load(path, set={"platform.thermal.nodes.[0].c_j_per_k": -2**63 - 1})
    sc = se.load(path, set={"platform.thermal.nodes.[0].c_j_per_k": 4294967298,
                            "duration_s": 1.0})
    assert "c_j_per_k = 4294967298" in sc.config_text  # not 2
    # past 64 bits: read as the floating-point number it is
    sc = se.load(path, set={"platform.thermal.nodes.[0].c_j_per_k": 2**64, "duration_s": 1.0})
    assert "c_j_per_k = 1.84467440737096e+19" in sc.config_text
