"""OSC commands (issue 31, part 4) through a real daemon with the real service: python-osc's client
sends, the prop runs each through the one command path, with its refusals, and only from the
senders ``allow`` lets in."""

from __future__ import annotations

import socket
import threading

from tests.test_osc import cues, listening, osc_of, osc_prop, port_of, send, udp_port, until  # noqa: F401 - fixtures


def test_each_command_runs_as_every_surface_runs_it(osc_prop, cues):  # noqa: F811 - the fixtures above
    rig = osc_prop(**listening())
    port, module = port_of(rig), rig.daemon.module
    send(port, "/baccarat/solve", 1.0)  # TouchOSC's button pressed...
    assert until(lambda: module.solved)
    send(port, "/baccarat/reset", 0.0)  # ...and let go: nothing runs
    send(port, "/baccarat/output/lock", 0)  # a toggle: the lock shuts
    assert until(lambda: rig.daemon.board.outputs.states() == [{"name": "lock", "on": False}])
    assert module.solved, "a button let go reset the module"
    send(port, "/baccarat/reset", True)
    assert until(lambda: not module.solved)
    send(port, "/baccarat/output", "lock", "on")
    assert until(lambda: rig.daemon.board.outputs.states() == [{"name": "lock", "on": True}])
    send(port, "/baccarat/disable")
    assert until(lambda: not module.enabled)
    send(port, "/baccarat/enable", 1)
    assert until(lambda: module.enabled)
    send(port, "/baccarat/command", "set-solved 3")
    assert until(lambda: module.edgework.solved == 3)
    kinds = [m[0] for m in cues.messages]
    assert kinds.count("/cue/solved/start") == 1 and kinds.count("/cue/reset/start") == 1


def test_after_an_explosion_a_solve_is_refused_as_everywhere(osc_prop, cues):  # noqa: F811
    """The bomb is gone: the module ignores the solve (the same ``ignored`` event MQTT and the console get)."""
    rig = osc_prop({"bomb": {"strike_limit": 1}}, **listening())
    rig.deal()
    rig.wait_for("exploded")
    send(port_of(rig), "/baccarat/solve")
    ignored = rig.wait_for("ignored")
    assert (ignored.input, ignored.reason) == ("force solve", "exploded")
    assert not rig.daemon.module.solved
    assert "/cue/solved/start" not in [m[0] for m in cues.messages]


def test_during_the_self_test_a_command_waits_for_its_end(osc_prop, cues):  # noqa: F811
    rig = osc_prop(**listening())
    port, listener = port_of(rig), osc_of(rig).listener
    send(port, "/baccarat/command", "self-test button_seconds=60")
    assert until(lambda: rig.daemon.mode is not None), "the self-test did not start"
    send(port, "/baccarat/solve")
    assert until(lambda: listener.pending == 2), "the solve did not reach the command path"
    assert not rig.daemon.module.solved and rig.daemon.mode is not None
    send(port, "/baccarat/command", "self-test-cancel")
    assert until(lambda: rig.daemon.module.solved), "the solve did not run after the self-test"
    assert until(lambda: listener.pending == 0)
    assert cues.wait(1)[0] == ("/cue/solved/start", ())


def test_only_the_senders_allowed_are_heard(osc_prop, caplog):  # noqa: F811
    """Listening on loopback with ``allow``: 127.0.0.2 is heard, 127.0.0.3 is not (one log line)."""
    rig = osc_prop(**listening(allow=["127.0.0.2"]))
    port = port_of(rig)
    for _ in range(5):
        send(port, "/baccarat/solve", source="127.0.0.3")
    send(port, "/baccarat/disable", source="127.0.0.2")  # after the refused ones, on the same thread
    assert until(lambda: not rig.daemon.module.enabled)
    assert not rig.daemon.module.solved
    refused = [r.getMessage() for r in caplog.records if "allow" in r.getMessage()]
    assert refused == ["osc: ignored datagrams from 127.0.0.3: not in [osc] allow"]


