"""OSC for show control (issue 31, part 4) through a real daemon with the real service: the cues
reach python-osc's own server, standing in for QLab on a free loopback port, and python-osc's
client sends the commands. Bad input from the network: tests/test_osc_hostile.py; the section's
checks, check-config and doctor: tests/test_osc_settings.py."""

from __future__ import annotations

import errno
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pythonosc.dispatcher import Dispatcher
from pythonosc.osc_message_builder import OscMessageBuilder
from pythonosc.osc_server import BlockingOSCUDPServer
from pythonosc.udp_client import SimpleUDPClient

from firmware.services.osc import OscService
from tests.conftest import Rig, make_config, start_served

#: A cue for every event, each with its arguments.
EVERY_CUE = {
    "solved": "/cue/solved/start",
    "strike": "/cue/strike/start",
    "exploded": "/cue/exploded/start",
    "reset": "/cue/reset/start",
    "deal": "/cue/deal/start",
    "output": "/prop/output",
}


def until(test: Callable[[], Any], timeout: float = 5.0) -> Any:
    """``test()`` once it is true (polled), or its last value after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := test()) and time.monotonic() < deadline:
        time.sleep(0.005)
    return value


def udp_port(host: str = "127.0.0.1") -> int:
    """A UDP port free on ``host`` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class Cues:
    """python-osc's own server on a free loopback port, standing in for QLab: every message it got,
    with the moment (``time.monotonic()``) it came."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.messages: list[tuple[str, tuple]] = []
        self.times: list[float] = []
        self._seen = threading.Condition()
        dispatcher = Dispatcher()
        dispatcher.set_default_handler(self._got)
        self.server = BlockingOSCUDPServer((host, 0), dispatcher)
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def target(self) -> str:
        return f"{self.server.server_address[0]}:{self.port}"

    def _got(self, address: str, *args: Any) -> None:
        with self._seen:
            self.messages.append((address, args))
            self.times.append(time.monotonic())
            self._seen.notify_all()

    def wait(self, count: int, timeout: float = 5.0) -> list[tuple[str, tuple]]:
        """The first ``count`` messages, once they have come."""
        with self._seen:
            if not self._seen.wait_for(lambda: len(self.messages) >= count, timeout):
                raise AssertionError(f"{count} messages expected within {timeout} s, got {self.messages}")
            return self.messages[:count]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def send(port: int, address: str, *args: Any, source: str = "127.0.0.1") -> None:
    """One OSC message from python-osc's client (from ``source``, another loopback address if asked)."""
    if source == "127.0.0.1":
        with SimpleUDPClient("127.0.0.1", port) as client:
            client.send_message(address, list(args))
        return
    builder = OscMessageBuilder(address=address)
    for value in args:
        builder.add_arg(value)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((source, 0))
        sock.sendto(builder.build().dgram, ("127.0.0.1", port))


def osc_of(rig: Rig) -> OscService:
    """The started service (its hook on the daemon)."""
    return next(h.__self__ for h in rig.daemon.on_settled if isinstance(getattr(h, "__self__", None), OscService))


@pytest.fixture
def cues() -> Iterator[Cues]:
    receiver = Cues()
    yield receiver
    receiver.close()


@pytest.fixture
def osc_prop(mock_factory, cues) -> Iterator[Callable[..., Rig]]:
    """``make(**osc)``: a prop whose ``[osc]`` sends every cue to ``cues`` (``osc`` changes the
    section, None leaves a key out; ``sections``: other sections, as ``bomb``)."""
    stops: list[Callable[[], None]] = []

    def make(sections: dict | None = None, **osc: Any) -> Rig:
        section = {
            key: value for key, value in {"targets": [cues.target], **EVERY_CUE, **osc}.items() if value is not None
        }
        config = make_config(osc=section, state={"file": ""}, control={"socket": ""}, **(sections or {}))
        rig, stop = start_served(config, mock_factory)
        stops.append(stop)
        return rig

    yield make
    for stop in stops:
        stop()


def listening(**more: Any) -> dict[str, Any]:
    """``[osc]`` keys that listen on a free loopback port."""
    return {"listen": f"127.0.0.1:{udp_port()}", **more}


def port_of(rig: Rig) -> int:
    listener = osc_of(rig).listener
    assert listener is not None
    return listener.address[1]


# -- cues out ------------------------------------------------------------------------------------


def test_each_event_sends_its_cue_with_its_arguments(osc_prop, cues):
    """A deal without a bet (the deal, then a strike), a solve (the lock opens), a reset (it shuts):
    each event is its message, in order, with the values the docs name."""
    rig = osc_prop(**listening())
    rig.deal()
    rig.deal()
    assert cues.wait(4) == [("/cue/deal/start", (0,)), ("/cue/strike/start", (1,))] + [
        ("/cue/deal/start", (0,)),
        ("/cue/strike/start", (2,)),
    ]
    send(port_of(rig), "/baccarat/solve")
    assert cues.wait(6)[4:] == [("/cue/solved/start", ()), ("/prop/output", ("lock", 1))]
    send(port_of(rig), "/baccarat/reset")
    assert cues.wait(8)[6:] == [("/cue/reset/start", ()), ("/prop/output", ("lock", 0))]
    assert len(cues.messages) == 8


