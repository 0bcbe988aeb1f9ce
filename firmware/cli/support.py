"""``baccarat support --out FILE``: what a supplier asks for when helping from afar, in one zip or
tar.gz file (as its name says), with nothing secret in it.

The bundle holds the version, ``baccarat doctor``'s report, the last day of the service's log
(``journalctl -u baccarat --since=-1d`` where systemd runs; it says so where not), the config with
every secret replaced, the state file, the last games' history, the unit as systemd runs it and the
OS release. Every text in it then has each secret the config held scrubbed out as well (a log line
or a unit's ``Environment=`` that quoted one), so a secret that leaked elsewhere stays home too.

What is secret is decided in one place, :func:`redact_config`, by key name.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import stat
import tarfile
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO
from urllib.parse import urlsplit

from ..config import SECRET_KEYS
from ..errors import ConfigError, PropError
from . import Parser
from .run import add_config_option, config_path

if TYPE_CHECKING:
    from ..doctor import Host

#: The archive each name's suffix asks for (``--out``); another suffix is refused.
FORMATS = {".zip": "zip", ".tar.gz": "tar.gz", ".tgz": "tar.gz"}
#: The longest ``--out`` a message quotes whole.
SHOWN_NAME = 120
#: What an ``--out`` that is there but not a regular file is, in a message.
_KINDS = {
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFDIR: "a directory",
}
#: What a secret becomes in the bundle.
SECRET = "<secret>"
#: Keys holding a URL whose credentials and query are secret (a webhook's ``url``).
URL_KEYS = frozenset({"url"})
#: A URL path's secret (a Home Assistant webhook id) is scrubbed from every text on its own when it
#: is this long; a shorter one (``solved``) is a word the bundle's texts need, hidden only in URLs.
PATH_SECRET_LENGTH = 8
#: The most of the log kept: its last lines.
JOURNAL_LINES = 20_000
#: Games whose whole record is included (their summaries: :data:`SUMMARY_GAMES`).
RECORD_GAMES = 5
SUMMARY_GAMES = 20
#: What exists where systemd runs the machine (``sd_booted()``'s test).
SYSTEMD_RUNNING = "/run/systemd/system"
#: The systemd unit's installed copy, read where systemctl cannot show it.
UNIT_FILE = "/etc/systemd/system/baccarat.service"


def redact_config(data: Any) -> Any:
    """``data`` (a config as tomllib reads it, or any JSON-like value) with every secret replaced:
    the values of :data:`~firmware.config.SECRET_KEYS` become ``<secret>``, and URLs under
    :data:`URL_KEYS` lose their credentials, query, fragment and the secrets of their path
    (:func:`~firmware.web.settings.redact_url`). The one place that decides what is secret by key;
    the input is left as it was.

    >>> redact_config({"web": {"password": "hunter2!!", "webhooks": [{"url": "http://u:pw@h:81/x?key=v"}]}})
    {'web': {'password': '<secret>', 'webhooks': [{'url': 'http://h:81/x'}]}}
    >>> redact_config({"url": "http://ha:8123/api/webhook/baccarat-solved-42"})
    {'url': 'http://ha:8123/api/webhook/<secret>'}
    """
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            if key in SECRET_KEYS and value not in (None, ""):
                out[key] = SECRET
            elif key in URL_KEYS and isinstance(value, str):
                from ..system.redact import redact_url

                out[key] = redact_url(value)
            else:
                out[key] = redact_config(value)
        return out
    if isinstance(data, list):
        return [redact_config(value) for value in data]
    return data


def removed_secrets(original: Any, redacted: Any) -> set[str]:
    """The secrets :func:`redact_config` took out of ``original`` (``redacted`` is what it gave): each
    string it changed, and a URL's user, password, query and fragment, to scrub from other texts."""
    found: set[str] = set()
    if isinstance(original, dict) and isinstance(redacted, dict):
        for key, value in original.items():
            found |= removed_secrets(value, redacted.get(key))
    elif isinstance(original, list) and isinstance(redacted, list):
        for before, after in zip(original, redacted, strict=False):
            found |= removed_secrets(before, after)
    elif isinstance(original, str) and original != redacted:
        found.add(original)
        try:
            parts = urlsplit(original)
            found |= {part for part in (parts.username, parts.password, parts.query, parts.fragment) if part}
            found |= {path for path in _path_secrets(parts.path) if len(path) >= PATH_SECRET_LENGTH}
        except ValueError:
            pass
    return {secret for secret in found if len(secret) >= 3}


