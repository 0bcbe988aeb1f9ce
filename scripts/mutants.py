"""Hand-made mutants: does the suite notice when a behaviour is removed?

Each mutant below replaces one exact piece of the product's text (it must occur
exactly once in its file) with a broken version, in a scratch copy of the tree;
the tests named for it run against that copy, and the mutant is *killed* when
they fail. One mutant at a time; the working tree is never touched. The mutants
marked with an issue-26 bullet are the behaviours that issue found unguarded:
each must be killed. The rest are a sample across ``baccarat_core`` and
``firmware``, each run against the test files written for its code.

    .venv/bin/python scripts/mutants.py                 # every mutant, then the score per package
    .venv/bin/python scripts/mutants.py --jobs 2        # two at a time (a scratch copy each)
    .venv/bin/python scripts/mutants.py --only web      # mutants whose id contains "web"
    .venv/bin/python scripts/mutants.py --whole-suite --only storm   # against every test, not the named ones
    .venv/bin/python scripts/mutants.py --list          # what each mutant breaks, and its tests

Not part of ``scripts/test.sh``: it runs the named tests once per mutant, about
9 minutes with ``--jobs 2`` on a busy 2-core machine (2 of them the baseline run
of every named test without a mutant). Exit status 1 if a mutant survived (or
did not apply), 0 if all were killed. Python's byte-code cache is off in the
copy, so every run compiles the mutated file afresh.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venv" / "bin" / "python"
IGNORED = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache")


@dataclass(frozen=True)
class Mutant:
    """One exact replacement in one file, and the tests that should notice it."""

    id: str
    file: str
    original: str
    replacement: str
    tests: tuple[str, ...]
    breaks: str
    issue: str = ""  # the issue-26 bullet it stands for, if any
    env: dict[str, str] = field(default_factory=dict)

    @property
    def package(self) -> str:
        """``baccarat_core``, or ``firmware`` and its subpackage (``firmware.room``)."""
        parts = Path(self.file).parts
        if parts[0] == "firmware" and len(parts) > 2:
            return f"firmware.{parts[1]}"
        return parts[0]


def m(
    id: str,
    file: str,
    original: str,
    replacement: str,
    tests: str | tuple[str, ...],
    breaks: str,
    *,
    issue: str = "",
    env: dict[str, str] | None = None,
) -> Mutant:
    """A mutant; ``tests`` is one pytest argument or several."""
    return Mutant(
        id, file, original, replacement, (tests,) if isinstance(tests, str) else tests, breaks, issue, env or {}
    )


STORM_SHORT = {"BACCARAT_STORM_EDGES": "30000"}

MUTANTS: list[Mutant] = [
    # -- issue 26, part 1: tests that could not fail -------------------------------------------------
    m(
        "hold-release-adds-a-chip",
        "firmware/devices/buttons.py",
        "        if held or closed_at is None:\n",
        "        if closed_at is None:\n",
        "tests/test_daemon_inputs.py",
        "the release after a hold adds a chip",
        issue="1: a hold clears and the release adds nothing",
    ),
    m(
        "hold-fires-early",
        "firmware/devices/buttons.py",
        "self._holds.arm(self, self._hold_seconds, self._hold_passed, since=closed_at)",
        "self._holds.arm(self, self._hold_seconds * 0.9, self._hold_passed, since=closed_at)",
        "tests/test_daemon_inputs.py",
        "a hold fires at 0.9 of hold_seconds",
        issue="1: the hold fires at exactly hold_seconds",
    ),
    m(
        "hold-timer-fires-late",
        "firmware/devices/buttons.py",
        "                if left > 0:\n",
        "                if left > -0.05:\n",
        "tests/test_daemon_inputs.py",
        "the hold timer fires 50 ms late",
        issue="1: the hold fires at exactly hold_seconds",
    ),
    m(
        "deal-takes-inputs",
        "firmware/daemon.py",
        '            if self._round is not None:\n                log.debug("ignored %s: it came during the deal", '
        "describe_input(item))\n                return\n",
        "",
        "tests/test_daemon_rounds.py::test_cards_appear_one_by_one_and_inputs_during_the_deal_are_ignored",
        "inputs during a deal are taken",
        issue="1: inputs during the deal are ignored",
    ),
    m(
        "storm-hold-release-adds-a-chip",
        "firmware/devices/buttons.py",
        "        if held or closed_at is None:\n",
        "        if closed_at is None:\n",
        "tests/test_faults_storm.py",
        "the release after a hold adds a chip (the storm's board model alone)",
        issue="1: the storm no longer re-baselines",
        env=STORM_SHORT,
    ),
    m(
        "storm-debounce-off",
        "firmware/devices/buttons.py",
        "            if self._last is not None and now - self._last < self._debounce:\n",
        "            if self._last is not None and now - self._last < self._debounce / 4:\n",
        "tests/test_faults_storm.py",
        "an arrow's or the deal's bounce filter is a quarter as long",
        issue="1: the storm no longer re-baselines",
        env=STORM_SHORT,
    ),
    m(
        "config-display-width-unchecked",
        "firmware/config.py",
        '    width = section.get("width", int, check=lambda v: None if 16 <= v <= 512 else "must be 16-512 pixels")\n',
        '    width = section.get("width", int)\n',
        "tests/test_hostile_config.py::test_1000_generated_broken_configs_each_give_one_line_naming_the_key",
        "a display's width is not checked",
        issue="1: display faults reach the display checks",
    ),
    m(
        "config-rotate-unchecked",
        "firmware/config.py",
        '"rotate", int, 0, check=lambda v: None if v in (0, 1, 2, 3) else "must be 0, 1, 2 or 3 (quarter turns)"',
        '"rotate", int, 0',
        "tests/test_hostile_config.py::test_1000_generated_broken_configs_each_give_one_line_naming_the_key",
        "a display's rotation is not checked",
        issue="1: display faults reach the display checks",
    ),
    m(
        "config-message-without-key",
        "firmware/config.py",
        '        return self.error(f"[{self.name}] {key} = {shown}: {problem}")',
        '        return self.error(f"[{self.name}] = {shown}: {problem}")',
        "tests/test_hostile_config.py::test_1000_generated_broken_configs_each_give_one_line_naming_the_key",
        "a config error names the value but not its key",
        issue="1: the 1,000 configs' messages name the key",
    ),
    m(
        "hint-names-the-loser",
        "firmware/room/commands.py",
        "    winner = game.winner\n",
        '    winner = {"player": "banker", "banker": "player"}.get(game.winner, "tie")\n',
        "tests/test_mqtt.py::test_hint_command_names_the_winning_bet",
        "the hint names the losing bet",
        issue="1: no skip on a fixed seed",
    ),
    # -- issue 26, part 2: behaviour no test held ---------------------------------------------------
    m(
        "session-never-idles-out",
        "firmware/web/auth.py",
        "            if now - session.last_seen > self._idle:\n",
        "            if False:\n",
        "tests/test_web_sessions.py",
        "a session idle past the limit stays",
        issue="2: session idle expiry",
    ),
    m(
        "session-idle-not-refreshed",
        "firmware/web/auth.py",
        "            session.last_seen = now\n",
        "",
        "tests/test_web_sessions.py",
        "using a session does not restart its idle time",
        issue="2: session idle expiry",
    ),
    m(
        "session-never-evicted",
        "firmware/web/auth.py",
        "            while len(self._sessions) > self._limit:\n",
        "            while False:\n",
        "tests/test_web_sessions.py",
        "sessions past the limit are kept",
        issue="2: session eviction",
    ),
    m(
        "session-evicts-the-newest",
        "firmware/web/auth.py",
        "                oldest = min(self._sessions, key=lambda k: self._sessions[k].last_seen)\n",
        "                oldest = max(self._sessions, key=lambda k: self._sessions[k].last_seen)\n",
        "tests/test_web_sessions.py",
        "past the limit, the most recently used session is dropped",
        issue="2: session eviction",
    ),
    m(
        "login-origin-unchecked",
        "firmware/web/auth.py",
        "        if not origin_ok(request):\n"
        '            return page(N_("Refused: the form came from another site."), 403)\n',
        "",
        "tests/test_web_login_origin.py",
        "the login form takes a post from another site",
        issue="2: the Origin check on the login form",
    ),
    m(
        "error-pages-without-security-headers",
        "firmware/web/server.py",
        "            exc.headers.update(SECURITY_HEADERS)\n",
        "",
        "tests/test_web_headers.py",
        "404s, 405s and redirects carry no security headers",
        issue="2: security headers on 404s and redirects",
    ),
    m(
        "state-directory-not-fsynced",
        "firmware/room/saved_state.py",
        "        os.fsync(dir_fd)\n",
        "        pass\n",
        "tests/test_state.py",
        "the directory is not fsynced after the rename",
        issue="2: the directory fsync after the rename",
    ),
    m(
        "edgework-resets-the-solved-count",
        "firmware/room/mqtt.py",
        '    return Edgework.from_dict({**data, "solved": 0}), True\n',
        '    return Edgework.from_dict({**data, "solved": 0}), False\n',
        "tests/test_mqtt.py::test_edgework_published_without_a_solved_count_keeps_the_modules",
        "edgework without a solved count sets it to 0",
        issue="2: edgework without solved keeps the count",
    ),
    m(
        "stop-leaves-queued-commands-waiting",
        "firmware/daemon.py",
        "        for item in left:\n            if isinstance(item, _Call | _SolvedCount):\n"
        "                _fail_stopped(item.future)\n",
        "",
        "tests/test_daemon_stop.py",
        "commands waiting when the prop stops are never answered",
        issue="2: a command queued behind a deal fails at once at stop",
    ),
    m(
        "stopped-daemon-takes-commands",
        "firmware/daemon.py",
        "            if not self._ended:\n                self._queue.put(item)\n                return\n",
        "            self._queue.put(item)\n            return\n",
        "tests/test_daemon_stop.py",
        "a command sent after the stop waits for a game thread that has ended",
        issue="2: a command queued behind a deal fails at once at stop",
    ),
    m(
        "raising-hook-stops-the-rest",
        "firmware/daemon.py",
        "    for hook in hooks:\n        try:\n            hook(*args)\n        except Exception:\n"
        '            log.exception("hook %r failed", hook)\n',
        "    for hook in hooks:\n        hook(*args)\n",
        "tests/test_daemon_hooks.py",
        "a hook that raises (any of the four moments) stops the others, the lights and the log",
        issue="2: a listener that raises stops nothing",
    ),
    m(
        "reply-before-events",
        "firmware/daemon.py",
        "        self._settled()  # and its events reach the services before the reply does\n"
        "        started = self._round\n"
        "        if started is not None and started is not before and not started.paid:\n"
        "            started.replies.append((call.future, result))  # a deal: answered with its result\n"
        "            return\n"
        "        call.future.set_result(result)\n",
        "        call.future.set_result(result)\n        self._settled()\n",
        "tests/test_mqtt.py::test_a_commands_events_reach_the_broker_before_its_reply_every_time",
        "a command's reply is handed over before its events",
        issue="2: events reach MQTT before the reply",
    ),
    m(
        "mqtt-reply-overtakes-events",
        "firmware/room/mqtt.py",
        "        if self._out_thread is None:\n            self._send_reply(reply)\n        else:\n"
        "            self._out.put(reply)\n",
        "        self._send_reply(reply)\n",
        "tests/test_mqtt.py::test_a_commands_events_reach_the_broker_before_its_reply_every_time",
        "the reply is published at once, beside the out thread's events",
        issue="2: events reach MQTT before the reply",
    ),
    m(
        "display-retried-every-3-s",
        "firmware/daemon.py",
        "                self._retry_at = self.clock() + self.retry_seconds\n",
        "                self._retry_at = self.clock() + self.retry_seconds * 3\n",
        "tests/test_faults_displays.py",
        "a display that does not answer is tried every 3 s",
        issue="2: the display retry period (every second)",
    ),
    m(
        "display-not-retried-when-idle",
        "firmware/daemon.py",
        "            due = min(due, self._retry_at)\n",
        "",
        "tests/test_faults_displays.py",
        "a display that does not answer is tried only when something is drawn",
        issue="2: the display retry period (every second)",
    ),
    m(
        "a-frame-per-input",
        "firmware/daemon.py",
        "            if self._queue.empty():  # inputs queued behind this one are handled before the next frame\n",
        "            if True:\n",
        "tests/test_daemon_hooks.py",
        "inputs queued behind a busy game thread are drawn one by one",
        issue="2: coalescing",
    ),
    m(
        "card-seconds-unchecked",
        "firmware/cli/run.py",
        "        type=arg_type(_card_seconds),\n",
        "        type=float,\n",
        "tests/test_cli_numbers.py",
        "--card-seconds takes nan, inf and 1e9",
        issue="2: numeric flags go through the config's checks",
    ),
    m(
        "timing-finite-unchecked",
        "firmware/config.py",
        '    if not math.isfinite(value):\n        return "must be a finite number"\n',
        "",
        "tests/test_cli_numbers.py",
        "a command-line duration may be NaN",
        issue="2: numeric flags go through the config's checks",
    ),
    # -- a sample across baccarat_core -------------------------------------------------------------------
    m(
        "core-ten-is-worth-ten",
        "baccarat_core/cards.py",
        "        return position if position < 10 else 0\n",
        "        return position if position <= 10 else 0\n",
        "tests/test_cards.py",
        "a ten counts 10 points",
    ),
    m(
        "core-index-suits",
        "baccarat_core/cards.py",
        "        if suit < 2:  # hearts, clubs: ace through king\n",
        "        if suit < 3:  # hearts, clubs: ace through king\n",
        "tests/test_cards.py",
        "diamonds count ace to king",
    ),
    m(
        "core-stack-order",
        "baccarat_core/chips.py",
        "    return all(below >= above for below, above in zip(stack, stack[1:], strict=False))\n",
        "    return all(below > above for below, above in zip(stack, stack[1:], strict=False))\n",
        ("tests/test_module.py", "tests/test_rounds.py"),
        "two equal chips in a stack count as disordered",
    ),
    m(
        "core-side-limits",
        "baccarat_core/limits.py",
        "        return self.minimum <= 10 * bet <= self.maximum\n",
        "        return self.minimum <= bet <= self.maximum\n",
        ("tests/test_limits.py", "tests/test_module.py"),
        "side bets use the main limits",
    ),
    m(
        "core-ratio-row",
        "baccarat_core/limits.py",
        "            if self.maximum <= bound * self.minimum:\n",
        "            if self.maximum < bound * self.minimum:\n",
        ("tests/test_limits.py", "tests/test_deck.py"),
        "a ratio on a row's bound falls into the next row",
    ),
    m(
        "core-banker-third-card",
        "baccarat_core/rounds.py",
        "        return 2 <= third <= 7\n",
        "        return 2 <= third <= 6\n",
        "tests/test_rounds.py",
        "a banker on 4 stands on a player's third 7",
    ),
    m(
        "core-natural",
        "baccarat_core/rounds.py",
        "    if hand_score(player) < 8 and hand_score(banker) < 8:\n",
        "    if hand_score(player) < 9 and hand_score(banker) < 9:\n",
        "tests/test_rounds.py",
        "an 8 is no natural",
    ),
    m(
        "core-banker-commission",
        "baccarat_core/rounds.py",
        '"banker": 95,',
        '"banker": 100,',
        ("tests/test_rounds.py", "tests/test_module.py"),
        "a banker win pays without commission",
    ),
    m(
        "core-tie-pushes",
        "baccarat_core/rounds.py",
        '        if area in MAIN_AREAS and game.winner == "tie":\n            results[area] = 0\n',
        "",
        ("tests/test_rounds.py", "tests/test_module.py"),
        "a tie loses the main bets instead of pushing",
    ),
    m(
        "core-serial-letter-wrap",
        "baccarat_core/deck.py",
        "        while total > 26:\n",
        "        while total > 27:\n",
        "tests/test_deck.py",
        "the letter sum wraps past 27",
    ),
    m(
        "core-first-index",
        "baccarat_core/deck.py",
        "    return (index - 1) % 52 + 1\n",
        "    return index % 52 + 1\n",
        "tests/test_deck.py",
        "the first index is one off",
    ),
    m(
        "core-port-tie-rule",
        "baccarat_core/deck.py",
        "    column = sum(tied)\n",
        "    column = tied[0]\n",
        "tests/test_deck.py",
        "tied ports take the first column, not the sum",
    ),
    m(
        "core-unshuffled",
        "baccarat_core/deck.py",
        '    return edgework.has_lit("BOB") and len(edgework.ports) in (8, 9)\n',
        '    return edgework.has_lit("BOB") and len(edgework.ports) in (8,)\n',
        "tests/test_deck.py",
        "nine ports and lit BOB shuffle",
    ),
    m(
        "core-exclusive-both",
        "baccarat_core/module.py",
        "        if len(placed) == 1:\n            return None\n",
        "        if len(placed) >= 1:\n            return None\n",
        "tests/test_module.py",
        "bets on both Player and Banker pass",
    ),
    m(
        "core-limits-check",
        "baccarat_core/module.py",
        "            if bets[area] and not self.limits.allows(bets[area]):\n",
        "            if bets[area] and not self.limits.allows(bets[area] + 1):\n",
        "tests/test_module.py",
        "a main bet at the maximum is refused",
    ),
    m(
        "core-replace-below-26",
        "baccarat_core/module.py",
        "        if self.cards_left < REPLACE_BELOW:\n",
        "        if self.cards_left < REPLACE_BELOW - 1:\n",
        "tests/test_module.py",
        "a deck with 25 cards left stays",
    ),
    m(
        "core-push-no-strike",
        "baccarat_core/module.py",
        "        if profit < 0:\n",
        "        if profit <= 0:\n",
        "tests/test_module.py",
        "a push is a loss strike",
    ),
    m(
        "core-solved-ignores-inputs",
        "baccarat_core/module.py",
        '        if self.solved:\n            return [ev.InputIgnored(what, "solved")]\n',
        "",
        "tests/test_module.py",
        "a solved module takes chips",
    ),
    m(
        "core-dollar-separators",
        "baccarat_core/numbers.py",
        "SEPARATORS_FROM = 10_000\n",
        "SEPARATORS_FROM = 1_000\n",
        ("tests/test_records.py", "tests/test_cli_deck_play.py", "tests/test_render.py"),
        "$1,500 instead of $1500",
    ),
    m(
        "core-typed-digits-only",
        "baccarat_core/numbers.py",
        '_DIGITS = re.compile(r"[0-9]+")\n',
        '_DIGITS = re.compile(r"\\d+")\n',
        ("tests/test_hostile_core.py", "tests/test_cli_deck_play.py"),
        "Arabic-Indic digits count as a number",
    ),
    m(
        "core-near-port-typo",
        "baccarat_core/edgework.py",
        "_distance(key, spelling) <= (1 if len(spelling) <= 5 else 2)",
        "_distance(key, spelling) <= 0",
        ("tests/test_edgework.py", "tests/test_hostile_core.py"),
        "a typo of a vanilla port counts as another kind of port",
    ),
    m(
        "core-indicator-twice",
        "baccarat_core/edgework.py",
        "                if label in seen:\n",
        "                if label in seen and False:\n",
        "tests/test_edgework.py",
        "an indicator given twice is taken",
    ),
    m(
        "core-strict-no-nan",
        "baccarat_core/strict.py",
        "parse_constant=_no_constant, ",
        "",
        ("tests/test_hostile_core.py", "tests/test_properties.py"),
        "the strict reader takes NaN and Infinity",
    ),
    m(
        "core-strict-duplicate-keys",
        "baccarat_core/strict.py",
        "        if key in out:\n",
        "        if key in out and False:\n",
        ("tests/test_hostile_core.py", "tests/test_properties.py"),
        "the strict reader takes a key given twice (the last wins)",
    ),
    # -- a sample across firmware -------------------------------------------------------------------
    m(
        "fw-debounce-area",
        "firmware/devices/buttons.py",
        "        if self._clock() - closed_at >= self._debounce:\n",
        "        if self._clock() - closed_at >= 0:\n",
        "tests/test_daemon_inputs.py",
        "contact bounce on a betting area is a press",
    ),
    m(
        "fw-strike-flash-length",
        "firmware/devices/lights.py",
        "        self.red.blink(on_time=self.flash_seconds, off_time=0, n=1, background=True)\n",
        "        self.red.blink(on_time=self.flash_seconds * 3, off_time=0, n=1, background=True)\n",
        "tests/test_daemon_rounds.py",
        "a strike's red flash lasts three times strike_flash_seconds",
    ),
    m(
        "fw-silver-without-pwm",
        "firmware/devices/lights.py",
        "            mix = tuple(1.0 if c > 0 else 0.0 for c in mix)\n",
        "",
        ("tests/test_daemon_rounds.py", "tests/test_hardware.py", "tests/test_recorded_bus.py"),
        "silver on on/off pins is a dim mix they cannot show",
    ),
    m(
        "fw-display-failure-logged-each-frame",
        "firmware/devices/oled.py",
        "        if not self.failing:\n            if is_bus_error(error):\n",
        "        if True:\n            if is_bus_error(error):\n",
        ("tests/test_faults_displays.py", "tests/test_recorded_bus.py"),
        "a display that stopped answering is logged at every frame",
    ),
    m(
        "fw-gpio-hat-eeprom",
        "firmware/config.py",
        "    if value in (0, 1):\n",
        "    if value in (0,):\n",
        ("tests/test_hostile_config.py", "tests/test_faults_config.py", "tests/test_hardware.py"),
        "GPIO1 (the HAT EEPROM bus) may be an input",
    ),
    m(
        "fw-debounce-shorter-than-hold",
        "firmware/config.py",
        "    if timing_cfg.debounce_seconds >= timing_cfg.hold_seconds:\n",
        "    if timing_cfg.debounce_seconds > timing_cfg.hold_seconds:\n",
        ("tests/test_hostile_config.py", "tests/test_faults_config.py"),
        "a debounce as long as the hold is taken",
    ),
    m(
        "fw-config-unknown-key",
        "firmware/config.py",
        '                raise self.error(f"[{self.name}] {key}: unknown key")\n',
        "                pass\n",
        ("tests/test_hostile_config.py", "tests/test_faults_config.py"),
        "a misspelt key is ignored",
    ),
    m(
        "fw-scene-inverted",
        "firmware/daemon.py",
        "bets=self._bets, inverted=self.identifying, shown=self.shown())\n",
        "bets=self._bets, inverted=False, shown=self.shown())\n",
        ("tests/test_daemon_gm.py", "tests/test_control.py", "tests/test_mqtt.py", "tests/test_web_api.py"),
        "identify does not invert the displays",
    ),
    m(
        "fw-set-solved-during-round",
        "firmware/daemon.py",
        "            if self._round is not None:\n                self._round.solved_counts.append(item)\n"
        "                return\n",
        "",
        "tests/test_daemon_rounds.py",
        "a solved count during a deal is applied at once, not before the new deck",
    ),
    m(
        "fw-command-words-twice",
        "firmware/room/commands.py",
        "        if key in data:\n",
        "        if key in data and False:\n",
        ("tests/test_control.py", "tests/test_hostile_control.py", "tests/test_hostile_mqtt.py"),
        "set-solved 3 4 takes the last",
    ),
    m(
        "fw-command-unknown-argument",
        "firmware/room/commands.py",
        '            raise CommandError(f"{name}: unknown argument {show_value(key)}")\n',
        "            pass\n",
        ("tests/test_control.py", "tests/test_hostile_mqtt.py"),
        "a command's misspelt argument is ignored",
    ),
    m(
        "fw-retained-command-runs",
        "firmware/room/mqtt.py",
        "            if retained:\n                log.warning(\n"
        '                    "ignored a retained message on %s: a command runs once',
        "            if False:\n                log.warning(\n"
        '                    "ignored a retained message on %s: a command runs once',
        ("tests/test_mqtt.py", "tests/test_hostile_mqtt.py"),
        "a retained command runs at every start",
    ),
    m(
        "fw-state-other-config",
        "firmware/room/saved_state.py",
        '    if data["config"] != expected:\n',
        "    if False:\n",
        ("tests/test_state.py", "tests/test_hostile_state.py"),
        "a game saved under other edgework or limits is restored",
    ),
    m(
        "fw-control-line-limit",
        "firmware/room/control_socket.py",
        '                if len(line) > MAX_LINE and not line.endswith(b"\\n"):\n',
        "                if False:\n",
        ("tests/test_control.py", "tests/test_hostile_control.py"),
        "an over-long request line is read in pieces",
    ),
    m(
        "fw-room-echo-one-line",
        "firmware/room/room2.py",
        '    text = "".join(c if c.isprintable() else " " for c in text)\n',
        "",
        ("tests/test_mqtt.py", "tests/test_hostile_mqtt.py"),
        "DONE and OMIT echo control characters",
    ),
    m(
        "fw-web-listens-without-password",
        "firmware/web/settings.py",
        "        if not self.loopback_only and not self.password:\n",
        "        if False:\n",
        ("tests/test_web_api.py", "tests/test_web_settings.py", "tests/test_web_attach.py"),
        "the console listens beyond localhost without a password",
    ),
    m(
        "fw-web-throttle",
        "firmware/web/throttle.py",
        "            if times is not None and len(times) >= self.attempts:\n                return False\n",
        "            if times is not None and len(times) > self.attempts:\n                return False\n",
        ("tests/test_web_api.py", "tests/test_web_guessing.py"),
        "one wrong password more than the limit is allowed",
    ),
    m(
        "fw-web-csrf",
        "firmware/web/server.py",
        "        if not origin_ok(request) or not session.csrf_ok(request.headers.get(CSRF_HEADER)):\n",
        "        if not origin_ok(request):\n",
        ("tests/test_web_api.py", "tests/test_web_controllers.py"),
        "a POST without the CSRF token is taken",
    ),
    m(
        "fw-sound-result-after-cards",
        "firmware/sound/cues.py",
        "                at = cards * card_seconds\n                cards += 1\n",
        "                at = 0.0\n                cards += 1\n",
        ("tests/test_sound.py", "tests/test_sound_integration.py"),
        "a cue planned at the start of a batch rather than after its cards",
    ),
    m(
        "fw-cli-one-line",
        "firmware/cli/__init__.py",
        '        self.exit(2, f"{self.prog}: error: {strict.one_line(message, 240)}\\n")\n',
        '        self.exit(2, f"{self.prog}: error: {message}\\n")\n',
        ("tests/test_hostile_cli.py", "tests/test_cli_help.py", "tests/test_hostile_core.py"),
        "an argument thousands of characters long is echoed whole",
    ),
    # -- issue 24 part 3: the bomb's countdown, strike limit and explosion --------------------------
    m(
        "bomb-core-no-speed-up",
        "baccarat_core/timer.py",
        "    return min(1.0 + RATE_STEP * max(strikes, 0), MAX_RATE)\n",
        "    return 1.0\n",
        "tests/test_bomb_timer.py",
        "a strike does not make the countdown run faster",
    ),
    m(
        "bomb-core-counts-while-paused",
        "baccarat_core/timer.py",
        "        if not self.running or self.at is None or now <= self.at:\n",
        "        if self.at is None or now <= self.at:\n",
        "tests/test_bomb_timer.py",
        "a countdown that waits or is paused counts down",
    ),
    m(
        "bomb-core-shown-rounded-down",
        "baccarat_core/timer.py",
        "    return max(0, math.ceil(left - _EPSILON))\n",
        "    return max(0, math.floor(left))\n",
        ("tests/test_bomb_timer.py", "tests/test_daemon_timer.py"),
        "the displays show 00:00 a second before the explosion",
    ),
    m(
        "bomb-module-press-does-not-start",
        "baccarat_core/module.py",
        "        return self._first_input() + [ev.ChipAdded(",
        "        return [ev.ChipAdded(",
        "tests/test_bomb_timer.py",
        "a chip placed first does not start the countdown",
    ),
    m(
        "bomb-module-no-pause",
        "baccarat_core/module.py",
        "            self.timer.resume() if enabled else self.timer.pause()\n",
        "            self.timer.resume()\n",
        ("tests/test_bomb_timer.py", "tests/test_daemon_timer.py"),
        "closing the table does not pause the countdown",
    ),
    m(
        "bomb-module-limit-one-late",
        "baccarat_core/module.py",
        "        if limit is not None and self.strikes >= limit:\n",
        "        if limit is not None and self.strikes > limit:\n",
        "tests/test_bomb_timer.py",
        "the bomb explodes one strike after its limit",
    ),
    m(
        "bomb-module-solve-keeps-counting",
        "baccarat_core/module.py",
        "        self.solved = True\n        self._stop_timer()\n        return [ev.Solved(forced=True)]\n",
        "        self.solved = True\n        return [ev.Solved(forced=True)]\n",
        ("tests/test_bomb_timer.py", "tests/test_daemon_timer.py"),
        "a forced solve leaves the countdown running",
    ),
    m(
        "bomb-module-exploded-takes-input",
        "baccarat_core/module.py",
        '        if self.exploded:\n            return [ev.InputIgnored(what, "exploded")]\n',
        '        if False:\n            return [ev.InputIgnored(what, "exploded")]\n',
        "tests/test_bomb_timer.py",
        "an exploded module takes the players' inputs",
    ),
    m(
        "bomb-module-stack-order-deals-after-explosion",
        "baccarat_core/module.py",
        "            if self.exploded:  # the strike limit",
        "            if False:  # the strike limit",
        "tests/test_bomb_timer.py",
        "a stack-order strike at the limit still deals the round",
    ),
    m(
        "bomb-module-reset-keeps-the-countdown",
        "baccarat_core/module.py",
        "        if self.timer is not None:\n            self.timer.reset()\n",
        "",
        "tests/test_bomb_timer.py",
        "a reset leaves the countdown where it was",
    ),
    m(
        "bomb-module-restore-forgets-the-rate",
        "baccarat_core/module.py",
        "            module.timer.rate = module._rate()\n",
        "",
        "tests/test_bomb_timer.py",
        "a restored countdown runs at the normal rate whatever the strikes",
    ),
    m(
        "bomb-module-add-time-never-explodes",
        "baccarat_core/module.py",
        '        return out + (self.explode("timer") if self.timer.done else [])\n',
        "        return out\n",
        "tests/test_bomb_timer.py",
        "taking all the time away does not explode the bomb",
    ),
    m(
        "bomb-daemon-never-expires",
        "firmware/daemon.py",
        "        if timer.running and timer.done:\n            self._handle(self.module.expire())\n",
        "",
        "tests/test_daemon_timer.py",
        "the countdown reaches 0 and nothing explodes",
    ),
    m(
        "bomb-daemon-ticks-for-nobody",
        "firmware/daemon.py",
        '        return bool(self._timer_watchers) or "casing" in self.screens\n',
        "        return True\n",
        "tests/test_daemon_timer.py",
        "the countdown wakes the game thread every second with nothing showing it",
    ),
    m(
        "bomb-daemon-no-ticks",
        "firmware/daemon.py",
        "            due = tick if due is None or (tick is not None and tick < due) else due\n",
        "            pass\n",
        ("tests/test_daemon_timer.py", "tests/test_bomb_browser.py"),
        "a shown countdown is not redrawn each second",
    ),
    m(
        "bomb-daemon-watchers-not-settled",
        "firmware/daemon.py",
        "            self._timer_shown = timer.shown()\n            self._to_settle = True\n",
        "            self._timer_shown = timer.shown()\n",
        ("tests/test_daemon_timer.py", "tests/test_bomb_browser.py"),
        "an open page does not hear of each new second",
    ),
    m(
        "bomb-lights-flash-not-steady",
        "firmware/devices/lights.py",
        "        self.green.off()\n        self.red.on()\n",
        "        self.green.off()\n"
        "        self.red.blink(on_time=self.flash_seconds, off_time=0, n=1, background=True)\n",
        "tests/test_daemon_timer.py",
        "the status light flashes once at the explosion instead of staying red",
    ),
    m(
        "bomb-scene-no-explosion-view",
        "firmware/scene.py",
        '        if self.exploded is not None and role != "casing":\n',
        "        if False:\n",
        ("tests/test_daemon_timer.py", "tests/test_render.py"),
        "the displays do not show the explosion",
    ),
    m(
        "bomb-state-restart-gives-time-back",
        "firmware/room/saved_state.py",
        "            module.timer.elapse(off)\n",
        "            pass\n",
        ("tests/test_daemon_timer.py", "tests/test_bomb_restart.py"),
        "a restart gives the players back the time the prop was off",
    ),
    m(
        "bomb-state-no-moment",
        "firmware/room/saved_state.py",
        "        if module.timer is not None:  # the countdown's time left holds at this moment\n",
        "        if False:\n",
        ("tests/test_daemon_timer.py", "tests/test_bomb_restart.py"),
        "the saved countdown does not say when it was saved",
    ),
    m(
        "bomb-web-does-not-watch",
        "firmware/web/backend.py",
        '        self.daemon.watch_timer("web", watching)',
        "        pass",
        "tests/test_bomb_browser.py",
        "an open page does not make the prop tick: the countdown on it stands still",
    ),
    m(
        "bomb-commands-stale-document",
        "firmware/room/commands.py",
        '        if self._document is None or self._document.get("timer") != timer_document(module):\n',
        "        if self._document is None:\n",
        ("tests/test_daemon_timer.py", "tests/test_bomb_browser.py"),
        "the state document keeps the seconds left of the last event",
    ),
    m(
        "bomb-commands-add-time-words",
        "firmware/room/commands.py",
        'LONE_ARGUMENT: dict[str, str] = {"set_solved": "solved", "add_time": "seconds"}',
        'LONE_ARGUMENT: dict[str, str] = {"set_solved": "solved"}',
        "tests/test_bomb_config.py",
        "add-time 60 in words is refused",
    ),
    m(
        "bomb-config-speed-up-off",
        "firmware/config.py",
        '    speed_up = section.get("speed_up", bool, True)\n',
        '    speed_up = section.get("speed_up", bool, False)\n',
        "tests/test_bomb_config.py",
        "[bomb] without speed_up keeps the countdown at one speed",
    ),
    m(
        "bomb-config-no-room-request-on-explosion",
        "firmware/config.py",
        "    ev.Exploded.kind,\n)",
        ")",
        ("tests/test_bomb_mqtt.py", "tests/test_bomb_config.py"),
        "[mqtt.room_requests] cannot act on the explosion",
    ),
    m(
        "bomb-render-no-strike-crosses",
        "firmware/render/casing.py",
        "        if k < view.strikes:\n",
        "        if False:\n",
        ("tests/test_daemon_timer.py", "tests/test_render.py"),
        "the casing display's strike boxes stay empty",
    ),
    m(
        "bomb-sound-no-explosion",
        "firmware/sound/cues.py",
        '        if isinstance(event, ev.Exploded):\n            return [(0.0, "explosion")]\n',
        "",
        "tests/test_bomb_config.py",
        "the explosion makes no sound",
    ),
    m(
        "pacing-explosion-shown-at-the-gesture",
        "firmware/daemon.py",
        "            None if any(isinstance(event, ev.Exploded) for event in hidden) else self.module.exploded,\n",
        "            self.module.exploded,\n",
        "tests/test_pacing.py",
        "a strike limit reached by a losing deal shows EXPLODED before the cards",
    ),
    # -- issue 25, part 1: the original's pacing, and nothing of the result before the table shows it --
    m(
        "pacing-events-settled-at-the-gesture",
        "firmware/daemon.py",
        "        self._to_settle = True  # a batch, even an empty one\n",
        "        self._to_settle = True\n        self._unsettled.extend(e for e in events if e.published)\n",
        ("tests/test_pacing.py", "tests/test_one_home.py"),
        "a deal's strike reaches MQTT, Room 2.0 and the console with its first card",
    ),
    m(
        "pacing-strike-counted-at-the-gesture",
        "firmware/daemon.py",
        "            self.module.strikes - sum(isinstance(event, ev.Strike) for event in hidden),\n",
        "            self.module.strikes,\n",
        "tests/test_pacing.py",
        "the strike count of the views and the state document runs ahead of the table",
    ),
    m(
        "pacing-draw-pause",
        "firmware/pacing.py",
        "DRAW_PAUSE = 1.5",
        "DRAW_PAUSE = 1.25",
        ("tests/test_pacing.py", "tests/test_render.py"),
        "the third cards come 0.25 s early",
    ),
    m(
        "pacing-losing-bets-stay",
        "firmware/daemon.py",
        "{area: () if event.results.get(area, 0) < 0 else stack for area, stack in self._stacks.items()}",
        "dict(self._stacks)",
        "tests/test_pacing.py",
        "losing bets stay on the bets display until the clearing",
    ),
    m(
        "pacing-no-click-while-locked",
        "firmware/daemon.py",
        "            if isinstance(item, Arrow):  # the original clicks on every press: at either end, and locked\n",
        "            if isinstance(item, Arrow) and self._round is None:\n",
        "tests/test_pacing.py",
        "an arrow pressed during a deal makes no click",
    ),
    m(
        "pacing-deal-answered-at-the-gesture",
        "firmware/daemon.py",
        "        if started is not None and started is not before and not started.paid:\n",
        "        if False:\n",
        ("tests/test_pacing.py", "tests/test_remote_play.py"),
        "a command that deals is answered with its result before the table shows it",
    ),
    m(
        "pacing-restack-unmarked",
        "firmware/daemon.py",
        "            self._bets = BetsOnTable({**self._stacks, **placed}, tuple(reorder.stacks))\n",
        "            self._bets = BetsOnTable(dict(self._stacks))\n",
        "tests/test_pacing.py",
        "a re-ordered stack is swapped in one frame",
    ),
    m(
        "pacing-flip-sounds-a-deal-again",
        "firmware/sound/cues.py",
        "            if self.face_down:  # it landed face down already: it turns now\n",
        "            if False:\n",
        ("tests/test_pacing.py", "tests/test_sound.py"),
        "a card that landed face down sounds its deal again as it turns",
    ),
    # -- outputs (issue 22 part 1): relays and locks --------------------------------------------------
    m(
        "output-after-the-results-hooks",
        "firmware/daemon.py",
        "        switched = self._switch(tail)  # the lock opens as the result shows, before anything else\n",
        "        switched: list[ev.Event] = []\n",
        "tests/test_outputs.py",
        "the lock opens after the result's hooks (sound, the console's log), not before them",
    ),
    m(
        "output-at-the-gesture",
        "firmware/daemon.py",
        "        self.board.outputs.plan([event.kind for event in events])  # held_outputs() as the hooks save it\n",
        "        self.board.outputs.plan([event.kind for event in events])  # held_outputs() as the hooks save it\n"
        "        early = self._switch(events)\n        if early:\n            self._handle(early)\n",
        "tests/test_outputs.py",
        "outputs switch when a batch is handled (a deal's lock at the gesture, before the result shows)",
    ),
    m(
        "output-cut-off-on-the-game-thread",
        "firmware/devices/outputs.py",
        "        self.device.blink(on_time=max(0.0, ends - now), off_time=0, n=1, background=True)",
        "        self.device.on()",
        "tests/test_outputs.py",
        "max_on_seconds is timed by the game thread alone: a stuck game keeps the solenoid on",
    ),
    m(
        "output-cut-off-from-the-last-ask",
        "firmware/devices/outputs.py",
        "            limit = self._since + self.max_on_seconds",
        "            limit = now + self.max_on_seconds",
        "tests/test_outputs.py",
        "each command restarts the cut-off: an output can be kept on past max_on_seconds",
    ),
    m(
        "output-not-planned-at-the-gesture",
        "firmware/daemon.py",
        "        self.board.outputs.plan([event.kind for event in events])  # held_outputs() as the hooks save it\n",
        "",
        ("tests/test_outputs.py", "tests/test_outputs_restart.py"),
        "a power cut between the winning gesture and its result leaves the lock shut at the next start",
    ),
    m(
        "output-restart-fresh-cut-off",
        "firmware/devices/outputs.py",
        "            stays = output.on(left)\n",
        "            stays = output.on()\n",
        "tests/test_outputs_restart.py",
        "a restart gives a held output a fresh cut-off (a prop restarting over and over keeps a solenoid on)",
    ),
    m(
        "output-on-after-stop",
        "firmware/daemon.py",
        "            self.board.outputs.all_off()  # the held ones stay saved: the next start switches them on again\n",
        "            pass\n",
        ("tests/test_outputs.py", "tests/test_outputs_restart.py"),
        "SIGTERM leaves the outputs on",
    ),
    m(
        "output-pulse-kept-for-a-restart",
        "firmware/devices/outputs.py",
        "        if output.is_on and not output.pulsing:\n            self._held[name] = output.until",
        "        if output.is_on:\n            self._held[name] = output.until",
        ("tests/test_outputs.py", "tests/test_outputs_restart.py"),
        "a pulse is saved as held: a restart repeats it",
    ),
    m(
        "output-not-saved",
        "firmware/room/saved_state.py",
        "        if held:  # a file without outputs reads as before\n",
        "        if False:\n",
        ("tests/test_outputs.py", "tests/test_outputs_restart.py"),
        "the state file keeps no output: a lock that opened shuts at a restart",
    ),
    m(
        "output-unknown-name-runs",
        "firmware/room/commands.py",
        "            self.check_output(command.output)\n",
        "",
        "tests/test_outputs.py",
        "an unknown output's name reaches the game thread (a KeyError, not the clear refusal)",
    ),
    m(
        "output-not-in-the-pin-check",
        "firmware/config.py",
        '    uses += [PinUse(o.pin, f"[outputs] {o.name}", "output") for o in config.outputs]\n',
        "",
        ("tests/test_hardware.py", "tests/test_faults_config.py"),
        "an output's GPIO is left out of the one pin check",
    ),
    m(
        "output-off-on-its-on-event",
        "firmware/config.py",
        '    if off_on == on and on != "none":',
        "    if False:",
        "tests/test_faults_config.py",
        "an output switched on and off by one event is accepted",
    ),
    m(
        "output-web-no-cors",
        "firmware/web/controllers.py",
        "    return path in CONTROLLER_PATHS or path.startswith(CONTROLLER_OUTPUT_PREFIX)",
        "    return path in CONTROLLER_PATHS",
        "tests/test_outputs_network.py",
        "GET /output/... sends no Access-Control-Allow-Origin: a browser's controller cannot read it",
    ),
    m(
        "output-no-home-assistant-entity",
        "firmware/room/home_assistant.py",
        "    components.update(output_components(prop_id, topics, outputs))",
        "",
        "tests/test_outputs_network.py",
        "Home Assistant gets no switch or button for an output",
    ),
    m(
        "output-room-words",
        "firmware/room/commands.py",
        '    positional = POSITIONAL.get(name, (LONE_ARGUMENT.get(name, "solved"),))',
        '    positional = (LONE_ARGUMENT.get(name, "solved"),)',
        "tests/test_outputs_network.py",
        "Room 2.0's `output lock on` is refused (a lone word is a solved count)",
    ),
    m(
        "output-self-test-without-outputs",
        "firmware/app.py",
        "        commands.self_test.outputs = daemon.board.outputs\n",
        "        pass\n",
        "tests/test_outputs.py",
        "the pre-game self-test never gets the prop's outputs: it cannot switch one",
    ),
    m(
        "output-self-test-shuts-the-lock",
        "firmware/devices/outputs.py",
        "        if name in self._held:\n            return  # the game holds it on: the test leaves it so\n",
        "",
        "tests/test_outputs.py",
        "the self-test switches off a lock the game holds open",
    ),
    m(
        "output-self-test-leaves-one-on",
        "firmware/selftest.py",
        "        self._output_off()  # the one before goes off first: never two at once, none left on\n",
        "",
        "tests/test_outputs.py",
        "the self-test leaves an output on when it switches the next",
    ),
    m(
        "output-not-on-explosion",
        "firmware/config.py",
        'OUTPUT_EVENTS: tuple[str, ...] = (*TRIGGER_EVENTS, "none")',
        'OUTPUT_EVENTS: tuple[str, ...] = (*TRIGGER_EVENTS[:4], "none")',
        "tests/test_outputs.py",
        "an output cannot be switched by the bomb's explosion",
    ),
    # -- how each game went (issue 24 part 5): the history ------------------------------------------------
    m(
        "hist-reorder-not-recorded",
        "firmware/history/keeper.py",
        '                game.round["reordered"] = reordered\n',
        "                pass\n",
        "tests/test_history.py::test_reordered_stacks_keep_what_the_players_stacked_and_what_the_dealer_made_of_it",
        "a round's line loses the stacks the dealer re-ordered",
    ),
    m(
        "hist-arrow-no-progress",
        "firmware/history/keeper.py",
        "PROGRESS = (ev.ChipAdded, ev.AreaCleared, ev.DenominationChanged, ev.DealStarted)",
        "PROGRESS = (ev.ChipAdded, ev.AreaCleared, ev.DealStarted)",
        "tests/test_history.py::test_the_stuck_indicator_counts_from_the_last_progress",
        "an arrow is not the players' progress for the stuck indicator",
    ),
    m(
        "hist-write-every-round",
        "firmware/history/keeper.py",
        "            game.waiting += 1\n            self._emit([self._mark(game, line)], write=False)",
        "            game.waiting += 1\n            self._emit([self._mark(game, line)], write=True)",
        "tests/test_history.py::test_lines_are_written_at_the_start_every_fourth_round_and_at_the_end",
        "the history file is written at every round (the SD card's budget)",
    ),
    m(
        "hist-write-before-the-frame",
        "firmware/history/keeper.py",
        "        if write and self._handling:  # written once the frames are out (on_settled)\n",
        "        if False:\n",
        "tests/test_history.py::test_the_writer_is_woken_only_once_the_frames_are_out",
        "the history's writer thread is woken before the batch's frames are sent",
    ),
    m(
        "hist-end-strikes-after-reset",
        "firmware/history/keeper.py",
        '            "strikes": game.strikes,\n',
        '            "strikes": module.strikes,\n',
        "tests/test_history.py::test_the_strikes_of_a_game_ended_by_a_reset_are_its_own",
        "a game ended by a reset records the new game's strikes (0)",
    ),
    m(
        "hist-restart-new-record",
        "firmware/history/keeper.py",
        'if unfinished and unfinished[0]["game"] == module.game:',
        'if unfinished and unfinished[0]["game"] != module.game:',
        "tests/test_history.py::test_a_restart_mid_game_goes_on_with_the_same_record",
        "a restart mid-game starts another record instead of going on with the game's",
    ),
    m(
        "hist-rotate-splits-a-game",
        "firmware/history/store.py",
        '                    self._append("".join(parts))\n'
        "                    parts = []\n                    self._rotate()",
        "                    self._rotate()",
        "tests/test_history.py::test_lines_of_the_last_game_handed_with_the_next_start_stay_in_the_older_file",
        "a rotation puts the last game's end line in the new file, apart from its game",
    ),
    m(
        "hist-no-tail-repair",
        "firmware/history/store.py",
        "                _repair_tail(fd, self.path)\n",
        "                pass\n",
        "tests/test_history.py::test_kill_9_in_the_middle_of_a_write_leaves_no_torn_line_after_the_next",
        "a line a kill cut short stays in the file, torn",
    ),
    m(
        "hist-short-write-dropped",
        "firmware/history/store.py",
        "            while view:\n                written = os.write(fd, view)\n                view = view[written:]",
        "            os.write(fd, view)",
        "tests/test_history.py::test_kill_9_in_the_middle_of_a_write_leaves_no_torn_line_after_the_next",
        "the rest of a short write() is lost",
    ),
    m(
        "hist-schema-unchecked",
        "firmware/history/games.py",
        "    for key, check in (*_COMMON.items(), *required.items(), *optional.items()):\n"
        "        if key in data:\n            check(data[key], key)",
        "    pass",
        "tests/test_history_hostile.py::test_every_hostile_line_is_one_problem_and_the_good_games_stay",
        "a history line's values are trusted unchecked",
    ),
    m(
        "hist-replay-cards-left",
        "firmware/history/replay.py",
        "    left_after = max(0, left - len(cards))\n",
        "    left_after = max(0, left)\n",
        "tests/test_web_history.py::test_a_replayed_round_is_what_the_displays_showed_pixel_for_pixel",
        "a replayed deal shows the deck's count before the cards left it",
    ),
    m(
        "hist-replay-no-face-down",
        "firmware/history/replay.py",
        "            on_table = on_table.land_card()\n",
        "            pass\n",
        "tests/test_history.py::test_a_replayed_deal_on_the_originals_timeline_is_what_the_displays_showed",
        "a replayed deal on the original's timeline shows no card face down",
    ),
    m(
        "hist-web-open",
        "firmware/web/history.py",
        "        session, _ = self.service._session(request)\n        if session is not None:\n            return None",
        "        return None",
        "tests/test_web_history.py::test_the_history_view_is_behind_the_console_login",
        "the History view is open without the console's login",
    ),
    m(
        "hist-cli-silent",
        "firmware/cli/history.py",
        '        print(f"baccarat history: {problem.describe()}{advice}", file=sys.stderr)\n',
        "        pass\n",
        "tests/test_history_hostile.py::test_a_hostile_line_alone_is_named_in_one_line_by_baccarat_history",
        "baccarat history skips a damaged line without saying so",
    ),
]


# -- running --------------------------------------------------------------------------------------


def scratch_copy() -> Path:
    """A copy of the working tree (without .venv, .git and byte code) in a short /tmp path
    (the tests' Unix sockets need one)."""
    base = Path(tempfile.mkdtemp(prefix="bac-mut-", dir="/tmp"))
    tree = base / "t"
    shutil.copytree(ROOT, tree, ignore=IGNORED, symlinks=True)
    return tree


def pytest_run(tree: Path, tests: tuple[str, ...], env: dict[str, str], timeout: float) -> tuple[int, str]:
    """Run pytest on ``tests`` in ``tree``; (exit code, the last lines of its output)."""
    environ = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1", **env}
    command = [
        str(PYTHON),
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "--basetemp",
        str(tree.parent / "tmp"),
    ]
    try:
        done = subprocess.run(
            [*command, *tests], cwd=tree, env=environ, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout:g} s"
    lines = (done.stdout + done.stderr).strip().splitlines()
    failed = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    return done.returncode, " | ".join(failed[:2] + lines[-1:])


@dataclass
class Outcome:
    mutant: Mutant
    verdict: str  # killed, SURVIVED, NOT APPLIED, ERROR
    seconds: float
    detail: str


def try_mutant(mutant: Mutant, tree: Path, tests: tuple[str, ...], timeout: float) -> Outcome:
    """Apply ``mutant`` in ``tree``, run its tests, put the file back."""
    path = tree / mutant.file
    text = path.read_text(encoding="utf-8")
    count = text.count(mutant.original)
    if count != 1:
        return Outcome(mutant, "NOT APPLIED", 0.0, f"the original text occurs {count} times in {mutant.file}")
    started = time.monotonic()
    path.write_text(text.replace(mutant.original, mutant.replacement), encoding="utf-8")
    try:
        code, tail = pytest_run(tree, tests, mutant.env, timeout)
    finally:
        path.write_text(text, encoding="utf-8")
    seconds = time.monotonic() - started
    if code == 0:
        return Outcome(mutant, "SURVIVED", seconds, tail)
    if code == 5:
        return Outcome(mutant, "ERROR", seconds, "no tests ran: " + tail)
    return Outcome(mutant, "killed", seconds, "timed out" if code == -1 else tail)


def score_table(outcomes: list[Outcome]) -> list[str]:
    """The markdown table of killed / applied per package, with the issue's mutants apart."""
    rows: dict[str, Counter[str]] = {}
    for outcome in outcomes:
        for key in (outcome.mutant.package, "issue 26's named behaviours" if outcome.mutant.issue else None):
            if key is not None:
                rows.setdefault(key, Counter())[outcome.verdict] += 1
    lines = ["| package | killed / applied |", "|---|---|"]
    for key in sorted(rows, key=lambda k: (k.startswith("issue"), k)):
        counts = rows[key]
        applied = counts["killed"] + counts["SURVIVED"]
        lines.append(f"| {key} | {counts['killed']} / {applied} |")
    total = Counter(o.verdict for o in outcomes)
    lines.append(f"| all | {total['killed']} / {total['killed'] + total['SURVIVED']} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], help="run the mutants whose id contains this (repeat)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants at a time, each in a scratch copy of its own")
    parser.add_argument("--whole-suite", action="store_true", help="run every test against each mutant")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds for one mutant's tests (then killed)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the run of the tests on the unmutated copy")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args(argv)
    chosen = [mu for mu in MUTANTS if not args.only or any(word in mu.id for word in args.only)]
    if args.list:
        for mu in chosen:
            mark = f"  [issue 26 {mu.issue}]" if mu.issue else ""
            print(f"{mu.id}: {mu.file}: {mu.breaks}{mark}\n    tests: {' '.join(mu.tests)}")
        return 0
    if not chosen:
        print("no mutant matches", file=sys.stderr)
        return 2
    if not PYTHON.exists():
        print(f"{PYTHON} is missing: run bash scripts/test.sh --collect-only -q once", file=sys.stderr)
        return 2

    def tests_of(mu: Mutant) -> tuple[str, ...]:
        return ("tests",) if args.whole_suite else mu.tests

    jobs = max(1, min(args.jobs, len(chosen)))
    trees = [scratch_copy() for _ in range(jobs)]
    started = time.monotonic()
    try:
        if not args.no_baseline:
            wanted = tuple(dict.fromkeys(t for mu in chosen for t in tests_of(mu)))
            env = {k: v for mu in chosen for k, v in mu.env.items()}
            print(f"baseline: {len(wanted)} test arguments on the unmutated copy ...", flush=True)
            code, tail = pytest_run(trees[0], wanted, env, args.timeout * 2)
            if code != 0:
                print(f"the tests fail without any mutant ({tail}); no score", file=sys.stderr)
                return 2
        free = list(trees)
        lock = threading.Lock()
        outcomes: list[Outcome] = []

        def run(mu: Mutant) -> Outcome:
            with lock:
                tree = free.pop()
            try:
                outcome = try_mutant(mu, tree, tests_of(mu), args.timeout)
            finally:
                with lock:
                    free.append(tree)
            print(f"{outcome.verdict:11} {outcome.seconds:6.1f} s  {mu.package:16} {mu.id}", flush=True)
            if outcome.verdict != "killed":
                print(f"            {outcome.detail}", flush=True)
            return outcome

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            outcomes = list(pool.map(run, chosen))
    finally:
        for tree in trees:
            shutil.rmtree(tree.parent, ignore_errors=True)
    minutes = (time.monotonic() - started) / 60
    print()
    print("\n".join(score_table(outcomes)))
    print(f"\n{len(outcomes)} mutants in {minutes:.1f} min ({jobs} at a time)")
    left = [o for o in outcomes if o.verdict != "killed"]
    for outcome in left:
        print(f"{outcome.verdict}: {outcome.mutant.id} ({outcome.mutant.breaks})")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
