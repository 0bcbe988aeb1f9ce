"""The service registry's scan of ``entry_points.txt`` at its edges (issue 44, item 8): two copies
of one distribution on the path, names that packaging normalizes alike, comment lines and odd ones,
the next section, an ``.egg-info``. Each is compared with what :mod:`importlib.metadata` (the
standard library's reading, which the scan stands in for) finds on the same path, where that
reads the file at all (a line without ``=`` stops it; the scan passes over the line)."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from firmware.services import registry

GROUP = registry.GROUP


def _dist(where: Path, folder: str, name: str, entry_points: str) -> None:
    """A distribution's metadata folder as pip leaves it: its METADATA and its ``entry_points.txt``."""
    home = where / folder
    home.mkdir(parents=True)
    (home / ("PKG-INFO" if folder.endswith(".egg-info") else "METADATA")).write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"
    )
    (home / "entry_points.txt").write_text(entry_points)


def _stdlib(path: list[str]) -> list[tuple[str, str]]:
    """(name, value) of the group's entry points as importlib.metadata finds them on ``path``:
    the first distribution of a (normalized) name wins."""
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    for dist in metadata.distributions(path=path):
        key = registry._normalized(dist.metadata["Name"])
        if key in seen:
            continue
        seen.add(key)
        found += [(ep.name, ep.value) for ep in dist.entry_points.select(group=GROUP)]
    return found


def test_of_two_copies_of_one_distribution_the_first_on_the_path_counts(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    _dist(first, "Foo_Bar-2.0.dist-info", "Foo_Bar", f"[{GROUP}]\nfoo = foo_new:Foo\n")
    _dist(second, "foo.bar-1.0.dist-info", "foo.bar", f"[{GROUP}]\nfoo = foo_old:Foo\nold = foo_old:Old\n")
    _dist(second, "other-1.0.dist-info", "other", f"[{GROUP}]\nother = other:Other\n")
    path = [str(first), str(second)]
    assert registry.scan(path=path) == [("foo", "foo_new:Foo"), ("other", "other:Other")]
    assert sorted(registry.scan(path=path)) == sorted(_stdlib(path))


def test_names_that_differ_only_in_dots_dashes_and_case_are_one_distribution(tmp_path):
    for n, folder in enumerate(["a.b_c-1.0.dist-info", "A_B.c-2.0.dist-info", "A_B_C.egg-info"]):
        where = tmp_path / str(n)
        _dist(where, folder, folder.split("-")[0], f"[{GROUP}]\nsvc{n} = m{n}:S\n")
    path = [str(tmp_path / str(n)) for n in range(3)]
    assert registry.scan(path=path) == [("svc0", "m0:S")]


def test_comments_odd_lines_and_the_next_section_are_passed_over(tmp_path):
    text = (
        "[console_scripts]\nbaccarat = firmware.cli:main\n"
        f"[{GROUP}]\n"
        "# old = gone:Old\n"
        "  # indented = gone:Indented\n"
        "; semicolon = gone:Semi\n"
        "no equals sign here\n"
        "\n"
        "  spaced   =   spaced_plugin:Spaced   \n"
        "plain=plain_plugin:Plain\n"
        "[baccarat.other]\n"
        "elsewhere = other:Elsewhere\n"
    )
    _dist(tmp_path, "odd-1.0.dist-info", "odd", text)
    found = registry.scan(path=[str(tmp_path)])
    assert found == [("spaced", "spaced_plugin:Spaced"), ("plain", "plain_plugin:Plain")]


def test_a_plugin_installed_as_an_egg_info_is_found(tmp_path):
    _dist(tmp_path, "legacy_plugin.egg-info", "legacy-plugin", f"[{GROUP}]\nlegacy = legacy_plugin:Legacy\n")
    assert registry.scan(path=[str(tmp_path)]) == [("legacy", "legacy_plugin:Legacy")] == _stdlib([str(tmp_path)])