def _path_secrets(path: str) -> set[str]:
    """The segments of a URL's path that :func:`~firmware.web.settings.redact_path` hides."""
    from ..system.redact import PATH_SECRET, redact_path

    hidden = zip(path.split("/"), redact_path(path).split("/"), strict=True)
    return {before for before, after in hidden if after == PATH_SECRET and before != PATH_SECRET}


def scrub(text: str, secrets: set[str]) -> str:
    """``text`` with each of ``secrets`` (the longest first) replaced by ``<secret>``."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, SECRET)
    return text


class Bundle:
    """The files of the bundle as they are gathered, and one line each on what went in."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.said: list[str] = []

    def add(self, name: str, text: str, note: str) -> None:
        """A file of the bundle, and what it holds in a few words."""
        self.files[name] = text
        self.said.append(f"{name}: {note}")

    def write(self, out: Path, secrets: set[str], kind: str = "zip") -> None:
        """The archive (``kind``: :data:`FORMATS`), every text scrubbed of ``secrets``, written whole
        or not at all (0600), beside ``out`` then renamed over it."""
        from ..system.redact import redact_url_paths  # an older log line may quote a webhook's URL whole

        readme = "\n".join(
            [
                "A support bundle of the Baccarat prop (baccarat support).",
                f"Made {time.strftime('%Y-%m-%d %H:%M:%S %z')}. Every secret is replaced by {SECRET}.",
                "",
                *self.said,
                "",
            ]
        )
        files = {
            f"baccarat-support/{name}": redact_url_paths(scrub(text, secrets)).encode()
            for name, text in {"README.txt": readme, **self.files}.items()
        }
        fd, temp = tempfile.mkstemp(prefix=".baccarat-support.", dir=out.parent)  # short: any name fits
        try:
            with os.fdopen(fd, "wb") as raw:
                (_write_zip if kind == "zip" else _write_tar_gz)(raw, files)
            os.replace(temp, out)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


def _write_zip(raw: BinaryIO, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)


def _write_tar_gz(raw: BinaryIO, files: dict[str, bytes]) -> None:
    now = time.time()
    with tarfile.open(fileobj=raw, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), now, 0o600
            archive.addfile(info, io.BytesIO(data))


def archive_kind(out: Path) -> str:
    """The archive ``--out`` names by its suffix (:data:`FORMATS`); a :class:`PropError` for another.

    >>> archive_kind(Path("bundle.tar.gz")), archive_kind(Path("b.ZIP"))
    ('tar.gz', 'zip')
    """
    name = out.name.lower()
    for suffix, kind in FORMATS.items():
        if name.endswith(suffix) and len(name) > len(suffix):
            return kind
    known = ", ".join(FORMATS)
    raise PropError(f"--out {_shown(out)}: name the file {known} (the archive's format follows its name)")


def check_out(out: Path) -> None:
    """Refuse an ``--out`` that is not a new or a regular file in a folder that exists: never a
    device, a FIFO, a socket, a folder or a symbolic link (as root, ``--out /dev/null`` would
    otherwise replace the machine's ``/dev/null``); a name the system refuses is one line too."""
    try:
        mode = os.lstat(out).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:  # ENAMETOOLONG, ENOTDIR, EACCES, ELOOP
        raise PropError(f"--out {_shown(out)}: {error.strerror or error}") from None
    if mode is not None and not stat.S_ISREG(mode):
        what = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise PropError(f"--out {_shown(out)}: is {what}; give a new file's name (it is never replaced)")
    try:
        parent_ok = out.parent.is_dir()
    except OSError:
        parent_ok = False
    if not parent_ok:
        raise PropError(f"--out {_shown(out)}: give a file in a directory that exists")


