"""A line of ``baccarat doctor``'s report: OK, WARN or FAIL, what was found, and the fix.

The doctor's own checks (:mod:`firmware.doctor`) and each room service's
(:meth:`firmware.plugin.Service.doctor`) give their findings as :class:`Finding` records.

>>> Finding(WARN, "MQTT broker broker.local:1883 does not answer", "start mosquitto").line()
'WARN MQTT broker broker.local:1883 does not answer; fix: start mosquitto'
"""

from __future__ import annotations

from baccarat_core.records import record

OK, WARN, FAIL = "OK", "WARN", "FAIL"


@record
class Finding:
    """One line of the report."""

    status: str  # OK, WARN or FAIL
    text: str
    fix: str = ""

    def line(self) -> str:
        """``OK   I2C is on: /dev/i2c-1``, ``FAIL ...; fix: ...``."""
        return f"{self.status:<4} {self.text}" + (f"; fix: {self.fix}" if self.fix else "")
