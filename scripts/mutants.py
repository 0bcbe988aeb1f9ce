"""Named mutants: does the suite notice when a behaviour is removed?

The mutants are data, in ``scripts/mutants.toml``: each one names a behaviour, a
piece of the product's text (``find``), the broken version that replaces it
(``replace``) and the tests that must fail on it. The text is found by searching
every file of ``firmware/`` and ``baccarat_core/``, not by a path, so a mutant
keeps working when the file that holds it is split, renamed or moved; it must
occur exactly once in the whole package (a mutant whose text is in no file, or
in two places, is refused with one line saying so).

Each mutant is applied in a scratch copy of the tree; its tests run against that
copy, and the mutant is *killed* when they fail. The working tree is never
touched. Simple operator and constant mutants are left to mutmut (``[tool.mutmut]``
in pyproject.toml, docs/develop/mutation.md); these are the behaviour-level ones a
tool does not make: a guard removed, a call dropped, a record taken from the wrong
place.

    .venv/bin/python scripts/mutants.py                 # every mutant, then the score per package
    .venv/bin/python scripts/mutants.py --jobs 2        # two at a time (a scratch copy each)
    .venv/bin/python scripts/mutants.py --only web      # mutants whose id contains "web"
    .venv/bin/python scripts/mutants.py --whole-suite --only storm   # against every test, not the named ones
    .venv/bin/python scripts/mutants.py --only pulse --tests tests/test_outputs.py  # against other tests
    .venv/bin/python scripts/mutants.py --list          # what each mutant breaks, where it is, and its tests
    .venv/bin/python scripts/mutants.py --check         # only: does every mutant still apply? (seconds)
    .venv/bin/python scripts/mutants.py --mutmut core   # mutmut on a part (PARTS), in a copy of the tree
    .venv/bin/python scripts/mutants.py --mutmut devices --only 'firmware.devices.outputs.*'  # some of it

Not part of ``scripts/test.sh``: it runs the named tests once per mutant, about
10 minutes with ``--jobs 2`` on a busy 2-core machine. Exit status 1 if a mutant
survived (or did not apply), 0 if all were killed. Python's byte-code cache is
off in the copy, so every run compiles the mutated file afresh.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().with_name("mutants.toml")
PYTHON = ROOT / ".venv" / "bin" / "python"
PACKAGES = ("baccarat_core", "firmware")  # where a mutant's text is looked for
IGNORED = shutil.ignore_patterns(
    ".venv", ".git", "__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache", "mutants", ".hypothesis"
)
FIELDS = {"id", "breaks", "find", "replace", "tests", "guards", "env"}


class DataError(Exception):
    """A mutant that cannot be applied: its data is malformed, or its text is not in one place."""


@dataclass(frozen=True)
class Mutant:
    """One replacement of a unique piece of the product's text, and the tests that should notice it."""

    id: str
    breaks: str
    find: str
    replace: str
    tests: tuple[str, ...]
    guards: str = ""  # the bullet it stands for, if any
    env: dict[str, str] = field(default_factory=dict)


