"""What leaves the game thread: frames, lights, outputs, and the hooks told of each moment.

:class:`Stage` is the part of :class:`firmware.game.daemon.Daemon` that faces the room and the
services: it tells the ``on_shown`` hooks, the log and the lights of each event as it is shown;
draws a display only when its view changed (or it stopped answering: then it is tried again
every second); switches the outputs an event names, pins first; inverts everything
while the game master identifies the prop; knows who shows the bomb's countdown (a ``casing``
display, or a watcher such as an open web page); and hands what was shown to the ``on_settled``
hooks once the game thread caught up. It runs on the game thread; the daemon tells it what to
show.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from gettext import NullTranslations

from PIL import Image

from baccarat_core import BaccaratModule
from baccarat_core import events as ev
from baccarat_core.timer import Countdown
from firmware.devices.board import PropBoard
from firmware.devices.displays import Screen
from firmware.devices.switching import OutputSwitched
from firmware.game.loop import notify
from firmware.game.scene import Scene, Shown, View, render_view

log = logging.getLogger("baccarat")

#: ``hook(events, module)``: :attr:`Daemon.on_handled <firmware.game.daemon.Daemon.on_handled>` and ``on_settled``.
BatchHook = Callable[[list[ev.Event], BaccaratModule], None]
#: ``hook(event)``: each event at the moment it is shown.
ShownHook = Callable[[ev.Event], None]
#: ``hook(role, image)``: each picture as it went to a display.
FrameHook = Callable[[str, Image.Image], None]


class Stage:
    """Frames, lights, outputs, identify, the countdown's watchers and the hooks (see the module)."""

    def __init__(
        self,
        board: PropBoard,
        screens: Mapping[str, Screen],
        hooks: tuple[Sequence[ShownHook], Sequence[FrameHook], Sequence[BatchHook]],
        *,
        clock: Callable[[], float],
    ) -> None:
        self.board = board
        self.screens = screens
        #: The daemon's ``on_shown``, ``on_frame`` and ``on_settled`` hooks.
        self.on_shown, self.on_frame, self.on_settled = hooks
        self.clock = clock
        self._unsettled: list[ev.Event] = []  # events since the last settled call
        self._to_settle = False  # a batch was handled or a frame sent since the last settled call
        self._drawn: dict[str, object] = {}
        #: The displays' words: ``[display] language``'s catalog (firmware.i18n); English by default.
        self.display_words: NullTranslations = ev.ENGLISH
        #: The event kinds an output switches at (its ``on`` and ``off_on``).
        self._output_kinds = frozenset(k for w in board.outputs.wirings.values() for k in (w.on, w.off_on))
        self._retry_at = float("inf")
        self._identify_until = float("-inf")
        self._timer_watchers: set[str] = set()  # who shows the countdown besides a casing display
        self._timer_shown: int | None = None  # the whole seconds the watchers last got

    # -- the hooks ----------------------------------------------------------------------------------
    def changed(self) -> None:
        """Something the services see changed (a batch was handled): the next :meth:`settle` calls
        the ``on_settled`` hooks, even with no event."""
        self._to_settle = True

    def reveal(self, event: ev.Event) -> None:
        """``event`` is shown now: the ``on_shown`` hooks, the log and the lights hear of it."""
        if event.published:
            self._unsettled.append(event)  # on_settled carries the events as they are shown
            self._to_settle = True
        notify(self.on_shown, event)
        if event.published:
            log.info("%s", event.describe())
        elif log.isEnabledFor(logging.DEBUG):  # a card face down, a click: words only when asked for
            log.debug("%s", event.describe())
        self.light(event)

    def settle(self, module: BaccaratModule) -> None:
        """The game thread caught up: the ``on_settled`` hooks get the events shown since the last
        call (if anything changed)."""
        if not self._to_settle:
            return
        events, self._unsettled, self._to_settle = self._unsettled, [], False
        notify(self.on_settled, events, module)

    # -- frames -------------------------------------------------------------------------------------
    def draw(self, views: Callable[[str], View], inverted: bool) -> bool:
        """Render the roles whose view changed (and every failing display) and send them; True if a
        frame went out. ``views(role)``: the view ``role`` shows now."""
        sent = False
        for role, screen in self.screens.items():
            view = views(role)
            if (view, inverted) == self._drawn.get(role) and not screen.failing:
                continue
            image = render_view(
                role, view, screen.size, screen.mode, inverted=inverted, colour=screen.colour, t=self.display_words
            )
            self._drawn[role] = (view, inverted)
            if screen.show(image):
                sent = self._to_settle = True
                notify(self.on_frame, role, image)
        self._retry_at = float("inf")  # still failing: the next wait schedules another try
        return sent

    def picture(self, role: str, scene: Scene) -> Image.Image:
        """The picture of ``role``'s view in ``scene``, at its display's size and mode."""
        screen = self.screens[role]
        return render_view(
            role,
            scene.view(role),
            screen.size,
            screen.mode,
            inverted=scene.inverted,
            colour=screen.colour,
            t=self.display_words,
        )

    def send_frame(self, role: str, image: Image.Image) -> bool:
        """A mode's picture to ``role``'s display (and the ``on_frame`` hooks); False if the display
        did not take it (not answering, or the picture it shows already)."""
        screen = self.screens[role]
        if not screen.show(image):
            return False
        self._drawn.pop(role, None)  # the game's view is drawn again afterwards
        self._to_settle = True
        notify(self.on_frame, role, image)
        return True

    def redraw_all(self) -> None:
        """Draw every display afresh next time (a mode drew its own pictures on them)."""
        self._drawn.clear()

    def next_due(self, due: float, retry_seconds: float) -> float:
        """``due``, or sooner: identify's end, the next try of a display that stopped answering (every
        ``retry_seconds``)."""
        if self._identify_until != float("-inf"):
            due = min(due, self._identify_until)
        if any(screen.failing for screen in self.screens.values()):
            if self._retry_at == float("inf"):
                self._retry_at = self.clock() + retry_seconds
            due = min(due, self._retry_at)
        else:
            self._retry_at = float("inf")
        return due

    # -- outputs ----------------------------------------------------------------------------------------
    def names_outputs(self, events: list[ev.Event]) -> bool:
        """True when an event of ``events`` is one an output switches on or off at."""
        return any(event.kind in self._output_kinds for event in events)

    def switch(self, events: list[ev.Event]) -> list[ev.Event]:
        """Switch the outputs ``events`` name (pins only: no hook has run yet); what they did. An event
        no output names switches nothing, unless a pulse or a cut-off may have run out meanwhile
        (recorded first, as :meth:`Outputs.follow <firmware.devices.outputs.Outputs.follow>` does)."""
        outputs = self.board.outputs
        switched: list[ev.Event] = []
        expiring = outputs.next_due() is not None
        for event in events:
            if not isinstance(event, OutputSwitched) and (expiring or event.kind in self._output_kinds):
                switched += outputs.follow(event.kind)
                expiring = outputs.next_due() is not None
        return switched

    def expired(self) -> list[ev.Event]:
        """Pulses and cut-offs that ran out (gpiozero's threads switched the pins), as events."""
        if self.board.outputs.next_due() is not None:
            return [*self.board.outputs.expire()]
        return []

    # -- lights ---------------------------------------------------------------------------------------
    def light(self, event: ev.Event) -> None:
        """The lights at the moment ``event`` is shown."""
        if isinstance(event, ev.DeckAppeared):
            self.board.deck_light.show(event.color)
        elif isinstance(event, ev.Strike):
            self.board.status.strike()
        elif isinstance(event, ev.Solved):
            self.board.status.solved()
        elif isinstance(event, ev.Exploded):
            self.board.status.exploded()
        elif isinstance(event, ev.ModuleReset):
            self.board.status.armed()

    def show_lights(self, deck: str | None, seen: Shown) -> None:
        """The lights as the game stands: the deck's colour (None: no deck), the status light as
        the players see the game (``seen``)."""
        if deck is not None:
            self.board.deck_light.show(deck)
        if seen.solved:
            self.board.status.solved()
        elif seen.exploded:
            self.board.status.exploded()
        else:
            self.board.status.armed()

    def off(self) -> None:
        """Lights off, displays blank (the prop stops); never raises."""
        try:
            self.board.lights_off()
        except Exception:
            log.exception("lights did not turn off")
        for screen in self.screens.values():
            screen.off()

    # -- identify -----------------------------------------------------------------------------------
    def identify(self, seconds: float) -> dict[str, float]:
        """Blink both lights and invert every display for ``seconds``."""
        self._identify_until = self.clock() + seconds
        self.board.status.blink_both()
        self.board.deck_light.blink_white()
        log.info("identify: lights blinking and displays inverted for %g s", seconds)
        return {"identify_seconds": seconds}

    @property
    def identifying(self) -> bool:
        """True while :meth:`identify`'s lights blink and the displays are inverted."""
        return self.clock() < self._identify_until

    def identified(self) -> bool:
        """True once, when identify has just ended (the lights then go back to the game's)."""
        if self._identify_until != float("-inf") and not self.identifying:
            self._identify_until = float("-inf")
            return True
        return False

    # -- who shows the countdown ------------------------------------------------------------------------
    def watch_timer(self, name: str, watching: bool) -> None:
        """``name`` shows the countdown (True) or stopped showing it."""
        if watching:
            self._timer_watchers.add(name)
        else:
            self._timer_watchers.discard(name)

    def _timer_shown_somewhere(self) -> bool:
        return bool(self._timer_watchers) or "casing" in self.screens

    def timer_due(self, timer: Countdown) -> float | None:
        """When the countdown needs the loop next: its expiry, and the next change of the whole
        seconds shown while something shows them; None while it does not run."""
        if not timer.running:
            return None
        due = timer.expires_at()
        if self._timer_shown_somewhere():
            tick = timer.next_second_at()
            due = tick if due is None or (tick is not None and tick < due) else due
        return due

    def timer_moved(self, timer: Countdown) -> None:
        """Whoever shows the countdown sees it again when its whole seconds changed (a settled moment)."""
        if self._timer_shown_somewhere() and timer.shown() != self._timer_shown:
            self._timer_shown = timer.shown()
            self._to_settle = True