def test_a_network_in_allow_lets_its_senders_in(osc_prop):  # noqa: F811
    rig = osc_prop(**listening(allow=["127.0.0.0/29"]))
    send(port_of(rig), "/baccarat/solve", source="127.0.0.5")
    assert until(lambda: rig.daemon.module.solved)


def test_a_port_in_use_is_one_line_and_the_cues_still_go(osc_prop, cues, caplog):  # noqa: F811
    port = udp_port()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as holder:
        holder.bind(("127.0.0.1", port))
        rig = osc_prop(listen=f"127.0.0.1:{port}")
        assert osc_of(rig).listener is None
        rig.daemon.apply(lambda m: m.force_solve()).result(5)
        assert cues.wait(1)[0] == ("/cue/solved/start", ())
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert errors == [
        f"osc: UDP 127.0.0.1:{port} cannot be opened (Address already in use); OSC commands will not work"
    ]


def test_the_port_is_closed_at_the_stop(mock_factory, cues):  # noqa: F811
    from tests.conftest import make_config, start_served

    port = udp_port()
    config = make_config(
        osc={"targets": [cues.target], "solved": "/s", "listen": f"127.0.0.1:{port}"},
        state={"file": ""},
        control={"socket": ""},
    )
    before = set(threading.enumerate())
    rig, stop = start_served(config, mock_factory)
    started = [t for t in threading.enumerate() if t not in before and t.name.startswith("baccarat-osc")]
    assert sorted(t.name for t in started) == ["baccarat-osc-in", "baccarat-osc-out"]
    stop()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as again:
        again.bind(("127.0.0.1", port))  # free again
    assert not [t for t in started if t.is_alive()], "a thread of the service outlived its stop"


def test_a_refusal_is_the_command_paths_own(osc_prop, caplog):  # noqa: F811
    """An output the prop does not have: the same words the console and MQTT get back, in the log."""
    rig = osc_prop(**listening())
    send(port_of(rig), "/baccarat/output", "trapdoor", "on")
    expected = rig.master.handle({"command": "output", "name": "trapdoor", "state": "on"}).result(5)
    assert expected["error"] == 'output: unknown output "trapdoor" (known: lock)'
    line = f"osc from 127.0.0.1: command rejected: {expected['error']}"
    assert until(lambda: line in [r.getMessage() for r in caplog.records]), [r.getMessage() for r in caplog.records]


def test_liblo_tools_send_and_receive_as_python_osc_does(mock_factory):
    """An OSC implementation of another hand (liblo, in C): ``oscsend`` commands, ``oscdump`` gets the cues."""
    import shutil
    import subprocess

    import pytest

    from tests.conftest import make_config, start_served

    if not (shutil.which("oscsend") and shutil.which("oscdump")):
        pytest.skip("liblo-tools is not installed (apt-get install liblo-tools)")
    target, listen = udp_port(), udp_port()
    dump = subprocess.Popen(["oscdump", "-L", str(target)], stdout=subprocess.PIPE, text=True)
    assert until(lambda: not bindable(target)), "oscdump did not open its port"
    config = make_config(
        osc={"targets": [f"127.0.0.1:{target}"], "solved": "/cue/solved/start", "output": "/prop/output"}
        | {"listen": f"127.0.0.1:{listen}"},
        state={"file": ""},
        control={"socket": ""},
    )
    rig, stop = start_served(config, mock_factory)
    try:
        subprocess.run(["oscsend", "127.0.0.1", str(listen), "/baccarat/command", "s", "set-solved 2"], check=True)
        assert until(lambda: rig.daemon.module.edgework.solved == 2)
        subprocess.run(["oscsend", "127.0.0.1", str(listen), "/baccarat/solve"], check=True)
        lines = [dump.stdout.readline().split(" ", 1)[1].strip() for _ in range(2)]
    finally:
        stop()
        dump.terminate()
        dump.communicate(timeout=5)  # and its pipe closed
    assert lines == ["/cue/solved/start", '/prop/output si "lock" 1']


def bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True
