"""Shared set-up: the shipped configs folder and a one-node scenario with closed forms."""
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"

# One node (C = 2 J/K, R = 3 K/W to a 25 C ambient) under 5 W for 30 s: the node follows
# T(t) = 25 + 15 (1 - exp(-t / 6)) exactly (tau = RC = 6 s).
ONE_NODE = """
platform = { thermal = {
  nodes = ( { name = "die"; c_j_per_k = 2.0; junction = true; } );
  links = ( { a = "die"; b = "ambient"; r_k_per_w = 3.0; } ); }; };
workload = { phases = ( { duration_s = 30.0; power_w = { die = 5.0; }; } ); };
ambient_c = 25.0;
sample_period_s = 0.5;
"""


@pytest.fixture
def configs():
    return CONFIGS


@pytest.fixture
def one_node():
    return ONE_NODE


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing a test writes lands in the source tree
