"""Library errors are exceptions with the file:line message; no input aborts the interpreter."""
import random

import numpy as np
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
    with pytest.raises(se.SitsError) as e:
        se.load("/nonexistent/dir/x.cfg")
    assert e.value.message.startswith("/nonexistent/dir/x.cfg: cannot read"), e.value.message
    assert "syntax error" not in e.value.message


def test_error_has_file_and_line(tmp_path, one_node):
    p = tmp_path / "two.cfg"
    p.write_text(one_node + "ambient_cc = 3.0;\n")
    with pytest.raises(se.SitsError) as e:
        se.load(p)  # a pathlib.Path is a path too
    assert e.value.file == str(p)
    assert e.value.line == one_node.count("\n") + 1  # the added line
    with pytest.raises(se.SitsError) as e:
        se.load("platform = { thermal = ;\n")
    assert (e.value.file, e.value.line) == ("<text>", 1)
    with pytest.raises(se.SitsError) as e:
        se.load(one_node, set={"ambient_c": -400})
    assert e.value.file is None and e.value.line is None  # an option, not a place


def test_include_of_a_directory_or_nothing_is_an_error(tmp_path, one_node):
    (tmp_path / "d").mkdir()
    for inc in ("d", ""):
        p = tmp_path / "inc.cfg"
        p.write_text(f'@include "{inc}"\n' + one_node)
        with pytest.raises(se.SitsError) as e:
            se.load(str(p))
        assert e.value.file == str(p) and e.value.line == 1, e.value.message


def test_to_h5_refuses_the_scenarios_inputs(tmp_path, one_node):
    p = tmp_path / "ok.cfg"
    p.write_text(one_node)
    r = se.load(str(p)).run()
    before = p.read_text()
    with pytest.raises(se.SitsError, match="an output would replace the input"):
        r.to_h5(str(p))
    assert p.read_text() == before
    link = tmp_path / "link.h5"
    link.symlink_to(p)
    with pytest.raises(se.SitsError, match="an output would replace the input"):
        r.to_h5(str(link))
    assert p.read_text() == before
    r.to_h5(str(tmp_path / "out.h5"))
    assert (tmp_path / "out.h5").stat().st_size > 0


@pytest.mark.parametrize("jobs", [0, -1, 257, 10**6, 1.5, "2", True])
def test_sweep_jobs_out_of_range(one_node, jobs):
    with pytest.raises(se.SitsError, match="jobs="):
        se.sweep(se.load(one_node), vary={"ambient_c": [20, 30]}, jobs=jobs)


@pytest.mark.parametrize("sample", [0, -1, 10**8, 2.5, "8", True])
def test_sweep_sample_out_of_range(one_node, sample):
    # a SitsError naming the value (-1 reached the C call as a cffi OverflowError; 0 said
    # "dist needs sample")
    with pytest.raises(se.SitsError, match="sample="):
        se.sweep(se.load(one_node), dist={"ambient_c": "uniform(20,30)"}, sample=sample)


def test_sweep_sample_takes_numpy_integers(one_node):
    df = se.sweep(se.load(one_node), dist={"ambient_c": "uniform(20,30)"}, sample=np.int64(3))
    assert len(df) == 3


def test_sweep_sample_without_dist(one_node):
    with pytest.raises(se.SitsError, match="sample needs at least one dist"):
        se.sweep(se.load(one_node), sample=4)


def test_garbage_never_aborts():
    rng = random.Random(7)
    alphabet = "platform={};[]()\"=.,0123456789abcdefghijklmnopqrstuvwxyz_ \n-+e"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 200)))
        try:
            se.load(text).run()
        except se.SitsError as e:
            assert e.message


def test_a_text_names_itself_in_every_message():
    # a value's error in a text said "<config>:1", its syntax error "<text>:1": one name now
    with pytest.raises(se.SitsError) as e:
        se.load('ambient_c = "x";\n')
    assert e.value.message.startswith("<text>:1: 'ambient_c'"), e.value.message
    with pytest.raises(se.SitsError) as e:
        se.load('ambient_c = "x";\n', name="mine.cfg")
    assert e.value.message.startswith("mine.cfg:1:"), e.value.message


def test_no_path_or_text():
    with pytest.raises(TypeError):
        se.load(None)
    with pytest.raises(se.SitsError, match="an empty path or text") as e:
        se.load("")
    assert e.value.code == se.EINPUT
