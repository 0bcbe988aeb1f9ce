"""The named mutants of scripts/mutants.toml still apply, and the mutation tool's config is valid.

Each mutant's text must be in the product (firmware/ and baccarat_core/) exactly once, wherever
the file that holds it has moved: a refactor that changes the text would otherwise turn the
mutant run into a list of NOT APPLIED, and the score in docs/develop/mutation.md into a claim
nobody can reproduce. The [tool.mutmut] section must name paths that exist and keys mutmut reads."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT


def _runner():
    spec = importlib.util.spec_from_file_location("mutants", ROOT / "scripts" / "mutants.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutants", module)  # dataclasses looks its module up while it builds
    spec.loader.exec_module(module)
    return module


RUNNER = _runner()
MUTANTS = RUNNER.load()
FILES = RUNNER.package_files(ROOT)
#: Issue 44's edge mutants of the newest code (docs/develop/mutation.md): kept applying as well.
EDGES = RUNNER.load(ROOT / "scripts" / "mutants_edges.toml")


@pytest.mark.parametrize("mutant", [*MUTANTS, *EDGES], ids=lambda mutant: mutant.id)
def test_each_mutant_applies_to_exactly_one_place_in_the_product(mutant):
    where = RUNNER.locate(mutant, FILES)
    assert where.parts[0] in ("firmware", "baccarat_core")
    for test in mutant.tests:
        assert (ROOT / test.split("::")[0]).is_file(), f"{mutant.id}: {test} does not exist"


def test_the_check_command_says_every_mutant_applies(capsys):
    assert RUNNER.main(["--check"]) == 0
    assert f"{len(MUTANTS)} of {len(MUTANTS)} mutants apply" in capsys.readouterr().out


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _mutant(find: str):
    return RUNNER.Mutant("probe", "nothing", find, "broken", ("tests/test_mutants.py",))


def test_a_mutant_is_found_by_its_text_wherever_its_file_moved(tmp_path):
    tree = _tree(tmp_path, {"firmware/a.py": "x = 1\n", "firmware/sub/b.py": "y = compute()\n"})
    assert RUNNER.locate(_mutant("compute()"), RUNNER.package_files(tree)) == Path("firmware/sub/b.py")
    (tree / "firmware/sub/b.py").rename(tree / "baccarat_core.py")  # outside the package: not looked at
    (tree / "baccarat_core").mkdir()
    (tree / "baccarat_core" / "moved.py").write_text("y = compute()\n", encoding="utf-8")
    assert RUNNER.locate(_mutant("compute()"), RUNNER.package_files(tree)) == Path("baccarat_core/moved.py")


def test_a_text_in_two_files_or_twice_in_one_or_nowhere_is_refused_with_its_places(tmp_path):
    tree = _tree(tmp_path, {"firmware/a.py": "go()\n", "baccarat_core/b.py": "go()\nstop()\nstop()\n"})
    files = RUNNER.package_files(tree)
    with pytest.raises(RUNNER.DataError, match=r"more than one place \(baccarat_core/b.py \(1x\), firmware/a.py"):
        RUNNER.locate(_mutant("go()"), files)
    with pytest.raises(RUNNER.DataError, match=r"baccarat_core/b.py \(2x\)"):
        RUNNER.locate(_mutant("stop()"), files)
    with pytest.raises(RUNNER.DataError, match="in no file of baccarat_core or firmware"):
        RUNNER.locate(_mutant("never()"), files)


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ('id = "a"\nbreaks = "b"\nfind = "x"\nreplace = "x"\ntests = ["t"]', "replace is the same text as find"),
        ('id = "a"\nbreaks = "b"\nfind = ""\nreplace = "y"\ntests = ["t"]', "find is empty"),
        ('id = "a"\nbreaks = "b"\nfind = "x"\nreplace = "y"\ntests = []', "tests must be a non-empty list"),
        ('id = "a"\nbreaks = "b"\nfind = "x"\nreplace = "y"\ntests = ["t"]\nfile = "f.py"', "unknown field"),
        ('id = "a"\nfind = "x"\nreplace = "y"\ntests = ["t"]', "breaks must be a string"),
    ],
)
def test_a_malformed_entry_is_one_line_naming_the_mutant(tmp_path, entry, problem):
    data = tmp_path / "mutants.toml"
    data.write_text(f"[[mutant]]\n{entry}\n", encoding="utf-8")
    with pytest.raises(RUNNER.DataError, match=problem) as caught:
        RUNNER.load(data)
    assert "mutant a" in str(caught.value) or "entry 1" in str(caught.value)
    assert "\n" not in str(caught.value)


# Keys mutmut 3.8 reads from [tool.mutmut] (mutmut/configuration.py): anything else is silently ignored.
MUTMUT_KEYS = {
    "paths_to_mutate", "source_paths", "tests_dir", "pytest_add_cli_args_test_selection", "only_mutate",
    "do_not_mutate", "do_not_mutate_patterns", "also_copy", "max_stack_depth", "debug",
    "mutate_only_covered_lines", "pytest_add_cli_args", "timeout_multiplier", "timeout_constant",
    "type_check_command", "use_setproctitle", "track_dependencies", "dependency_tracking_depth",
    "cache_invalidation_files", "cache_invalidation_exclude", "on_dependency_change",
    "use_git_change_detection", "process_isolation", "forkserver_warmup", "max_forkserver_restarts",
    "preload_modules_file", "log_to_file", "log_file_path",
}  # fmt: skip


@pytest.mark.parametrize("part", sorted(RUNNER.PARTS))
def test_the_mutmut_config_names_keys_mutmut_reads_and_paths_that_exist(part):
    """pyproject.toml's [tool.mutmut] (the part ``core``), and that section as each other part's run
    rewrites it in its copy of the tree (``scripts/mutants.py --mutmut PART``)."""
    text = RUNNER._mutmut_config((ROOT / "pyproject.toml").read_text(encoding="utf-8"), RUNNER.PARTS[part])
    config = tomllib.loads(text)["tool"]["mutmut"]
    assert tomllib.loads(text)["project"] == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert set(config) <= MUTMUT_KEYS, f"unknown [tool.mutmut] keys: {set(config) - MUTMUT_KEYS}"
    for key in ("source_paths", "also_copy", "pytest_add_cli_args_test_selection"):
        for path in config.get(key, []):
            if not path.startswith("-"):
                assert (ROOT / path.split("::")[0]).exists(), f"[tool.mutmut] {key}: {path} does not exist"
    for pattern in config.get("only_mutate", []) + config.get("do_not_mutate", []):
        assert pattern.endswith((".py", "*")), pattern
        assert list(ROOT.glob(pattern)), f"[tool.mutmut] {pattern} matches no file"
    assert config["source_paths"], "nothing to mutate"
    if config.get("type_check_command"):
        checked = [path for path in config["type_check_command"] if (ROOT / path).exists()]
        assert checked == [path.rstrip("/") for path in config["source_paths"]], "mypy checks other files"