def load(path: Path = DATA) -> list[Mutant]:
    """The mutants of ``path``; DataError naming the first malformed entry."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DataError(f"{path.name}: {exc}") from None
    entries = data.get("mutant")
    if not isinstance(entries, list) or not entries:
        raise DataError(f"{path.name}: no [[mutant]] entries")
    mutants: list[Mutant] = []
    seen: set[str] = set()
    for number, entry in enumerate(entries, 1):
        name = entry.get("id", f"entry {number}")
        unknown = set(entry) - FIELDS
        if unknown:
            raise DataError(f"{path.name}: mutant {name}: unknown field(s) {', '.join(sorted(unknown))}")
        for key in ("id", "breaks", "find", "replace"):
            if not isinstance(entry.get(key), str):
                raise DataError(f"{path.name}: mutant {name}: {key} must be a string")
        tests = entry.get("tests")
        if not isinstance(tests, list) or not tests or not all(isinstance(t, str) and t for t in tests):
            raise DataError(f"{path.name}: mutant {name}: tests must be a non-empty list of pytest arguments")
        if not entry["find"]:
            raise DataError(f"{path.name}: mutant {name}: find is empty")
        if entry["find"] == entry["replace"]:
            raise DataError(f"{path.name}: mutant {name}: replace is the same text as find")
        if name in seen:
            raise DataError(f"{path.name}: mutant {name} is given twice")
        seen.add(name)
        env = entry.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise DataError(f"{path.name}: mutant {name}: env must be a table of strings")
        mutants.append(
            Mutant(name, entry["breaks"], entry["find"], entry["replace"], tuple(tests), entry.get("guards", ""), env)
        )
    return mutants


def package_files(root: Path) -> dict[Path, str]:
    """Every text file of the product under ``root`` (its path relative to ``root``, and its text)."""
    files: dict[Path, str] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            try:
                files[path.relative_to(root)] = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # a sound or a picture
    return files


def locate(mutant: Mutant, files: dict[Path, str]) -> Path:
    """The one file that holds ``mutant.find``, once; DataError if it is in no file or in two places."""
    hits = [(path, text.count(mutant.find)) for path, text in files.items() if mutant.find in text]
    if not hits:
        raise DataError(f"mutant {mutant.id}: its text is in no file of {' or '.join(PACKAGES)}: {mutant.find!r}")
    if len(hits) > 1 or hits[0][1] > 1:
        places = ", ".join(f"{path} ({count}x)" for path, count in hits)
        raise DataError(f"mutant {mutant.id}: its text is in more than one place ({places}): make find longer")
    return hits[0][0]


def package_of(path: Path) -> str:
    """``baccarat_core``, or ``firmware`` and its subpackage (``firmware.room``)."""
    parts = path.parts
    if parts[0] == "firmware" and len(parts) > 2:
        return f"firmware.{parts[1]}"
    return parts[0]


def check(mutants: Iterable[Mutant], root: Path = ROOT) -> list[str]:
    """One line per mutant that does not apply to the tree at ``root`` (nothing when all do)."""
    files = package_files(root)
    problems = []
    for mutant in mutants:
        try:
            locate(mutant, files)
        except DataError as exc:
            problems.append(str(exc))
        for test in mutant.tests:
            if not (root / test.split("::")[0]).exists():
                problems.append(f"mutant {mutant.id}: its test {test} does not exist")
    return problems


# -- running --------------------------------------------------------------------------------------


def scratch_copy() -> Path:
    """A copy of the working tree (without .venv, .git and byte code) in a short /tmp path
    (the tests' Unix sockets need one)."""
    base = Path(tempfile.mkdtemp(prefix="bac-mut-", dir="/tmp"))
    tree = base / "t"
    shutil.copytree(ROOT, tree, ignore=IGNORED, symlinks=True)
    return tree


def pytest_run(tree: Path, tests: tuple[str, ...], env: dict[str, str], timeout: float) -> tuple[int, str]:
    """Run pytest on ``tests`` in ``tree``; (exit code, the last lines of its output)."""
    environ = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1", **env}
    command = [
        str(PYTHON),
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "--basetemp",
        str(tree.parent / "tmp"),
    ]
    try:
        done = subprocess.run(
            [*command, *tests], cwd=tree, env=environ, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout:g} s"
    lines = (done.stdout + done.stderr).strip().splitlines()
    failed = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    return done.returncode, " | ".join(failed[:2] + lines[-1:])


@dataclass
class Outcome:
    mutant: Mutant
    package: str
    verdict: str  # killed, SURVIVED, NOT APPLIED, ERROR
    seconds: float
    detail: str


def try_mutant(mutant: Mutant, tree: Path, tests: tuple[str, ...], timeout: float) -> Outcome:
    """Apply ``mutant`` in ``tree``, run its tests, put the file back."""
    try:
        relative = locate(mutant, package_files(tree))
    except DataError as exc:
        return Outcome(mutant, "?", "NOT APPLIED", 0.0, str(exc))
    path = tree / relative
    text = path.read_text(encoding="utf-8")
    started = time.monotonic()
    path.write_text(text.replace(mutant.find, mutant.replace), encoding="utf-8")
    try:
        code, tail = pytest_run(tree, tests, mutant.env, timeout)
    finally:
        path.write_text(text, encoding="utf-8")
    seconds = time.monotonic() - started
    package = package_of(relative)
    if code == 0:
        return Outcome(mutant, package, "SURVIVED", seconds, tail)
    if code == 5:
        return Outcome(mutant, package, "ERROR", seconds, "no tests ran: " + tail)
    return Outcome(mutant, package, "killed", seconds, "timed out" if code == -1 else tail)


def score_table(outcomes: list[Outcome]) -> list[str]:
    """The markdown table of killed / applied per package, with the issues' named behaviours apart."""
    rows: dict[str, Counter[str]] = {}
    for outcome in outcomes:
        for key in (outcome.package, "named in an issue" if outcome.mutant.guards else None):
            if key is not None:
                rows.setdefault(key, Counter())[outcome.verdict] += 1
    lines = ["| package | killed / applied |", "|---|---|"]
    for key in sorted(rows, key=lambda k: (k.startswith("named"), k)):
        counts = rows[key]
        applied = counts["killed"] + counts["SURVIVED"]
        lines.append(f"| {key} | {counts['killed']} / {applied} |")
    total = Counter(o.verdict for o in outcomes)
    lines.append(f"| all | {total['killed']} / {total['killed'] + total['SURVIVED']} |")
    return lines


# -- mutmut on a part of the product ----------------------------------------------------------------

#: mutmut's runs: what each part mutates (``source_paths``) and the tests it learns from. ``core`` is
#: pyproject.toml's own [tool.mutmut]; the firmware parts replace that section in a copy of the tree,
#: without the type check (mypy reads the trampolines mutmut puts in ``@record`` classes as errors).
PARTS: dict[str, dict[str, list[str]]] = {
    "core": {},
    "devices": {
        "source_paths": ["firmware/devices/"],
        "type_check_command": [],
        "pytest_add_cli_args_test_selection": [
            "tests/test_board.py", "tests/test_hardware.py", "tests/test_recorded_bus.py", "tests/test_outputs.py",
            "tests/test_daemon_inputs.py", "tests/test_faults_displays.py", "tests/test_behaviour_inputs.py",
            "tests/test_behaviour_displays.py", "tests/test_behaviour_outputs.py",
        ],
    },
    "drawing": {
        "source_paths": ["firmware/casing/", "firmware/render/"],
        "type_check_command": [],
        "pytest_add_cli_args_test_selection": [
            "tests/test_render.py", "tests/test_cli_casing.py", "tests/test_behaviour_casing.py",
        ],
    },
    "history": {
        "source_paths": ["firmware/history/"],
        "type_check_command": [],
        "pytest_add_cli_args_test_selection": [
            "tests/test_history.py", "tests/test_history_hostile.py", "tests/test_behaviour_history.py",
        ],
    },
}  # fmt: skip
MUTMUT_WORK = Path("/var/tmp/baccarat-mutmut")


def _mutmut_config(text: str, settings: dict[str, list[str]]) -> str:
    """pyproject.toml's text with its [tool.mutmut] keys in ``settings`` replaced."""
    lines = text.splitlines(keepends=True)
    start = lines.index("[tool.mutmut]\n")
    end = next((n for n in range(start + 1, len(lines)) if lines[n].startswith("[")), len(lines))
    config = tomllib.loads("".join(lines[start:end]))["tool"]["mutmut"] | settings
    body = "".join(f"{key} = {json.dumps(value)}\n" for key, value in config.items())
    return "".join(lines[:start]) + "[tool.mutmut]\n" + body + "".join(lines[end:])


def mutmut_scores(tree: Path) -> tuple[Counter[str], dict[str, list[str]]]:
    """The verdicts of mutmut's last run in ``tree`` (killed, survived, ...), and the survivors by file."""
    from mutmut.stats import status_by_exit_code

    verdicts: Counter[str] = Counter()
    survivors: dict[str, list[str]] = {}
    for meta in sorted((tree / "mutants").rglob("*.py.meta")):
        codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        for name, code in codes.items():
            verdict = status_by_exit_code[code]
            verdicts[verdict] += 1
            if verdict == "survived":
                survivors.setdefault(str(meta.relative_to(tree / "mutants"))[: -len(".meta")], []).append(name)
    return verdicts, survivors


def run_mutmut(part: str, children: int, names: list[str]) -> int:
    """mutmut on ``part`` in a copy of the tree under :data:`MUTMUT_WORK` (kept: a second run goes on
    from its results); prints the score and the survivors, then ``mutmut show NAME`` there shows one."""
    if not (PYTHON.parent / "mutmut").exists():
        print(f"mutmut is not in {PYTHON.parent}: {PYTHON.parent / 'pip'} install 'mutmut==3.8.*'", file=sys.stderr)
        return 2
    tree = MUTMUT_WORK / part
    tree.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT, tree, ignore=IGNORED, symlinks=True, dirs_exist_ok=True)
    pyproject = tree / "pyproject.toml"
    pyproject.write_text(_mutmut_config(pyproject.read_text(encoding="utf-8"), PARTS[part]), encoding="utf-8")
    environ = {**os.environ, "PATH": f"{PYTHON.parent}:{os.environ.get('PATH', '')}", "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    code = subprocess.run(
        [str(PYTHON.parent / "mutmut"), "run", "--max-children", str(children), *names], cwd=tree, env=environ
    ).returncode
    verdicts, survivors = mutmut_scores(tree)
    checked = verdicts["killed"] + verdicts["caught by type check"] + verdicts["timeout"] + verdicts["survived"]
    print(f"\nmutmut on {part}: {dict(verdicts)} in {(time.monotonic() - started) / 60:.0f} min")
    print(f"killed (tests, type check, timeout) / checked: {checked - verdicts['survived']} / {checked}")
    for path, names in survivors.items():
        print(f"  {path}: {len(names)} survived")
    print(f"in {tree}: mutmut results (the survivors), mutmut show NAME (one's diff), mutmut browse")
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="run the mutants whose id contains this (repeat)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants at a time, each in a scratch copy of its own")
    parser.add_argument("--whole-suite", action="store_true", help="run every test against each mutant")
    parser.add_argument("--tests", action="append", default=[], help="run these tests instead of the named ones")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds for one mutant's tests (then killed)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the run of the tests on the unmutated copy")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--verbose", action="store_true", help="say which test killed each mutant")
    parser.add_argument("--check", action="store_true", help="only check that every mutant applies, and exit")
    parser.add_argument("--mutmut", choices=sorted(PARTS), help="run mutmut on a part of the product instead")
    args = parser.parse_args(argv)
    if args.mutmut:
        return run_mutmut(args.mutmut, args.jobs, args.only)
    try:
        everything = load()
    except DataError as exc:
        print(f"mutants: {exc}", file=sys.stderr)
        return 2
    chosen = [mu for mu in everything if not args.only or any(word in mu.id for word in args.only)]
    if args.check:
        problems = check(chosen)
        broken = {problem.split(":")[0] for problem in problems}
        print("\n".join([*problems, f"{len(chosen) - len(broken)} of {len(chosen)} mutants apply"]))
        return 1 if problems else 0
    if args.list:
        files = package_files(ROOT)
        for mu in chosen:
            mark = f"  [{mu.guards}]" if mu.guards else ""
            try:
                where = str(locate(mu, files))
            except DataError as exc:
                where = f"NOT APPLIED ({exc})"
            print(f"{mu.id}: {where}: {mu.breaks}{mark}\n    tests: {' '.join(mu.tests)}")
        return 0
    if not chosen:
        print("no mutant matches", file=sys.stderr)
        return 2
    if not PYTHON.exists():
        print(f"{PYTHON} is missing: run bash scripts/test.sh --collect-only -q once", file=sys.stderr)
        return 2

    def tests_of(mu: Mutant) -> tuple[str, ...]:
        return ("tests",) if args.whole_suite else tuple(args.tests) or mu.tests

    jobs = max(1, min(args.jobs, len(chosen)))
    trees = [scratch_copy() for _ in range(jobs)]
    started = time.monotonic()
    try:
        if not args.no_baseline:
            wanted = tuple(dict.fromkeys(t for mu in chosen for t in tests_of(mu)))
            env = {k: v for mu in chosen for k, v in mu.env.items()}
            print(f"baseline: {len(wanted)} test arguments on the unmutated copy ...", flush=True)
            code, tail = pytest_run(trees[0], wanted, env, args.timeout * 2)
            if code != 0:
                print(f"the tests fail without any mutant ({tail}); no score", file=sys.stderr)
                return 2
        free = list(trees)
        lock = threading.Lock()

        def run(mu: Mutant) -> Outcome:
            with lock:
                tree = free.pop()
            try:
                outcome = try_mutant(mu, tree, tests_of(mu), args.timeout)
            finally:
                with lock:
                    free.append(tree)
            print(f"{outcome.verdict:11} {outcome.seconds:6.1f} s  {outcome.package:16} {mu.id}", flush=True)
            if outcome.verdict != "killed" or args.verbose:
                print(f"            {outcome.detail}", flush=True)
            return outcome

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            outcomes = list(pool.map(run, chosen))
    finally:
        for tree in trees:
            shutil.rmtree(tree.parent, ignore_errors=True)
    minutes = (time.monotonic() - started) / 60
    print()
    print("\n".join(score_table(outcomes)))
    print(f"\n{len(outcomes)} mutants in {minutes:.1f} min ({jobs} at a time)")
    left = [o for o in outcomes if o.verdict != "killed"]
    for outcome in left:
        print(f"{outcome.verdict}: {outcome.mutant.id} ({outcome.mutant.breaks})")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
