"""Library errors are exceptions with the file:line message; no input aborts the interpreter."""
import random

import pytest

import sitsenergy as se


def test_bad_key_names_file_and_line(tmp_path, one_node):
    p = tmp_path / "bad.cfg"
    p.write_text(one_node + "ambient_cc = 3.0;\n")
    with pytest.raises(se.SitsError) as e:
        se.load(str(p))
    assert "bad.cfg:" in e.value.message and "ambient_cc" in e.value.message
    assert e.value.code == se.EINPUT


def test_syntax_error_in_text():
    with pytest.raises(se.SitsError) as e:
        se.load("platform = { thermal = ;\n")
    assert "<text>:1" in e.value.message


def test_bad_set_value(one_node):
    with pytest.raises(se.SitsError) as e:
        se.load(one_node, set={"ambient_c": -400})
    assert "ambient_c" in e.value.message


def test_unknown_domain(configs):
    sc = se.load(str(configs / "scenarios/mlu370_resnet50.cfg"))
    with pytest.raises(se.SitsError, match="no domain 'gpu'"):
        sc.dvfs_table("gpu")


def test_missing_file():
    with pytest.raises(se.SitsError):
        se.load("/nonexistent/dir/x.cfg")


def test_garbage_never_aborts():
    rng = random.Random(7)
    alphabet = "platform={};[]()\"=.,0123456789abcdefghijklmnopqrstuvwxyz_ \n-+e"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 200)))
        try:
            se.load(text).run()
        except se.SitsError as e:
            assert e.message
