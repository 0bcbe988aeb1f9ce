#!/usr/bin/env python3
"""Prove that installing the prop on a Raspberry Pi compiles nothing.

On a Pi, ``scripts/_venv.sh`` takes the compiled pieces from Raspberry Pi OS
(``scripts/pi-os-packages.txt``), makes the venv with ``--system-site-packages`` and lets pip install
the rest with ``--only-binary=:all:``. For every Pi target below, this script asks pip to resolve
exactly those requirements as a dry run (``--platform``, ``--python-version``, ``--only-binary=:all:``),
with the OS's packages standing in as empty local wheels at the version that release ships, and
fails naming every package that has no wheel for a target: on that Pi, pip would have to compile it.

Two things pip does not do for us:
- it does not widen ``--platform``: each target lists every manylinux tag its glibc accepts
  (``manylinux_2_17`` up to the release's glibc), as pip on the Pi itself would;
- it evaluates environment markers for the machine it runs on, not for the target: the resolution
  is checked again against the target's markers, and resolved again with anything it left out.

Usage: ``python scripts/check_pi_wheels.py [--target NAME ...] [--require REQ ...] [--os-packages FILE]
[--timeout SECONDS]``. Needs the package index (the network), as pip on the Pi does; a pip that does
not answer within ``--timeout`` seconds (600, or ``$PI_WHEELS_TIMEOUT``) is one line saying so, not a
traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    from packaging.version import Version
except ImportError:  # pip always carries a copy
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.utils import canonicalize_name
    from pip._vendor.packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
OS_PACKAGES = ROOT / "scripts" / "pi-os-packages.txt"
#: Seconds one pip run may take (a resolution against the package index); PI_WHEELS_TIMEOUT sets another
#: default (scripts/check_arm.sh does, under emulation).
TIMEOUT = float(os.environ.get("PI_WHEELS_TIMEOUT") or 600)


@dataclass(frozen=True)
class Target:
    """One kind of Raspberry Pi install: an OS release, its Python and glibc, a CPU architecture."""

    name: str
    release: str  # a version column of pi-os-packages.txt
    machine: str  # what pip on that Pi calls the platform
    python: str
    glibc_minor: int | None  # None: no manylinux tag exists for this machine
    models: str

    @property
    def label(self) -> str:
        """A readable one-line description."""
        glibc = f", glibc 2.{self.glibc_minor}" if self.glibc_minor else ""
        return f"{self.release} {self.machine} (Python {self.python}{glibc}; {self.models})"

    def platforms(self) -> list[str]:
        """Every platform tag pip on such a Pi accepts, newest manylinux first."""
        tags = []
        if self.glibc_minor is not None:
            tags += [f"manylinux_2_{m}_{self.machine}" for m in range(self.glibc_minor, 16, -1)]
            tags.append(f"manylinux2014_{self.machine}")
        tags.append(f"linux_{self.machine}")
        return tags

    def marker_environment(self) -> dict[str, str]:
        """The values of PEP 508 environment markers on such a Pi."""
        full = f"{self.python}.0"
        return {
            "implementation_name": "cpython",
            "implementation_version": full,
            "os_name": "posix",
            "platform_machine": self.machine,
            "platform_python_implementation": "CPython",
            "platform_release": "",
            "platform_system": "Linux",
            "platform_version": "",
            "python_full_version": full,
            "python_version": self.python,
            "sys_platform": "linux",
            "extra": "",
        }


#: Raspberry Pi OS Bookworm ships Python 3.11 and glibc 2.36; Trixie Python 3.13 and glibc 2.41.
#: The 32-bit (armhf) OS reports armv7l on ARMv7/v8 boards and armv6l on a Pi 1, Zero and Zero W.
TARGETS = (
    Target("bookworm-64", "Bookworm", "aarch64", "3.11", 36, "64-bit OS: Pi 3, 4, 5, Zero 2 W"),
    Target("bookworm-32", "Bookworm", "armv7l", "3.11", 36, "32-bit OS: Pi 2, 3, 4, 5, Zero 2 W"),
    Target("bookworm-armv6", "Bookworm", "armv6l", "3.11", None, "32-bit OS: Pi 1, Zero, Zero W"),
    Target("trixie-64", "Trixie", "aarch64", "3.13", 41, "64-bit OS: Pi 3, 4, 5, Zero 2 W"),
    Target("trixie-32", "Trixie", "armv7l", "3.13", 41, "32-bit OS: Pi 2, 3, 4, 5, Zero 2 W"),
    Target("trixie-armv6", "Trixie", "armv6l", "3.13", None, "32-bit OS: Pi 1, Zero, Zero W"),
)


@dataclass(frozen=True)
class OsPackage:
    """A Python distribution that Raspberry Pi OS provides (one row of pi-os-packages.txt)."""

    deb: str
    dist: str
    versions: dict[str, str]


def read_os_packages(path: Path = OS_PACKAGES) -> list[OsPackage]:
    """The rows of pi-os-packages.txt; the last comment line names the release columns."""
    releases: list[str] = []
    rows = []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            words = line.lstrip("# ").split()
            if words[:1] == ["Debian"]:
                releases = words[4:]  # "Debian package Python distribution <release> ..."
            continue
        words = line.split()
        if words:
            rows.append(OsPackage(words[0], words[1], dict(zip(releases, words[2:], strict=True))))
    return rows


def pi_requirements() -> list[str]:
    """What pip installs on a Pi: the project's dependencies and its build backend (``pip install -e .``)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return list(project["project"]["dependencies"]) + list(project["build-system"]["requires"])


