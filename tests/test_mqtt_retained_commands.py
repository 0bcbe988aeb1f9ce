"""A command published with the retain flag (issue 41 item 10, issue 33 item 15), on a real Mosquitto.

MQTT 3.1.1 hands a message published with the retain flag to the subscribers already there as a
live one, without the flag: the prop, listening, runs it that once. The copy the broker keeps is
handed over, flagged, at each (re)subscription: the prop ignores it, one line saying how to clear
it. The same on the prop's own command topic, M3's ``set/...`` and node-redscape's
``ToDevice/...``; and the docs say so wherever they speak of a retained command.
"""

from __future__ import annotations

import json
import logging
import re

import pytest

from tests import test_mqtt
from tests.conftest import ROOT
from tests.conventions import convention_prop, until
from tests.test_mqtt import P, service_of

broker = test_mqtt.broker  # the fixtures
watcher_factory = test_mqtt.watcher_factory
prop_factory = test_mqtt.prop_factory
__all__ = ["convention_prop"]

SOLVES = {
    "own": (f"{P}/command", '{"id": "kept", "command": "force_solve"}'),
    "m3": ("baccarat/set/solve", "1"),
    "redscape": ("ToDevice/baccarat", '{"command": "SOLVE"}'),
}


@pytest.mark.parametrize("surface", sorted(SOLVES))
def test_a_retained_command_runs_once_for_the_listening_prop_and_never_again(
    surface, convention_prop, watcher_factory, broker, caplog
):
    rig = convention_prop(m3={"name": "baccarat"}, redscape={"id": "baccarat"})
    topic, payload = SOLVES[surface]
    w = watcher_factory(topics=(f"{P}/reply",))
    link = service_of(rig).link
    handed: list[tuple[str, str]] = []  # the replies the prop hands its link (the watcher reconnects too)
    publish = link.publish
    link.publish = lambda topic, payload, **kw: handed.append((topic, payload)) or publish(topic, payload, **kw)
    w.publish(topic, payload, retain=True)  # the prop listens: it reaches it live, and runs
    until(lambda: rig.daemon.module.solved, 10, "the retained command ran for the listening prop")
    reset = rig.master.handle({"command": "reset"}).result(5)
    assert reset["ok"] and not rig.daemon.module.solved

    with caplog.at_level(logging.WARNING):
        broker.stop()
        until(lambda: not link.listening.is_set(), 10, "the prop saw the broker go")
        broker.start()
        assert link.listening.wait(20)
        rig.master.handle({"command": "status"}).result(5)  # the retained copy came before the SUBACK's hooks
        until(lambda: any("ignored a retained message" in r.getMessage() for r in caplog.records), 10, "one line")
    rig.daemon.wait_idle()
    assert not rig.daemon.module.solved, "the retained command ran again at the reconnect"
    said = [r.getMessage() for r in caplog.records if "ignored a retained message" in r.getMessage()]
    assert len(said) == 1 and "mosquitto_pub -r -n -t" in said[0] and topic in said[0], said
    if surface == "own":  # one reply to the live run, none from the reconnect (counted where the prop
        # hands it over: a watcher still reconnecting after the broker's restart could miss one)
        kept = lambda: [json.loads(p)["id"] for topic, p in handed if topic == f"{P}/reply"].count("kept")  # noqa: E731
        until(lambda: kept() >= 1, 10, "the refusal's reply")
        assert w.command({"command": "status"}, timeout=10)["ok"]  # a later reply came: nothing more was on its way
        assert kept() == 1


#: Where a retained command is spoken of: each must say that one published while the prop listens runs once.
PLACES = {
    "docs/integrate/mqtt.md (P/command's row)": r"\| `P/command` \| in \|[^\n]*",
    "docs/integrate/mqtt.md (the Room inbox's row)": r"\| `Room/<room>/Props/<prop>/inbox` \| in \|[^\n]*",
    "docs/integrate/mqtt.md (the section)": r"### Retained commands\n\n(?:[^\n]+\n)+",
    "docs/integrate/m3.md": r"- a \*\*retained\*\* message(?:[^\n]+\n)+",
    "docs/integrate/node-redscape.md": r"a \*\*retained\*\* message(?:.|\n)*?\), an \*\*empty\*\*",
    "firmware/broker/conventions.py": r"- \*\*Retained commands\*\*(?:[^\n]+\n)+",
    "firmware/services/mqtt/room.py": r"- \*\*Retained commands\*\*(?:[^\n]+\n)+",
}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_the_docs_and_the_code_say_what_happens(place):
    text = (ROOT / place.split(" ")[0]).read_text()
    found = re.search(PLACES[place], text)
    assert found, f"{place}: the passage is gone"
    passage = " ".join(found.group(0).split())
    assert re.search(r"runs? (?:it )?(?:that )?once|run(?:s)? once|runs it like any other", passage), passage
    assert re.search(r"listen", passage), f"{place}: says nothing of a prop that listens: {passage}"