def _shown(out: Path) -> str:
    """``out`` as a message shows it: at most :data:`SHOWN_NAME` characters."""
    text = str(out)
    return text if len(text) <= SHOWN_NAME else f"{text[: SHOWN_NAME - 20]}...{text[-17:]}"


def _read_config(path: Path) -> tuple[Any, str]:
    """The config as tomllib reads it (None when it cannot be read), and a note."""
    try:
        with open(path, "rb") as file:
            return tomllib.load(file), f"{path} as read, every secret replaced"
    except PermissionError:
        return None, f"{path} is not readable by {os.environ.get('USER', 'this user')}: run it with sudo"
    except OSError as error:
        return None, f"{path}: cannot read ({error.strerror or error})"
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as error:
        return None, f"{path} is not valid TOML ({str(error)[:120]}); left out (it may hold secrets)"


def _gather(bundle: Bundle, args: argparse.Namespace) -> set[str]:
    """Fill ``bundle``; the secrets to scrub from it."""
    from .. import doctor
    from ..config import load_config
    from ..doctor.system import service_state, state_file
    from ..history.store import history_path
    from ..version import version

    host = doctor.Host()
    path = config_path(args.config)
    bundle.add(
        "version.txt",
        f"baccarat {version()}\nPython {platform.python_version()} ({platform.machine()})\n",
        f"baccarat {version()}",
    )
    report, _ = doctor.report(doctor.examine(host, path))
    bundle.add("doctor.txt", report + "\n", report.splitlines()[-1])
    raw, note = _read_config(path)
    secrets: set[str] = set()
    if raw is not None:
        redacted = redact_config(raw)
        secrets = removed_secrets(raw, redacted)
        bundle.add("config.json", json.dumps(redacted, indent=2, default=str) + "\n", note)
    else:
        bundle.add("config.txt", note + "\n", note)
    _add_journal(bundle, host)
    unit = host.command("systemctl", "cat", "baccarat.service")
    if unit is not None and unit[0] == 0:
        bundle.add("baccarat.service", unit[1], "the unit as systemd runs it (systemctl cat)")
    else:
        text = host.read(UNIT_FILE)
        note = f"{UNIT_FILE}" if text is not None else "no unit installed (not a service here)"
        bundle.add("baccarat.service", text if text is not None else note + "\n", note)
    os_release = host.read("/etc/os-release") or "no /etc/os-release\n"
    model = (host.read(doctor.MODEL) or "no /proc/device-tree/model (not a Raspberry Pi)").replace("\0", "").strip()
    uname = " ".join(platform.uname())
    bundle.add("os.txt", f"{os_release.rstrip()}\n\nmodel: {model}\nkernel: {uname}\n", model)
    try:
        config = load_config(path)
    except ConfigError as error:
        bundle.add("state.txt", f"no state or history: the config cannot be read ({error})\n", "no state or history")
        return secrets
    service = service_state(host)
    state = state_file(config, service is not None and service.get("LoadState") == "loaded")
    _add_state(bundle, state)
    if state is not None:
        _add_history(bundle, history_path(state))
    return secrets