def write_stub_wheel(folder: Path, dist: str, version: str, deb: str) -> Path:
    """An empty wheel that stands for a distribution the OS has installed."""
    name = re.sub(r"[-_.]+", "_", dist).lower()
    info = f"{name}-{version}.dist-info"
    files = {
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\nSummary: {deb} (the OS's)\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: check_pi_wheels\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{p},,\n" for p in [*files, f"{info}/RECORD"])
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for member, text in files.items():
            wheel.writestr(member, text)
    return path


@dataclass
class Result:
    """What pip would install for one target, or why it cannot."""

    target: Target
    installs: list[dict] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: pip did not answer in time: nothing is known of this target.
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        """True when everything has a wheel."""
        return not self.failures


def _wheel_tags(url: str) -> tuple[str, str, str] | None:
    name = url.rsplit("/", 1)[-1]
    if not name.endswith(".whl"):
        return None
    python, abi, platform = name[: -len(".whl")].split("-")[-3:]
    return python, abi, platform


def _pip(target: Target, requirements: list[str], workdir: Path, report: Path, *, deps: bool = True, timeout: float):
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--quiet",
        "--disable-pip-version-check",
        "--no-input",
        "--only-binary=:all:",
        "--target",
        str(workdir / "target"),
        "--implementation",
        "cp",
        "--python-version",
        target.python,
        "--find-links",
        str(workdir / "os"),
        "--constraint",
        str(workdir / "os-constraints.txt"),
        "--report",
        str(report),
    ]
    for tag in target.platforms():
        cmd += ["--platform", tag]
    if not deps:
        cmd.append("--no-deps")
    return subprocess.run(cmd + requirements, capture_output=True, text=True, timeout=timeout)


def _pip_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("ERROR:")]
    return lines[-1].removeprefix("ERROR: ") if lines else (stderr.strip().splitlines() or ["pip failed"])[-1]


def _missed_by_markers(target: Target, requirements: list[str], installs: list[dict]) -> tuple[list[str], list[str]]:
    """Requirements the target needs that pip (judging markers by this machine) left out or got wrong."""
    env = target.marker_environment()
    resolved = {canonicalize_name(item["metadata"]["name"]): item for item in installs}
    missing: list[str] = []
    wrong: list[str] = []
    queue = [(Requirement(text), "") for text in requirements]
    seen: set[tuple[str, str]] = set()
    while queue:
        req, extra = queue.pop()
        if req.marker is not None and not req.marker.evaluate({**env, "extra": extra}):
            continue
        name = canonicalize_name(req.name)
        item = resolved.get(name)
        if item is None:
            text = f"{req.name}{'[' + ','.join(sorted(req.extras)) + ']' if req.extras else ''}{req.specifier}"
            if text not in missing:
                missing.append(text)
            continue
        version = Version(item["metadata"]["version"])
        if not req.specifier.contains(version, prereleases=True):
            wrong.append(f"{req} is not met by {item['metadata']['name']} {version}")
        for wanted in ("", *sorted(req.extras)):
            if (name, wanted) not in seen:
                seen.add((name, wanted))
                queue += [(Requirement(dep), wanted) for dep in item["metadata"].get("requires_dist") or []]
    return missing, wrong


def check(target: Target, requirements: list[str], os_packages: list[OsPackage], timeout: float = TIMEOUT) -> Result:
    """Resolve the Pi's pip requirements for one target; name what would need compiling."""
    try:
        return _check(target, requirements, os_packages, timeout)
    except subprocess.TimeoutExpired:
        result = Result(target, timed_out=True)
        result.failures.append(f"not checked: pip did not answer within {timeout:g} s")
        return result


def _check(target: Target, requirements: list[str], os_packages: list[OsPackage], timeout: float) -> Result:
    result = Result(target)
    with tempfile.TemporaryDirectory(prefix=f"pi-wheels-{target.name}-") as tmp:
        workdir = Path(tmp)
        (workdir / "os").mkdir()
        pins = []
        for package in os_packages:
            # A local version label, so that pip takes the stub and not the index's wheel of that version.
            version = package.versions[target.release] + "+os"
            write_stub_wheel(workdir / "os", package.dist, version, package.deb)
            pins.append(f"{package.dist}=={version}")
        (workdir / "os-constraints.txt").write_text("\n".join(pins) + "\n")
        wanted = list(requirements)
        for _ in range(4):
            run = _pip(target, wanted, workdir, workdir / "report.json", timeout=timeout)
            if run.returncode != 0:
                result.failures += _diagnose(target, wanted, workdir, _pip_error(run.stderr), timeout)
                return result
            result.installs = json.loads((workdir / "report.json").read_text())["install"]
            missing, wrong = _missed_by_markers(target, requirements, result.installs)
            if wrong:
                result.failures += wrong
                return result
            if not missing:
                return result
            result.notes.append(f"pip skipped {', '.join(missing)} (markers judged on this machine): added")
            wanted += missing
        result.failures.append(f"the target's markers still want {', '.join(missing)} after 4 resolutions")
    return result


