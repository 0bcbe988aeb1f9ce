"""The ``[osc]`` section (issue 31, part 4): its one-line errors, each naming the key; its
``check-config`` and ``doctor`` lines; what the unit needs; the service found through its entry
point; and the examples in the package's docstrings."""

from __future__ import annotations

import doctest
import importlib
import socket
from importlib.metadata import entry_points

import pytest

from firmware.config import parse_config
from firmware.errors import ConfigError
from firmware.services.osc import Osc, OscSettings
from firmware.services.osc.settings import Listen, Target
from tests.conftest import ROOT, config_data, make_config
from tests.test_osc import udp_port
from tests.test_service import _check  # check-config on a file, as the shell runs it

GOOD = {"targets": ["192.168.1.20:53000"], "solved": "/cue/solved/start"}


def settings_of(**osc) -> OscSettings:
    return make_config(osc={**GOOD, **osc}).settings["osc"]


def error_of(**osc) -> str:
    table = {key: value for key, value in {**GOOD, **osc}.items() if value is not None}
    with pytest.raises(ConfigError) as caught:
        parse_config(config_data(osc=table))
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_the_section_as_issue_31_writes_it():
    settings = settings_of(strike="/cue/strike/start", listen=9000, allow=["192.168.1.20"])
    assert settings.targets == (Target("192.168.1.20", 53000),)
    assert settings.addresses == {"solved": "/cue/solved/start", "strike": "/cue/strike/start"}
    assert settings.listen == Listen("0.0.0.0", 9000) and [str(n) for n in settings.allow] == ["192.168.1.20/32"]
    assert settings.arguments is True and settings.prefix == "/baccarat"


def test_no_osc_section_no_service():
    assert "osc" not in make_config().settings


@pytest.mark.parametrize(
    ("osc", "expected"),
    [
        (
            {"targets": ["192.168.1.20"]},
            '[osc] targets = ["192.168.1.20"]: "192.168.1.20" needs a port: "192.168.1.20:53000"',
        ),
        ({"targets": ["qlab.local:0"]}, '"qlab.local:0": the port must be 1-65535'),
        ({"targets": ["qlab.local:70000"]}, '"qlab.local:70000": the port must be 1-65535'),
        ({"targets": ["qlab local:53000"]}, '"qlab local" is no IP address or host name'),
        ({"targets": ["::1:53000"]}, "write an IPv6 address in brackets, as [::1]:53000"),
        ({"targets": [53000]}, 'each target must be "host:port" in quotes, not 53000'),
        ({"targets": "192.168.1.20:53000"}, '[osc] targets = "192.168.1.20:53000": must be a list'),
        ({"solved": "cue/solved/start"}, '[osc] solved = "cue/solved/start": must start with "/"'),
        ({"solved": "/cue/solved start"}, "has ' ': OSC addresses are printable ASCII without spaces or #"),
        ({"solved": "/cue//start"}, 'has an empty part ("//", or "/" at the end)'),
        ({"solved": "/cue/[ab/start"}, "has '[ab' without its closing ']'"),
        ({"solved": "/cue/#1/start"}, "has '#'"),
        (
            {"strike": "/cue/{name}/start"},
            '[osc] strike = "/cue/{name}/start": has {name}, which the strike message has no value for'
            " (it offers {strikes})",
        ),
        ({"solved": "/cue/{strikes}/start"}, "the solved message has no value for (it offers none)"),
        ({"solved": 7}, "[osc] solved = 7: must be a string in quotes"),
        ({"solve": "/cue/1/start"}, "[osc] solve: unknown key (did you mean solved?)"),
        ({"solved": None}, '[osc] targets = ["192.168.1.20:53000"]: no event key is set, so nothing is sent'),
        ({"targets": None}, '[osc] solved = "/cue/solved/start": goes nowhere without targets'),
        (
            {"listen": 9000},
            "[osc] listen = 9000: takes commands from any sender on the network: "
            'add allow = ["<the controller\'s IP address>"], or listen on "127.0.0.1:9000"',
        ),
        ({"listen": "0.0.0.0:9000"}, '[osc] listen = "0.0.0.0:9000": takes commands from any sender on the network'),
        ({"listen": 70000}, "[osc] listen = 70000: the port must be 1-65535"),
        ({"listen": "qlab.local:9000", "allow": ["192.168.1.20"]}, '"qlab.local" is no IP address'),
        ({"allow": ["192.168.1.20"]}, '[osc] allow = ["192.168.1.20"]: lets senders in, but nothing listens'),
        (
            {"listen": 9000, "allow": ["qlab.local"]},
            '"qlab.local" is no IP address or network (e.g. "192.168.1.20" or "192.168.1.0/24")',
        ),
        ({"listen": 9000, "allow": ["0.0.0.0/0"]}, '"0.0.0.0/0" lets every sender in: that is no allow-list'),
        ({"listen": 9000, "allow": "192.168.1.20"}, "must be a list"),
        ({"prefix": "/baccarat/*"}, "is a pattern; the commands' prefix is a plain address"),
        ({"arguments": "no"}, '[osc] arguments = "no": must be true or false'),
        ({"targets": [], "solved": None}, "[osc] targets = []: is empty and nothing listens"),
    ],
)
def test_each_bad_value_is_one_line_naming_its_key(osc, expected):
    assert expected in error_of(**osc)


