"""Chip denominations and chip stacks."""

from __future__ import annotations

from collections.abc import Sequence

#: Chip values in dollars, smallest first.
DENOMINATIONS: tuple[int, ...] = (1, 5, 25, 100, 500, 1000, 5000, 25000, 100000)


def is_ordered(stack: Sequence[int]) -> bool:
    """True when no chip sits on top of a smaller one (largest at the bottom)."""
    return all(below >= above for below, above in zip(stack, stack[1:], strict=False))


def reorder(stack: Sequence[int]) -> tuple[int, ...]:
    """The dealer's re-order: largest chip at the bottom."""
    return tuple(sorted(stack, reverse=True))


def chip_label(value: int) -> str:
    """Short label for a chip face: 1, 5, 25, 100, 500, 1K, 5K, 25K, 100K."""
    return f"{value // 1000}K" if value >= 1000 else str(value)
