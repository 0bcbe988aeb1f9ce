"""Clue Control (issue 31, part 1): the latency benchmark runs and reports each figure (never asserted
as a speed: targets live in benchmarks/, and a loaded machine is not a slow prop)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT


def test_the_controllers_benchmark_reports_both_ways_for_clue_control() -> None:
    run = subprocess.run(
        [sys.executable, "benchmarks/controllers.py", "clue_control", "--samples", "4", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout)["clue_control"]
    assert set(report) == {"command_to_effect_ms", "event_to_coil_ms"}
    assert set(report["command_to_effect_ms"]) == {"output (100/101)", "solve/reset (1/2)"}
    assert set(report["event_to_coil_ms"]) == {"output", "solved"}
    for rows in report.values():
        for figures in rows.values():
            assert figures["n"] == 4
            assert 0 < figures["p50"] <= figures["p99"] <= figures["max"]


def test_an_unknown_part_is_one_line() -> None:
    run = subprocess.run(
        [sys.executable, "benchmarks/controllers.py", "osc"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1] == "controllers.py: error: unknown part 'osc' (known: clue_control)"
