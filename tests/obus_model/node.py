"""One node of a model OBUS bomb, in a process of its own, on python-can's udp_multicast.

``python tests/obus_model/node.py KIND ID GROUP PORT [OPTIONS-JSON]``, KIND one of ``controller``,
``puzzle``, ``needy``, ``info``. It behaves as the spec page says an OBUS node does (written from
the tables, not from the product): the controller runs the info and registration rounds, starts
the game, sends STATE every 500 ms and ends it; a module registers after HELLO with its spread
delay, plays after its ACK, sends STRIKE and SOLVED when told; an info module answers INFO START.

Stdin takes JSON lines (``{"info": 7}``, ``{"start": {"ms": 60000, "max": 3}}``, ``{"strike": 1}``,
``{"solve": 1}``, ``{"register": 1}``, ``{"raw": [id, "hex"]}``, ``{"quit": 1}``); stdout gets a
JSON line for each frame heard (``rx``: id, hex, name, and ``problems`` by the spec's tables),
each frame sent (``tx``) and each step (``registered``, ``game``, ``end``...).
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import can  # noqa: E402
import spec  # noqa: E402

_out = threading.Lock()


def say(**data: object) -> None:
    with _out:
        sys.stdout.write(json.dumps(data) + "\n")
        sys.stdout.flush()


class Node:
    """What every kind shares: the bus, the frames heard and sent, the commands from stdin."""

    def __init__(self, kind: str, number: int, group: str, port: int, options: dict) -> None:
        self.kind = kind
        self.number = number
        self.options = options
        self.type = {"controller": 0, "info": 0, "puzzle": 1, "needy": 2}[kind]
        self.my_id = spec.make_id(self.type, number)
        self.bus = can.Bus(interface="udp_multicast", channel=group, port=port)
        self.commands: queue.SimpleQueue[dict] = queue.SimpleQueue()
        self.sent: list[tuple[int, bytes]] = []
        self.timers: list[tuple[float, object]] = []
        threading.Thread(target=self._read_stdin, daemon=True).start()

    def _read_stdin(self) -> None:
        for line in sys.stdin:
            if line.strip():
                self.commands.put(json.loads(line))
        self.commands.put({"quit": 1})

    def send(self, can_id: int, data: bytes) -> None:
        self.bus.send(can.Message(arbitration_id=can_id, data=data, is_extended_id=False))
        self.sent.append((can_id, data))
        say(tx=[can_id, data.hex()], name=spec.name(can_id, data))

    def at(self, when: float, what: object) -> None:
        self.timers.append((when, what))

    def run(self) -> None:
        say(ready=self.kind, id=self.number)
        while True:
            frame = self.bus.recv(0.02)
            now = time.monotonic()
            if frame is not None:
                data = bytes(frame.data)
                if (frame.arbitration_id, data) in self.sent:  # the multicast group's echo of our own
                    self.sent.remove((frame.arbitration_id, data))
                else:
                    found = spec.problems(frame.arbitration_id, data, frame.is_extended_id)
                    say(rx=[frame.arbitration_id, data.hex()], name=spec.name(frame.arbitration_id, data),
                        problems=found)  # fmt: skip
                    if not found:
                        self.heard(frame.arbitration_id, data, now)
            while True:
                try:
                    command = self.commands.get_nowait()
                except queue.Empty:
                    break
                if "quit" in command:
                    self.bus.shutdown()
                    return
                if "raw" in command:
                    can_id, text = command["raw"]
                    self.send(can_id, bytes.fromhex(text))
                else:
                    self.command(command, now)
            due = [t for t in self.timers if t[0] <= now]
            self.timers = [t for t in self.timers if t[0] > now]
            for _, what in due:
                what()  # type: ignore[operator]
            self.tick(now)

    def heard(self, can_id: int, data: bytes, now: float) -> None:
        """A well-formed frame from another node."""

    def command(self, command: dict, now: float) -> None:
        """A command from the test."""

    def tick(self, now: float) -> None:
        """Each pass of the loop."""


class Controller(Node):
    """A model OBUS controller (the Python controller's rules: each module's last strike count, byte 7
    the puzzle modules left; ``{"count": "solved"}`` for the Arduino controller's byte 7)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.phase = "idle"
        self.modules: dict[tuple[int, int], dict] = {}
        self.game_end = 0.0
        self.max = 3
        self.next_state = 0.0
        self.quiet_until = 0.0

    def command(self, command: dict, now: float) -> None:
        if "info" in command:
            self.phase = "info"
            self.modules = {}
            self.send(spec.CONTROLLER_ID, bytes([7]) + int(command["info"]).to_bytes(4, "big"))
            self.at(now + float(self.options.get("info_seconds", 3.0)), self.hello)
        elif "start" in command:
            self.start(command["start"], now)
        elif "quiet" in command:
            self.quiet_until = now + float(command["quiet"])

    def hello(self) -> None:
        self.phase = "registering"
        self.send(spec.CONTROLLER_ID, bytes([1]))

    def start(self, given: dict, now: float) -> None:
        self.phase = "game"
        self.max = int(given.get("max", 3))
        self.game_end = now + given["ms"] / 1000
        self.next_state = now + 0.5
        puzzles = sum(1 for (kind, _) in self.modules if kind == 1)
        self.send(spec.CONTROLLER_ID, spec.status(2, given["ms"], 0, self.max, puzzles))
        say(game="start", modules=sorted(self.modules))

    def heard(self, can_id: int, data: bytes, now: float) -> None:
        node = spec.node_of(can_id)
        if node[0] == 0:
            if node[1] != 0:
                say(info=node[1], data=data[1:].hex(), text=data[1:].decode("ascii", "replace"))
            return
        if data[0] == 0:
            if self.phase == "registering" and node not in self.modules:
                if list(node) in self.options.get("no_ack", []):  # a controller that missed it
                    say(unacked=list(node))
                    return
                self.modules[node] = {"strikes": 0, "solved": False}
                self.send(spec.CONTROLLER_ID, bytes([0, node[0], node[1]]))
                say(registered=list(node))
            return
        module = self.modules.get(node)
        if module is None or self.phase != "game":
            say(ignored=list(node), name=spec.name(can_id, data))
            return
        if data[0] == 1:
            module["strikes"] = data[1]
        elif data[0] == 2:
            module["solved"] = True

    def counts(self) -> tuple[int, int, int]:
        strikes = sum(m["strikes"] for m in self.modules.values())
        puzzles = [m for (kind, _), m in self.modules.items() if kind == 1]
        solved = sum(1 for m in puzzles if m["solved"])
        return strikes, solved, len(puzzles) - solved

    def tick(self, now: float) -> None:
        if self.phase != "game":
            return
        strikes, solved, left = self.counts()
        byte7 = solved if self.options.get("count") == "solved" else left
        remaining = max(0, round((self.game_end - now) * 1000))
        end = None
        if remaining == 0:
            end = (5, "timeout")
        elif strikes >= self.max:
            end = (6, "strikeout")
        elif left == 0:
            end = (4, "solved")
        if end is not None:
            self.phase = "over"
            self.send(spec.CONTROLLER_ID, spec.status(end[0], remaining, strikes, self.max, byte7))
            say(end=end[1], strikes=strikes, solved=solved)
            return
        if now >= self.next_state:
            self.next_state += 0.5
            if now < self.quiet_until:  # told to keep quiet: a controller that stopped talking
                return
            self.send(spec.CONTROLLER_ID, spec.status(3, remaining, strikes, self.max, byte7))


class Module(Node):
    """A model puzzle or needy module."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.acked = False
        self.active = False
        self.strikes = 0

    def heard(self, can_id: int, data: bytes, now: float) -> None:
        node = spec.node_of(can_id)
        if node == (0, 0):
            kind = data[0]
            if kind == 1:  # HELLO: forget the game, register after the spread delay
                self.acked = self.active = False
                self.strikes = 0
                delay = 0.25 * (((self.type & 2) << 2) | (self.number & 7)) + 0.008 * (self.number >> 3)
                self.at(now + delay, self.register)
            elif kind == 0 and data[1] == self.type and data[2] == self.number:
                self.acked = True
                say(acked=True)
            elif kind == 2 and self.acked:
                self.active = True
                say(game="start", **spec.read_status(data))
            elif kind == 3 and self.active:
                say(state=spec.read_status(data))
            elif kind in (4, 5, 6) and self.active:
                self.active = False
                say(end={4: "solved", 5: "timeout", 6: "strikeout"}[kind], **spec.read_status(data))
        elif node[0] == 0:
            say(info=node[1], data=data[1:].hex(), text=data[1:].decode("ascii", "replace"))

    def register(self) -> None:
        self.send(self.my_id, bytes([0]))

    def command(self, command: dict, now: float) -> None:
        if "strike" in command:
            self.strikes += 1
            self.send(self.my_id, bytes([1, self.strikes]))
        elif "solve" in command:
            self.send(self.my_id, bytes([2]))
        elif "register" in command:
            self.register()


class Info(Node):
    """A model info module: its bytes after INFO START, spread by id."""

    def heard(self, can_id: int, data: bytes, now: float) -> None:
        if spec.node_of(can_id) == (0, 0) and data[0] == 7:
            delay = 0.5 * (self.number & 7) + 0.016 * (self.number >> 3)
            payload = bytes([0]) + bytes.fromhex(self.options["data"])
            self.at(now + delay, lambda: self.send(self.my_id, payload))


def main() -> None:
    kind, number, group, port = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    options = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
    cls = {"controller": Controller, "puzzle": Module, "needy": Module, "info": Info}[kind]
    cls(kind, number, group, port, options).run()


if __name__ == "__main__":
    main()
