"""The commands as a table (issue 30): each command with its arguments' checks and its runner, a
service's own beside the built-in ones; a request's id read back when the strict reader refuses it
whole (issue 33, item 7)."""

from __future__ import annotations

from concurrent.futures import Future

import pytest

from baccarat_core import strict
from firmware.room.command_table import Argument, CommandError, CommandSpec, CommandTable
from firmware.room.commands import BUILT_IN, COMMANDS, GameMaster, parse_command, parse_words, recover_id


def _echo(master, command) -> Future:
    done: Future = Future()
    done.set_result({"said": command.text, "times": command.times})
    return done


def _times(value):
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 3:
        raise CommandError(f"echo: times {value!r} must be 1-3")
    return value


ECHO = CommandSpec(
    "echo",
    _echo,
    (Argument("text", required=True), Argument("times", _times, lambda w: int(w) if w.isdigit() else w)),
    positional=("text", "times"),
)


def test_the_built_in_table_is_what_the_front_ends_list():
    assert list(COMMANDS) == [spec.name for spec in BUILT_IN]
    assert COMMANDS["output"] == {"name", "state"}
    assert parse_words("output Lock PULSE").args == {"name": "lock", "state": "pulse"}
    assert parse_command({"command": "reset", "min": 25, "max": 1000}).limits.to_dict() == {"min": 25, "max": 1000}
    with pytest.raises(CommandError, match=r'^reset: give both "min" and "max" or neither$'):
        parse_words("reset min=25")


def test_a_service_command_is_parsed_and_checked_like_a_built_in_one():
    table = CommandTable((*BUILT_IN, ECHO))
    assert table.parse_words("Echo hello 2").args == {"text": "hello", "times": 2}
    assert table.parse({"command": "echo", "text": "hi"}).args == {"text": "hi"}
    with pytest.raises(CommandError, match="^echo: times 7 must be 1-3$"):
        table.parse({"command": "echo", "text": "hi", "times": 7})
    with pytest.raises(CommandError, match='^echo: missing "text"$'):
        table.parse({"command": "echo"})
    with pytest.raises(CommandError, match='^echo: unknown argument "loud"$'):
        table.parse({"command": "echo", "text": "x", "loud": True})
    with pytest.raises(ValueError, match="registered twice"):
        table.add(ECHO)
    with pytest.raises(CommandError, match=r'^unknown command "echo" \(known: reset, '):
        CommandTable(BUILT_IN).parse({"command": "echo"})


def test_a_game_master_runs_a_service_command_on_every_path(rig):
    master = GameMaster(rig.daemon, commands=[ECHO])
    assert master.handle({"command": "echo", "text": "a", "id": 1}).result(5) == {
        "id": 1, "ok": True, "command": "echo", "result": {"said": "a", "times": None},
    }  # fmt: skip
    assert master.handle("echo b 3", words=True).result(5)["result"] == {"said": "b", "times": 3}
    assert master.handle({"words": "echo c", "id": "w"}).result(5)["result"]["said"] == "c"
    refused = master.handle({"words": "echo c", "extra": 1}).result(5)
    assert not refused["ok"] and refused["error"] == 'a "words" request takes only "words" and "id", not "extra"'


def test_the_table_is_made_once_at_the_first_command_and_takes_a_service_s_own(rig):
    """The table is made at the first command (a start runs none), from any thread, and threads asking
    at once share one; a service's command, given or added, is checked at once and then taken."""
    import threading

    master = GameMaster(rig.daemon)
    tables: list[object] = []
    threads = [threading.Thread(target=lambda: tables.append(master.table)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert len(tables) == 8 and all(table is tables[0] for table in tables)
    master.add(ECHO)
    assert master.handle("echo first", words=True).result(5)["result"]["said"] == "first"
    with pytest.raises(ValueError, match="registered twice"):
        GameMaster(rig.daemon, commands=[ECHO, ECHO])
    later = CommandSpec("later", _echo, (Argument("text", required=True),))
    master.add(later)
    assert master.handle({"command": "later", "text": "x"}).result(5)["ok"]
    with pytest.raises(ValueError, match="registered twice"):
        master.add(ECHO)


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (b'{"id": 7, "command": ' + b"[" * (strict.MAX_DEPTH + 5) + b"]" * (strict.MAX_DEPTH + 5) + b"}", 7),
        ('{"command": "reset", "id": "gm-42", "x": ' + "1" * 70_000 + "}", "gm-42"),  # too large
        (b'{"id": -12, "command": "reset",}', -12),  # not strict JSON: a trailing comma
        (b'{"id": "a", "deep": {"id": "b"}, "command": ' + b"[" * 200 + b"}", None),  # two ids: none
        (b'{"id": "' + b"x" * (strict.MAX_ID_LENGTH + 1) + b'", "command": [[[', None),  # too long an id
        (b"\xff\xfe garbage", None),
    ],
)
def test_a_refused_request_still_gets_its_id_back(rig, payload, expected):
    assert recover_id(payload) == expected
    reply = GameMaster(rig.daemon).handle(payload).result(5)
    assert not reply["ok"] and reply["id"] == expected and reply["command"] is None
