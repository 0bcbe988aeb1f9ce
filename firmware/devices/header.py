"""The Raspberry Pi 40-pin header: which physical pin carries which BCM GPIO.

The same on every 40-pin board (Zero 2 W, 3, 4, 5). Used by ``check-config``
and by ``hardware/`` so that the wiring printed and the wiring drawn agree.
"""

from __future__ import annotations

#: BCM GPIO number -> physical header pin.
BCM_TO_PHYSICAL: dict[int, int] = {
    2: 3,
    3: 5,
    4: 7,
    14: 8,
    15: 10,
    17: 11,
    18: 12,
    27: 13,
    22: 15,
    23: 16,
    24: 18,
    10: 19,
    9: 21,
    25: 22,
    11: 23,
    8: 24,
    7: 26,
    0: 27,
    1: 28,
    5: 29,
    6: 31,
    12: 32,
    13: 33,
    19: 35,
    16: 36,
    26: 37,
    20: 38,
    21: 40,
}

#: Physical pins that are not GPIOs.
POWER_PINS: dict[int, str] = {
    1: "3V3",
    17: "3V3",
    2: "5V",
    4: "5V",
    6: "GND",
    9: "GND",
    14: "GND",
    20: "GND",
    25: "GND",
    30: "GND",
    34: "GND",
    39: "GND",
}

#: GPIOs that the kernel drivers own when I2C bus 1 and SPI bus 0 or 1 are enabled.
I2C1_PINS: dict[str, int] = {"SDA": 2, "SCL": 3}
#: The lines an I2S sound card takes once ``dtparam=i2s=on`` (the PCM block; DIN is unused
#: by an amplifier, but the kernel claims it too).
I2S_PINS: dict[str, int] = {"BCLK": 18, "LRCLK": 19, "DIN": 20, "DOUT": 21}
SPI0_PINS: dict[str, int] = {"MOSI": 10, "MISO": 9, "SCLK": 11, "CE0": 8, "CE1": 7}
SPI1_PINS: dict[str, int] = {"MOSI": 20, "MISO": 19, "SCLK": 21, "CE0": 18, "CE1": 17, "CE2": 16}
SPI_BUS_PINS: dict[int, dict[str, int]] = {0: SPI0_PINS, 1: SPI1_PINS}
#: GPIOs 0 and 1 carry the HAT EEPROM bus (ID_SD, ID_SC); leave them alone.
RESERVED_PINS: dict[str, int] = {"ID_SD": 0, "ID_SC": 1}