def _diagnose(target: Target, wanted: list[str], workdir: Path, pip_error: str, timeout: float) -> list[str]:
    """Which packages have no wheel for the target: each one of the host's resolution, tried alone."""
    host = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--quiet",
            "--disable-pip-version-check",
            "--no-input",
            "--ignore-installed",
            "--report",
            str(workdir / "host.json"),
            *wanted,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    # Each name with the project's own version range where it has one, any version otherwise.
    probes: dict[str, str] = {}
    for text in wanted:
        req = Requirement(text)
        probes[canonicalize_name(req.name)] = f"{req.name}{req.specifier}"
    if host.returncode == 0:
        for item in json.loads((workdir / "host.json").read_text())["install"]:
            probes.setdefault(canonicalize_name(item["metadata"]["name"]), item["metadata"]["name"])

    def alone(name: str) -> str | None:
        run = _pip(target, [probes[name]], workdir, workdir / f"alone-{name}.json", deps=False, timeout=timeout)
        if run.returncode == 0:
            return None
        return (
            f"{probes[name]} has no wheel for {target.machine} and Python {target.python}: "
            f"pip on that Pi would compile it ({_pip_error(run.stderr)})"
        )

    with ThreadPoolExecutor(max_workers=8) as pool:
        failures = [line for line in pool.map(alone, probes) if line]
    return failures or [f"pip cannot resolve the requirements: {pip_error}"]


def describe(result: Result, os_packages: list[OsPackage]) -> list[str]:
    """The lines printed for one target."""
    debs = {canonicalize_name(p.dist): p.deb for p in os_packages}
    if not result.ok:
        return [f"FAIL {result.target.label}"] + [f"  {line}" for line in result.notes + result.failures]
    pure, binary, from_os = [], [], []
    for item in result.installs:
        name, version = item["metadata"]["name"], item["metadata"]["version"].removesuffix("+os")
        url = item.get("download_info", {}).get("url", "")
        tags = _wheel_tags(url)
        if url.startswith("file:") and canonicalize_name(name) in debs:
            from_os.append(f"{name} {version} ({debs[canonicalize_name(name)]})")
        elif tags and tags[1:] == ("none", "any"):
            pure.append(f"{name} {version}")
        else:
            binary.append(f"{name} {version} ({tags[2] if tags else url})")
    lines = [f"ok   {result.target.label}: {len(result.installs)} packages, nothing to compile"]
    lines += [f"  {note}" for note in result.notes]
    lines.append(f"  pure-Python wheels: {', '.join(sorted(pure)) or 'none'}")
    lines.append(f"  binary wheels: {', '.join(sorted(binary)) or 'none'}")
    lines.append(f"  from the OS: {', '.join(sorted(from_os)) or 'none'}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Check every target (or those named); exit 1 if any would compile something."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--target",
        action="append",
        choices=[t.name for t in TARGETS],
        help="check only this target (repeatable); default: all",
    )
    parser.add_argument(
        "--require", action="append", default=[], metavar="REQ", help="an extra requirement to check along (repeatable)"
    )
    parser.add_argument(
        "--os-packages",
        type=Path,
        default=OS_PACKAGES,
        metavar="FILE",
        help="what the OS provides (default: scripts/pi-os-packages.txt)",
    )
    parser.add_argument("--jobs", type=int, default=len(TARGETS), help="targets resolved at once")
    parser.add_argument(
        "--timeout",
        type=float,
        default=TIMEOUT,
        metavar="SECONDS",
        help=f"the longest a pip run may take ({TIMEOUT:g})",
    )
    args = parser.parse_args(argv)
    targets = [t for t in TARGETS if not args.target or t.name in args.target]
    os_packages = read_os_packages(args.os_packages)
    requirements = pi_requirements() + args.require
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda t: check(t, requirements, os_packages, args.timeout), targets))
    for result in results:
        print("\n".join(describe(result, os_packages)))
    slow = [r.target.name for r in results if r.timed_out]
    failed = [r.target.name for r in results if not r.ok and not r.timed_out]
    elapsed = time.monotonic() - start
    if slow:
        print(
            f"Pi wheel check: pip did not answer within {args.timeout:g} s for {', '.join(slow)} "
            f"(a slow or unreachable package index): run it again, or allow longer with --timeout SECONDS"
        )
        return 1
    if failed:
        print(
            f"Pi wheel check: {len(failed)} of {len(results)} targets would compile: {', '.join(failed)} "
            f"({elapsed:.0f} s)"
        )
        return 1
    print(f"Pi wheel check: {len(results)} targets, nothing to compile ({elapsed:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