def test_listening_on_loopback_needs_no_allow_list():
    assert settings_of(listen="127.0.0.1:9000").listen == Listen("127.0.0.1", 9000)
    assert settings_of(listen="localhost:9000").listen == Listen("127.0.0.1", 9000)  # never ::1 by surprise
    assert settings_of(listen="[::1]:9000").listen == Listen("::1", 9000)
    listen_only = make_config(osc={"listen": "127.0.0.1:9000"}).settings["osc"]
    assert listen_only.targets == () and listen_only.addresses == {}


def test_check_config_says_where_cues_go_and_who_may_send(tmp_path):
    config = make_config(
        osc={**GOOD, "output": "/cue/{name}-{state}/start", "listen": 9000, "allow": ["192.168.1.20", "10.0.0.0/24"]}
    )
    assert Osc().describe(config.settings["osc"]) == [
        "OSC: cues to 192.168.1.20:53000 (UDP) on solved /cue/solved/start, output /cue/{name}-{state}/start",
        "OSC: commands /baccarat/... on UDP 0.0.0.0:9000 from 192.168.1.20, 10.0.0.0/24",
    ]
    assert Osc().describe(settings_of(arguments=False, listen="127.0.0.1:9000")) == [
        "OSC: cues to 192.168.1.20:53000 (UDP) on solved /cue/solved/start (no arguments)",
        "OSC: commands /baccarat/... on UDP 127.0.0.1:9000 from this machine only",
    ]
    # The command itself, on a file: the lines, and a bad key as one line on stderr.
    text = (ROOT / "firmware" / "config" / "default-config.toml").read_text()
    good = tmp_path / "good.toml"
    good.write_text(text + '\n[osc]\ntargets = ["192.168.1.20:53000"]\nsolved = "/cue/solved/start"\n')
    run = _check(good)
    assert run.returncode == 0, run.stderr
    assert "OSC: cues to 192.168.1.20:53000 (UDP) on solved /cue/solved/start" in run.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text(text + '\n[osc]\ntargets = ["192.168.1.20:53000"]\nsolved = "/cue/solved/start"\nlisten = 9000\n')
    run = _check(bad)
    assert run.returncode != 0 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "[osc] listen = 9000: takes commands from any sender on the network" in run.stderr


def test_doctor_resolves_the_targets_and_tries_the_port():
    port = udp_port()
    settings = settings_of(targets=["localhost:53000", "no-such-host.invalid:53000"], listen=f"127.0.0.1:{port}")
    ok, unknown, free = Osc().doctor(settings, host=None)
    assert ok.status == "OK" and ok.text.startswith("OSC target localhost:53000 is ")
    assert unknown.status == "WARN" and "OSC target no-such-host.invalid:53000: the name is not known" in unknown.text
    assert (free.status, free.text) == ("OK", f"OSC commands' UDP port {port} can be bound")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as holder:
        holder.bind(("127.0.0.1", port))
        (_, _, taken) = Osc().doctor(settings, host=None)
    assert taken.status == "WARN" and "is in use: by the running prop, or by another program" in taken.text
    assert f"ss -ulpn 'sport = :{port}'" in taken.fix


def test_doctor_runs_the_service_check_from_the_config():
    from firmware.doctor import Host, check_services

    findings = check_services(Host(), make_config(osc={"targets": ["127.0.0.1:53000"], "solved": "/s"}))
    assert [f.text for f in findings if "OSC" in f.text] == [
        "OSC target 127.0.0.1:53000 is 127.0.0.1 (UDP: whether it listens is not known)"
    ]


def test_a_port_below_1024_asks_the_unit_for_the_capability():
    assert Osc().unit(settings_of(listen="127.0.0.1:900")) == {"AmbientCapabilities": "CAP_NET_BIND_SERVICE"}
    assert Osc().unit(settings_of(listen="127.0.0.1:9000")) == {}
    assert Osc().unit(settings_of()) == {}


def test_the_service_is_registered_as_an_entry_point():
    (point,) = [ep for ep in entry_points(group="baccarat.services") if ep.name == "osc"]
    assert point.value == "firmware.services.osc:Osc" and point.load() is Osc
    assert Osc.docs == "integrate/osc.md" and (ROOT / "docs" / Osc.docs).is_file()


@pytest.mark.parametrize(
    "name",
    [
        "firmware.services.osc",
        "firmware.services.osc.settings",
        "firmware.services.osc.cues",
        "firmware.services.osc.listener",
    ],
)
def test_the_examples_run(name):
    module = importlib.import_module(name)
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False)
    assert attempted >= 3 and failed == 0, f"{name}: {failed} of {attempted} examples failed"