def _add_journal(bundle: Bundle, host: Host) -> None:
    """The service's log of the last day where systemd runs; why there is none where it does not."""
    journal = None
    if host.exists(SYSTEMD_RUNNING):
        journal = host.command("journalctl", "-u", "baccarat", "--since=-1d", "--no-pager", "-o", "short-iso")
    if journal is not None and journal[0] == 0:
        lines = journal[1].splitlines()[-JOURNAL_LINES:]
        count = f"{len(lines)} line{'' if len(lines) == 1 else 's'}"
        bundle.add("journal.txt", "\n".join(lines) + "\n", f"the service's log of the last day, {count}")
        return
    if not host.exists(SYSTEMD_RUNNING):
        why = "no systemd here (not booted with it: a PC without it, a chroot or a container)"
    elif journal is None:
        why = "no journalctl here"
    else:
        why = f"journalctl failed (exit {journal[0]})"
    bundle.add("journal.txt", f"{why}: no log is included\n", why)


def _add_state(bundle: Bundle, path: Path | None) -> None:
    from baccarat_core import BaccaratError

    from ..room.state_file import read_state

    if path is None:
        bundle.add("state.txt", 'state saving is off ([state] file = "")\n', "state saving is off")
        return
    try:
        data = read_state(path)
    except (OSError, BaccaratError) as error:
        bundle.add("state.txt", f"state file {path}: {error}\n", f"state file {path} not included ({error})")
        return
    try:
        document = redact_config(json.loads(data))
        bundle.add("state.json", json.dumps(document, indent=2) + "\n", f"the state file {path}")
    except ValueError:
        bundle.add("state.txt", data.decode(errors="replace"), f"the state file {path} (not JSON)")


def _add_history(bundle: Bundle, path: Path) -> None:
    from ..history.games import build_games
    from ..history.store import read_files

    lines, problems = read_files(path)
    games, orphans = build_games(lines)
    now = time.time()
    summaries = [g.summary(now if g.end is None else None) for g in reversed(games[-SUMMARY_GAMES:])]
    document = {
        "file": str(path),
        "games": summaries,
        "total": len(games),
        "problems": [p.describe() for p in [*problems, *orphans]],
    }
    bundle.add("history.json", json.dumps(redact_config(document), indent=2) + "\n", f"{len(games)} games in {path}")
    last = {summary["id"] for summary in summaries[:RECORD_GAMES] if "id" in summary}
    records = [json.dumps(redact_config(entry)) for entry, _, _ in lines if entry.get("id") in last]
    bundle.add("history-last-games.jsonl", "\n".join(records) + "\n", f"the whole record of the last {len(last)} games")


def cmd_support(args: argparse.Namespace) -> int:
    """Write the support bundle; say what went in, one line each."""
    out = Path(args.out)
    kind = archive_kind(out)
    check_out(out)
    bundle = Bundle()
    secrets = _gather(bundle, args)
    check_out(out)  # again: gathering takes a while
    try:
        bundle.write(out, secrets, kind)
        size = out.stat().st_size
    except OSError as error:
        raise PropError(f"--out {_shown(out)}: cannot write it ({error.strerror or error})") from None
    for line in bundle.said:
        print(f"  {scrub(line, secrets)}")
    print(f"support bundle: {out} ({size // 1024 + 1} KiB); every secret replaced by {SECRET}")
    return 0


def add_commands(sub: argparse._SubParsersAction[Parser]) -> None:
    """Register ``support``."""
    command = sub.add_parser(
        "support",
        help="gather what a supplier asks for into one zip or tar.gz file, with no secret in it (run it with sudo)",
        description=(
            "Write a zip or tar.gz file (as --out's name says) with the version, doctor's report, "
            "the last day of the service's log, the config "
            "with every secret replaced, the state file, the last games' history, the unit and the OS release. "
            "No password, token or webhook secret goes in. Run it with sudo on the Pi (the config and the log "
            "are root's and the baccarat group's)."
        ),
    )
    command.add_argument(
        "--out",
        required=True,
        metavar="FILE",
        help="the file to write: NAME.zip or NAME.tar.gz (never a device, FIFO or link: those are refused)",
    )
    add_config_option(command)
    command.set_defaults(handler=cmd_support)
