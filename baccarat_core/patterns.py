"""Regular expressions compiled when first used, not when their module is imported.

``re.compile`` runs the regular-expression compiler, which is Python code: a few hundred thousand
instructions a pattern, paid at every start by every pattern a module defines at its top, even one
that only a command or one room system ever uses (benchmarks/instructions.py). A :class:`Pattern`
is written where ``re.compile`` was and used the same way; ``re`` compiles it at its first match.

>>> DIGITS = Pattern(r"[0-9]+")
>>> DIGITS.fullmatch("2025") is not None, DIGITS.fullmatch("20x5")
(True, None)
>>> DIGITS.sub("#", "a1b22"), DIGITS.pattern
('a#b#', '[0-9]+')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, AnyStr, Generic

if TYPE_CHECKING:
    import re

__all__ = ["Pattern"]


class Pattern(Generic[AnyStr]):
    """``re.compile(pattern, flags)``, compiled at the first call of one of its methods."""

    __slots__ = ("pattern", "flags", "_compiled")

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        self.flags = flags
        self._compiled: re.Pattern[AnyStr] | None = None

    def compiled(self) -> re.Pattern[AnyStr]:
        """The compiled pattern (compiled now if this is its first use)."""
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def match(self, string: AnyStr, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[AnyStr] | None:
        """As :meth:`re.Pattern.match`."""
        return self.compiled().match(string, pos, endpos)

    def fullmatch(self, string: AnyStr, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[AnyStr] | None:
        """As :meth:`re.Pattern.fullmatch`."""
        return self.compiled().fullmatch(string, pos, endpos)

    def search(self, string: AnyStr, pos: int = 0, endpos: int = 2**63 - 1) -> re.Match[AnyStr] | None:
        """As :meth:`re.Pattern.search`."""
        return self.compiled().search(string, pos, endpos)

    def findall(self, string: AnyStr) -> list[Any]:
        """As :meth:`re.Pattern.findall`."""
        return self.compiled().findall(string)

    def finditer(self, string: AnyStr) -> Iterator[re.Match[AnyStr]]:
        """As :meth:`re.Pattern.finditer`."""
        return self.compiled().finditer(string)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        """As :meth:`re.Pattern.split`."""
        return self.compiled().split(string, maxsplit)

    def sub(self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr, count: int = 0) -> AnyStr:
        """As :meth:`re.Pattern.sub`."""
        return self.compiled().sub(repl, string, count)