def test_the_explosion_sends_its_cause(osc_prop, cues):
    rig = osc_prop({"bomb": {"strike_limit": 1}})
    rig.deal()
    rig.wait_for("exploded")
    assert cues.wait(3) == [
        ("/cue/deal/start", (0,)),
        ("/cue/strike/start", (1,)),
        ("/cue/exploded/start", ("strikes",)),
    ]


def test_placeholders_fill_the_address_and_arguments_can_be_left_out(osc_prop, cues):
    """QLab starts a cue by its number: ``/cue/strike1/start``, ``/cue/lock-on/start``, each address alone."""
    rig = osc_prop(
        arguments=False, strike="/cue/strike{strikes}/start", output="/cue/{name}-{state}/start", deal=None
    )  # fmt: skip
    rig.deal()
    assert cues.wait(1) == [("/cue/strike1/start", ())]
    rig.daemon.apply(lambda m: m.force_solve()).result(5)
    assert cues.wait(3)[1:] == [("/cue/solved/start", ()), ("/cue/lock-on/start", ())]


def test_a_target_by_name_is_looked_up_off_the_game_thread(mock_factory):
    """``localhost:<port>``: the resolver finds it; the cue goes to the address the name has."""
    ip = socket.getaddrinfo("localhost", 1, type=socket.SOCK_DGRAM)[0][4][0]
    if ":" in ip:
        pytest.skip("localhost is ::1 first here")
    receiver = Cues(ip)
    config = make_config(
        osc={"targets": [f"localhost:{receiver.port}"], "solved": "/cue/solved/start"},
        state={"file": ""},
        control={"socket": ""},
    )
    try:
        rig, stop = start_served(config, mock_factory)
        try:
            sender = osc_of(rig).sender
            assert until(lambda: sender._resolved), "localhost was not looked up"
            rig.daemon.apply(lambda m: m.force_solve()).result(5)
            assert receiver.wait(1) == [("/cue/solved/start", ())]
        finally:
            stop()
    finally:
        receiver.close()


def test_cues_are_sent_from_the_service_thread_never_the_game_thread(osc_prop, cues, monkeypatch):
    """python-osc's client is called on ``baccarat-osc-out``: the game thread only hands events over."""
    from pythonosc.udp_client import UDPClient

    threads: list[str] = []
    real_send = UDPClient.send

    def spy(self, content):
        threads.append(threading.current_thread().name)
        return real_send(self, content)

    monkeypatch.setattr(UDPClient, "send", spy)
    rig = osc_prop()
    rig.daemon.apply(lambda m: m.force_solve()).result(5)
    cues.wait(2)
    assert threads == ["baccarat-osc-out", "baccarat-osc-out"]


class Unreachable:
    """A UDP socket on a host with no route to the target: ``sendto`` fails as Linux fails it."""

    def sendto(self, data: bytes, address: Any) -> int:
        raise OSError(errno.ENETUNREACH, os.strerror(errno.ENETUNREACH))

    def close(self) -> None:
        pass


def test_a_send_that_fails_is_one_line_and_the_other_target_gets_every_cue(osc_prop, cues, caplog):
    """No route to one target: one log line for the spell (not one a cue), and the next target's cues go."""
    rig = osc_prop(targets=["192.0.2.1:53000", cues.target])
    sender = osc_of(rig).sender
    (unreachable,) = [c for t, c in sender._clients.items() if t.host == "192.0.2.1"]
    unreachable._sock.close()
    unreachable._sock = Unreachable()
    for _ in range(3):
        rig.daemon.apply(lambda m: m.force_solve()).result(5)
        rig.daemon.apply(lambda m: m.reset(None)).result(5)
    assert [m[0] for m in cues.wait(12)].count("/cue/solved/start") == 3
    lines = [r.getMessage() for r in caplog.records if "192.0.2.1" in r.getMessage()]
    assert lines == [
        "osc: cannot send /cue/solved/start to 192.0.2.1:53000 (Network is unreachable); the cue is dropped"
    ]


def test_a_target_whose_socket_cannot_be_made_yet_is_tried_again(osc_prop, cues, monkeypatch, caplog):
    """The first socket fails as Linux fails one for a family it lacks (EAFNOSUPPORT): one line,
    the prop runs on, and the resolver makes the client on a later try."""
    from firmware.services.osc import cues as cues_module

    monkeypatch.setattr(cues_module, "RETRY_SECONDS", 0.05)
    real_client, calls = cues_module._client, []

    def first_fails(ip, port):
        calls.append(ip)
        if len(calls) == 1:
            raise OSError(errno.EAFNOSUPPORT, os.strerror(errno.EAFNOSUPPORT))
        return real_client(ip, port)

    monkeypatch.setattr(cues_module, "_client", first_fails)
    rig = osc_prop()
    sender = osc_of(rig).sender
    assert until(lambda: sender._clients), "the client was not made on a later try"
    rig.daemon.apply(lambda m: m.force_solve()).result(5)
    assert cues.wait(1)[0] == ("/cue/solved/start", ())
    lines = [r.getMessage() for r in caplog.records if "cannot be reached now" in r.getMessage()]
    assert lines == [
        f"osc: target {cues.target} cannot be reached now ([Errno 97] Address family not supported by protocol)"
    ]
