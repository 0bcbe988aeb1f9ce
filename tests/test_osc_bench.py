"""OSC (issue 31, part 4): the latency benchmark runs and reports each figure (never asserted as a
speed: targets live in benchmarks/, and a loaded machine is not a slow prop)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT


def test_the_osc_benchmark_reports_both_ways():
    run = subprocess.run(
        [sys.executable, "benchmarks/controller_osc.py", "--samples", "4", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout)["osc"]
    assert set(report) == {"command_to_effect_ms", "event_to_cue_ms", "command_to_cue_ms"}
    assert set(report["event_to_cue_ms"]) == {"output", "solved"}
    for rows in report.values():
        for what, figures in rows.items():
            assert figures["n"] == (2 if what == "solved" else 4), what
            assert 0 < figures["p50"] <= figures["p99"] <= figures["max"]
