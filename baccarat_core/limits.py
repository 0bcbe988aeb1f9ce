"""Table limits: the placard's minimum and maximum bet."""

from __future__ import annotations

import random

from .errors import LimitsError
from .numbers import format_cents, format_dollars
from .records import record

MINIMUMS: tuple[int, ...] = (5, 10, 25, 50, 100)

#: Possible maxima per minimum, one tuple per ratio row of the manual
#: (<=50, <=100, <=200, <=500, >500), from module-facts.md.
MAXIMA: dict[int, tuple[tuple[int, ...], ...]] = {
    5: ((200,), (300, 500), (1000,), (1500, 2000, 2500), (3000, 5000)),
    10: ((300, 500), (1000,), (1500, 2000), (2500, 3000, 5000), (10000,)),
    25: ((1000,), (1500, 2000, 2500), (3000, 5000), (10000,), (15000, 20000, 25000)),
    50: ((1000, 2000), (3000, 5000), (10000,), (15000, 20000, 25000), (30000, 50000)),
    100: ((3000, 5000), (10000,), (15000, 20000), (25000, 30000, 50000), (100000, 150000)),
}

#: Upper bounds of the manual's ratio rows; the last row has none.
RATIO_BOUNDS: tuple[int, ...] = (50, 100, 200, 500)


@record
class TableLimits:
    """The posted limits. Side bets use one tenth of them."""

    minimum: int
    maximum: int

    def __post_init__(self) -> None:
        for name, value in (("minimum", self.minimum), ("maximum", self.maximum)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise LimitsError(f"{name} {value!r} is not a whole number of dollars")
        if self.minimum not in MINIMUMS:
            allowed = ", ".join(format_dollars(m) for m in MINIMUMS)
            raise LimitsError(f"minimum {format_dollars(self.minimum)} is not one of the manual's ({allowed})")
        if self.maximum <= self.minimum:
            raise LimitsError(
                f"maximum {format_dollars(self.maximum)} is not above the minimum {format_dollars(self.minimum)}"
            )

    @property
    def ratio_row(self) -> int:
        """Row (0-4) of the manual's maximum/minimum table."""
        for row, bound in enumerate(RATIO_BOUNDS):
            if self.maximum <= bound * self.minimum:
                return row
        return len(RATIO_BOUNDS)

    def allows(self, bet: int) -> bool:
        """A Player or Banker bet within [min, max]."""
        return self.minimum <= bet <= self.maximum

    def allows_side(self, bet: int) -> bool:
        """A side bet within [min/10, max/10]."""
        return self.minimum <= 10 * bet <= self.maximum

    def placard(self) -> str:
        """The placard's third line: ``$5 - $200``."""
        return f"{format_dollars(self.minimum)} - {format_dollars(self.maximum)}"

    def side_placard(self) -> str:
        """The side bets' limits, a tenth of the placard's: ``$0.50 - $20.00``."""
        return f"{format_cents(10 * self.minimum)} - {format_cents(10 * self.maximum)}"

    def to_dict(self) -> dict[str, int]:
        """The JSON form: ``{"min": 5, "max": 200}``."""
        return {"min": self.minimum, "max": self.maximum}


def random_limits(rng: random.Random) -> TableLimits:
    """Minimum uniformly, then the ratio row uniformly, then a maximum in that cell."""
    minimum = rng.choice(MINIMUMS)
    row = rng.choice(MAXIMA[minimum])
    return TableLimits(minimum, rng.choice(row))
