"""Recording fakes of the Linux layer under luma: the I2C character devices
(``/dev/i2c-N``, reached through smbus2's ``os.open`` and ``fcntl.ioctl``), the
``spidev`` module (``/dev/spidevB.D``) and the ``RPi.GPIO`` module luma drives
an SPI display's DC and RST lines with.

Everything above them is the libraries' own code: luma.oled's device classes,
luma.core's ``i2c`` and ``spi`` interfaces and smbus2's ``SMBus`` run unmodified.
The fakes fail the way the kernel does:

- an I2C write to an address that nobody acknowledges raises
  ``OSError(EREMOTEIO)`` (121, what the Raspberry Pi's i2c-bcm2835 returns for a
  NACK; other adapters return EIO or ENXIO), a glitch raises EIO (5), a stuck
  bus ETIMEDOUT; a write that never returns (:meth:`I2cTarget.hang`) holds the
  writing thread inside it, as a hung driver would;
- opening a bus that does not exist raises ``FileNotFoundError(ENOENT)`` with
  the node's name, one the user may not open ``PermissionError(EACCES)``;
- ``spidev`` raises what its C code raises (``PyErr_SetFromErrno``: ENOENT and
  EACCES without a file name; a controller error from ``write()``);
- SPI has no acknowledge: a display whose wire is loose takes every byte
  without complaint. Only a missing ``/dev`` node or an error of the
  controller itself is visible to software.

Bytes are counted as they cross the wire (:attr:`Write.wire_bytes`): on I2C the
address byte, luma's control byte (0x00 commands, 0x40 data) and the payload;
a write nobody acknowledged costs its address byte only. On SPI the payload;
the DC line is a GPIO, not a byte. A 128x64 SSD1306 frame over I2C is
8 bytes of window commands and 1,026 bytes of data: 1,034 bytes, 23.3 ms at
400 kHz (9 clocks a byte).

The display models at the end (:class:`PageRam`, :class:`WindowRam`) replay
what a controller received into its RAM, so a test can compare the panel's
pixels with the picture that was meant.

The records are bounded (:class:`Tail`): each keeps its last :data:`KEEP` entries
and counts the ones it dropped, so a long run (the benchmarks', a simulator's) stays
flat in memory and a leak of the prop's own shows. Positions (:meth:`Recorder.mark`)
and byte counts cover every write ever made; a replay or a position that needs a
dropped write says so instead of answering from part of the record. gpiozero's mock
pins keep every change in ``MockPin.states``: :class:`BoundedPWMPin` is its PWM mock pin
with the same bound (the suite's pins use it).
"""

from __future__ import annotations

import errno
import importlib.abc
import importlib.machinery
import os
import sys
import threading
import types
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from gpiozero.pins.mock import MockPWMPin
from PIL import Image

from baccarat_core.records import record

# ioctl requests of uapi/linux/i2c-dev.h
I2C_SLAVE = 0x0703
I2C_SLAVE_FORCE = 0x0706
I2C_FUNCS = 0x0705
I2C_RDWR = 0x0707
I2C_SMBUS = 0x0720
I2C_PEC = 0x0708
I2C_SMBUS_WRITE = 0
I2C_SMBUS_QUICK = 0
I2C_SMBUS_BYTE = 1
I2C_SMBUS_BYTE_DATA = 2
I2C_SMBUS_I2C_BLOCK_DATA = 8
I2C_M_RD = 0x0001
#: What i2c-bcm2835 reports: plain I2C plus the emulated SMBus transfers.
I2C_FUNC_BCM2835 = 0x00000001 | 0x0EFF0008 & ~0x00000008

FIRST_FD = -1000  # negative: never a real descriptor, even in an atexit hook after the fakes are gone


def os_error(code: int, filename: str | None = None) -> OSError:
    """The exception the kernel's ``-code`` becomes in Python (a subclass where Python has one)."""
    if filename is None:
        return OSError(code, os.strerror(code))
    return OSError(code, os.strerror(code), filename)


def i2c_seconds(wire_bytes: int, hz: int = 400_000) -> float:
    """Time ``wire_bytes`` take on an I2C bus at ``hz``: 9 clocks a byte (8 bits and the ACK)."""
    return wire_bytes * 9 / hz


@record
class Write:
    """One transfer as it left the controller."""

    bus: str  # "i2c" or "spi"
    payload: bytes
    command: bool  # I2C: control byte 0x00; SPI: DC low
    delivered: bool  # False: nobody acknowledged it (I2C), or the wire was loose (SPI)
    error: int | None = None  # the errno the write raised, if it did

    @property
    def wire_bytes(self) -> int:
        """Bytes on the wire: I2C address + control + payload (a NACK: the address only); SPI: payload."""
        if self.bus == "spi":
            return len(self.payload)
        if self.error is not None:
            return 1
        return 2 + len(self.payload)


#: How many entries a fake's record keeps (writes of one display, changes of one pin, ...): more
#: than any test reads back, and few enough that a long run's memory stays flat.
KEEP = 2048


class Tail(list):
    """A fake's record of what happened, bounded: past ``keep`` entries the oldest half is dropped
    (counted in :attr:`dropped`), so its memory stays flat however long a run is. A list of the
    entries kept; a test that reads back more than ``keep`` entries must raise ``keep``.

    >>> tail = Tail(keep=4)
    >>> for n in range(7):
    ...     tail.append(n)
    >>> tail, tail.dropped
    ([3, 4, 5, 6], 3)
    """

    def __init__(self, entries: Iterable[Any] = (), *, keep: int | None = None) -> None:
        super().__init__(entries)
        self.keep = KEEP if keep is None else keep
        #: How many entries were dropped from the front (the position of the first one kept).
        self.dropped = 0

    def append(self, entry: Any) -> None:
        super().append(entry)
        if len(self) > self.keep:
            self._drop(len(self) - self.keep // 2)

    def _drop(self, count: int) -> None:
        del self[:count]
        self.dropped += count


class WriteLog(Tail):
    """A :class:`Tail` of writes that also counts the bytes of the ones it dropped."""

    def __init__(self, entries: Iterable[Write] = (), *, keep: int | None = None) -> None:
        super().__init__(entries, keep=keep)
        #: The wire bytes of the dropped writes.
        self.dropped_bytes = 0

    def _drop(self, count: int) -> None:
        self.dropped_bytes += sum(w.wire_bytes for w in self[:count])
        super()._drop(count)


def _complete(writes: Iterable[Write]) -> Iterable[Write]:
    """``writes`` if it is a whole record (a replay starts at the display's reset), else ValueError."""
    dropped = getattr(writes, "dropped", 0)
    if dropped:
        raise ValueError(
            f"the first {dropped} writes of this record were dropped (it keeps {getattr(writes, 'keep', '?')}): "
            "a replay needs them all; keep more (fakeos.KEEP) or compare what came since a mark"
        )
    return writes


class Recorder:
    """The far end of a bus: the writes that were put on the wire for it (the last :data:`KEEP`),
    and a byte counter of them all."""

    def __init__(self) -> None:
        self.writes: list[Write] = WriteLog()

    @property
    def wire_bytes(self) -> int:
        """All bytes put on the wire for this display so far."""
        return getattr(self.writes, "dropped_bytes", 0) + sum(w.wire_bytes for w in self.writes)

    def mark(self) -> int:
        """A position in the record, for :meth:`since` (counting every write, the dropped ones too)."""
        return getattr(self.writes, "dropped", 0) + len(self.writes)

    def since(self, mark: int) -> list[Write]:
        """The writes after ``mark`` (ValueError if some of them were dropped)."""
        dropped = getattr(self.writes, "dropped", 0)
        if mark < dropped:
            raise ValueError(f"the writes from {mark} on are asked for, but the first {dropped} were dropped")
        return self.writes[mark - dropped :]

    def bytes_since(self, mark: int) -> int:
        """Bytes on the wire after ``mark``."""
        return sum(w.wire_bytes for w in self.since(mark))

    def delivered(self) -> Iterator[Write]:
        """The writes the display received."""
        return (w for w in self.writes if w.delivered)


# -- I2C: /dev/i2c-N as smbus2 sees it ---------------------------------------------------------


class I2cTarget(Recorder):
    """A chip at one address: it acknowledges, or (unplugged) does not, or fails a few times."""

    def __init__(self, address: int) -> None:
        super().__init__()
        self.address = address
        self.connected = True
        self.nack_errno = errno.EREMOTEIO
        self._failures: list[int | None] = []
        self.probes = 0  # SMBus quick writes: the address alone, nothing the display would show
        self._hanging = False
        #: Set once a write is stuck in :meth:`hang`'s mode (the writer's thread is inside it).
        self.hung = threading.Event()
        self._released = threading.Event()

    def hang(self) -> None:
        """From now on a write never returns: the thread that makes it stays inside the
        ``ioctl`` (a driver that never completes, a bus held low), until :meth:`release`."""
        self._released.clear()
        self.hung.clear()
        self._hanging = True

    def release(self) -> None:
        """End the hang: the stuck write fails with ETIMEDOUT, as the kernel's transfer timeout
        would; later writes are answered again (a test's clean-up)."""
        self._hanging = False
        self._released.set()

    def unplug(self, code: int = errno.EREMOTEIO) -> None:
        """A loose wire: every write NACKs (``code``: EREMOTEIO on a Pi, EIO or ENXIO elsewhere)."""
        self.connected = False
        self.nack_errno = code

    def plug(self) -> None:
        """The wire is pushed back."""
        self.connected = True

    def fail_next(self, count: int, code: int = errno.EIO, *, after: int = 0) -> None:
        """After ``after`` good writes, the next ``count`` fail with ``code`` (a glitch), then it answers again."""
        self._failures = [None] * after + [code] * count

    def _transfer(self, control: int, payload: bytes) -> None:
        if self._hanging:
            self.hung.set()
            self._released.wait()
            self.writes.append(Write("i2c", payload, control == 0x00, False, errno.ETIMEDOUT))
            raise os_error(errno.ETIMEDOUT)
        code = None if self.connected else self.nack_errno
        if code is None and self._failures:
            code = self._failures.pop(0)
        self.writes.append(Write("i2c", payload, control == 0x00, code is None, code))
        if code is not None:
            raise os_error(code)


class I2cBus:
    """One adapter, ``/dev/i2c-<port>``: the chips on it by address."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.targets: dict[int, I2cTarget] = {}
        self.claimed: set[int] = set()  # addresses a kernel driver owns (I2C_SLAVE: EBUSY)
        self.nack_errno = errno.EREMOTEIO
        self.stray: list[Write] = WriteLog()  # writes to addresses where no chip is fitted

    def attach(self, address: int = 0x3C) -> I2cTarget:
        """Fit a chip at ``address``."""
        return self.targets.setdefault(address, I2cTarget(address))

    def probe(self, address: int) -> None:
        """An SMBus quick write (``i2cdetect``'s probe): the address byte and a stop, no data."""
        target = self.targets.get(address)
        if target is None:
            raise os_error(self.nack_errno)
        if not target.connected:
            raise os_error(target.nack_errno)
        target.probes += 1

    def transfer(self, address: int, data: bytes) -> None:
        """One write message on the wire: address, then ``data`` (control byte first)."""
        target = self.targets.get(address)
        control, payload = (data[0], bytes(data[1:])) if data else (None, b"")
        if target is None:
            self.stray.append(Write("i2c", payload, control == 0x00, False, self.nack_errno))
            raise os_error(self.nack_errno)
        target._transfer(control if control is not None else -1, payload)


@record(frozen=False)
class _OpenFile:
    path: str
    bus: I2cBus
    address: int | None = None


class FakeLinux:
    """The kernel under the libraries: device nodes, permissions and transfers.

    Install it with :func:`installed` (or the ``fake_linux`` fixture); create
    what the machine has with :meth:`i2c_bus` and :meth:`spi_device`.
    """

    def __init__(self) -> None:
        self.i2c_buses: dict[int, I2cBus] = {}
        self.spi_devices: dict[tuple[int, int], SpiDevice] = {}
        self.denied: set[str] = set()  # nodes this user may not open (not in the i2c/spi group)
        self.gpio = FakeGpio()
        self._files: dict[int, _OpenFile] = {}
        self._next_fd = FIRST_FD

    # -- the machine ---------------------------------------------------------------------------
    def i2c_bus(self, port: int = 1) -> I2cBus:
        """``/dev/i2c-<port>`` exists (the bus is enabled)."""
        return self.i2c_buses.setdefault(port, I2cBus(port))

    def i2c_display(self, port: int = 1, address: int = 0x3C) -> I2cTarget:
        """A display fitted at ``address`` on bus ``port``."""
        return self.i2c_bus(port).attach(address)

    def spi_device(self, bus: int = 0, device: int = 0, *, dc: int | None = 24) -> SpiDevice:
        """``/dev/spidev<bus>.<device>`` exists; the display on it reads its DC line from GPIO ``dc``."""
        return self.spi_devices.setdefault((bus, device), SpiDevice(self, bus, device, dc))

    def deny(self, path: str) -> None:
        """The user may not open ``path`` (EACCES): not in the ``i2c`` or ``spi`` group."""
        self.denied.add(path)

    @property
    def open_files(self) -> list[str]:
        """Device nodes open now (a leak shows here)."""
        return [f.path for f in self._files.values()]

    # -- system calls smbus2 makes -------------------------------------------------------------
    def sys_open(self, path: str | int, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        """``open(2)`` of an I2C character device."""
        path = os.fspath(path) if not isinstance(path, int) else path
        if not isinstance(path, str) or not path.startswith("/dev/i2c-"):
            raise AssertionError(f"the fake kernel only has I2C nodes here, not {path!r}")
        try:
            port = int(path[len("/dev/i2c-") :])
        except ValueError:
            raise os_error(errno.ENOENT, path) from None
        if port not in self.i2c_buses:
            raise os_error(errno.ENOENT, path)
        if path in self.denied:
            raise os_error(errno.EACCES, path)
        fd = self._next_fd
        self._next_fd -= 1
        self._files[fd] = _OpenFile(path, self.i2c_buses[port])
        return fd

    def sys_close(self, fd: int) -> None:
        """``close(2)``."""
        if fd not in self._files:
            raise os_error(errno.EBADF)
        del self._files[fd]

    def ioctl(self, fd: object, request: int, arg: object = 0, mutate_flag: bool = True) -> int:
        """``ioctl(2)`` on an I2C character device, as i2c-dev.c answers it."""
        if not isinstance(fd, int) and not hasattr(fd, "fileno"):
            raise TypeError("argument must be an int, or have a fileno() method.")  # what fcntl.ioctl says
        f = self._files.get(fd)
        if f is None:
            raise os_error(errno.EBADF)
        if request == I2C_FUNCS:
            arg.value = I2C_FUNC_BCM2835
            return 0
        if request in (I2C_SLAVE, I2C_SLAVE_FORCE):
            address = int(arg)
            if address > 0x7F:
                raise os_error(errno.EINVAL)
            if request == I2C_SLAVE and address in f.bus.claimed:
                raise os_error(errno.EBUSY)
            f.address = address
            return 0
        if request == I2C_SMBUS:
            return self._smbus(f, arg)
        if request == I2C_RDWR:
            nmsgs = arg.nmsgs
            if nmsgs > 42:
                raise os_error(errno.EINVAL)
            for i in range(nmsgs):
                msg = arg.msgs[i]
                if msg.flags & I2C_M_RD:
                    raise NotImplementedError("the fake kernel does not model I2C reads")
                if msg.len > 8192:
                    raise os_error(errno.EINVAL)
                f.bus.transfer(msg.addr, bytes(msg))
            return nmsgs
        if request == I2C_PEC:
            return 0
        raise os_error(errno.ENOTTY)

    def _smbus(self, f: _OpenFile, msg: object) -> int:
        if msg.read_write != I2C_SMBUS_WRITE:
            raise NotImplementedError("the fake kernel does not model SMBus reads")
        if f.address is None:
            raise os_error(errno.EINVAL)  # no I2C_SLAVE yet: the kernel has no address to use
        size = msg.size
        command = msg.command
        if size == I2C_SMBUS_QUICK:
            f.bus.probe(f.address)
            return 0
        if size == I2C_SMBUS_I2C_BLOCK_DATA:
            block = msg.data.contents.block
            length = block[0]
            if not 1 <= length <= 32:
                raise os_error(errno.EINVAL)
            data = bytes([command, *block[1 : length + 1]])
        elif size == I2C_SMBUS_BYTE_DATA:
            data = bytes([command, msg.data.contents.byte])
        elif size == I2C_SMBUS_BYTE:
            data = bytes([command])
        else:
            raise NotImplementedError(f"the fake kernel does not model SMBus transfer size {size}")
        f.bus.transfer(f.address, data)
        return 0


class _OsShim(types.ModuleType):
    """The ``os`` that smbus2 sees: ``open``/``close`` reach the fake kernel, the rest is the real ``os``."""

    def __init__(self, kernel: FakeLinux) -> None:
        super().__init__("os")
        self.open = kernel.sys_open
        self.close = kernel.sys_close

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)


# -- SPI: the spidev module ---------------------------------------------------------------------


class SpiDevice(Recorder):
    """``/dev/spidev<bus>.<device>`` and the display wired to it (its DC line on a GPIO)."""

    def __init__(self, kernel: FakeLinux, bus: int, device: int, dc: int | None) -> None:
        super().__init__()
        self.kernel = kernel
        self.path = f"/dev/spidev{bus}.{device}"
        self.dc = dc
        self.connected = True
        self.speeds: list[int] = Tail()
        self._failures: list[int | None] = []

    def unplug(self) -> None:
        """A loose wire: SPI has no acknowledge, so writes still succeed; the display gets nothing."""
        self.connected = False

    def plug(self) -> None:
        """The wire is pushed back."""
        self.connected = True

    def fail_next(self, count: int, code: int = errno.ETIMEDOUT, *, after: int = 0) -> None:
        """After ``after`` good transfers the controller fails ``count`` (the SPI core's timeout: ETIMEDOUT)."""
        self._failures = [None] * after + [code] * count

    def _write(self, data: bytes) -> None:
        level = self.kernel.gpio.levels.get(self.dc, 0) if self.dc is not None else 1
        code = self._failures.pop(0) if self._failures else None
        self.writes.append(Write("spi", data, level == 0, self.connected and code is None, code))
        if code is not None:
            raise os_error(code)


SPIDEV_MAXPATH = 4096


def _spidev_module(kernel: FakeLinux) -> types.ModuleType:
    """A ``spidev`` module whose ``SpiDev`` behaves as py-spidev's C code does on this fake kernel."""

    class SpiDev:
        """py-spidev's ``SpiDev`` over the fake kernel."""

        def __init__(self, bus: int = -1, client: int = -1) -> None:
            self._device: SpiDevice | None = None
            self._mode = 0
            self._max_speed_hz = 0
            self.bits_per_word = 0
            self.no_cs = False
            if bus >= 0:
                self.open(bus, client)

        def open(self, bus: int, device: int) -> None:
            path = f"/dev/spidev{bus}.{device}"
            found = kernel.spi_devices.get((bus, device))
            if found is None:
                raise os_error(errno.ENOENT)  # PyErr_SetFromErrno: no file name
            if path in kernel.denied:
                raise os_error(errno.EACCES)
            self._device = found
            self._mode, self.bits_per_word, self._max_speed_hz = 0, 8, 125_000_000

        def close(self) -> None:
            self._device = None
            self._mode = self.bits_per_word = self._max_speed_hz = 0

        def _open_device(self) -> SpiDevice:
            if self._device is None:
                raise os_error(errno.EBADF)  # the C code calls write/ioctl on fd -1
            return self._device

        @property
        def max_speed_hz(self) -> int:
            return self._max_speed_hz

        @max_speed_hz.setter
        def max_speed_hz(self, value: int) -> None:
            if not isinstance(value, int):
                raise TypeError("The max_speed_hz attribute must be an integer")
            if value != self._max_speed_hz:
                self._open_device().speeds.append(value)
                self._max_speed_hz = value

        @property
        def mode(self) -> int:
            return self._mode

        @mode.setter
        def mode(self, value: int) -> None:
            if not isinstance(value, int) or value > 3:
                raise TypeError("The mode attribute must be an integer between 0 and 3.")
            self._open_device()
            self._mode = value

        def writebytes(self, values: Iterable[int]) -> None:
            data = list(values)
            if not data:
                raise TypeError("Empty argument list.")
            if len(data) > SPIDEV_MAXPATH:
                raise OverflowError(f"Argument list size exceeds {SPIDEV_MAXPATH} bytes.")
            if not all(isinstance(v, int) for v in data):
                raise TypeError("Non-Int/Long value in arguments")
            self._open_device()._write(bytes(v & 0xFF for v in data))

        def writebytes2(self, values: Iterable[int]) -> None:
            data = bytes(values)
            for i in range(0, len(data), SPIDEV_MAXPATH):
                self._open_device()._write(data[i : i + SPIDEV_MAXPATH])

        def xfer(self, values: Iterable[int], *args: int) -> list[int]:
            data = list(values)
            self.writebytes(data)
            return [0] * len(data)

        xfer2 = xfer

    module = types.ModuleType("spidev")
    module.SpiDev = SpiDev
    return module


# -- GPIO: the RPi.GPIO API (as rpi-lgpio provides it) ------------------------------------------


class FakeGpio:
    """Levels of the GPIOs driven through the ``RPi.GPIO`` API, and their history (the last :data:`KEEP`)."""

    BCM, BOARD, UNKNOWN = 11, 10, -1
    OUT, IN = 0, 1
    LOW, HIGH = 0, 1
    PUD_OFF, PUD_DOWN, PUD_UP = 20, 21, 22

    def __init__(self) -> None:
        self.mode = self.UNKNOWN
        self.outputs: set[int] = set()
        self.levels: dict[int, int] = {}
        self.history: list[tuple[int, int]] = Tail()  # (pin, level), the last KEEP

    def module(self) -> types.ModuleType:
        """The ``RPi.GPIO`` module object."""
        m = types.ModuleType("RPi.GPIO")
        for name in ("BCM", "BOARD", "OUT", "IN", "LOW", "HIGH", "PUD_OFF", "PUD_DOWN", "PUD_UP"):
            setattr(m, name, getattr(self, name))
        m.VERSION = "0.7.2"
        for name in ("setmode", "getmode", "setwarnings", "setup", "output", "input", "cleanup"):
            setattr(m, name, getattr(self, name))
        return m

    def setmode(self, mode: int) -> None:
        """rpi-lgpio's ``setmode``."""
        if self.mode != self.UNKNOWN and mode != self.mode:
            raise ValueError("A different mode has already been set!")
        if mode not in (self.BCM, self.BOARD):
            raise ValueError("An invalid mode was passed to setmode()")
        self.mode = mode

    def getmode(self) -> int | None:
        """rpi-lgpio's ``getmode``."""
        return None if self.mode == self.UNKNOWN else self.mode

    def setwarnings(self, value: bool) -> None:
        """rpi-lgpio's ``setwarnings`` (nothing to record)."""

    def setup(
        self, chanlist: int | Iterable[int], direction: int, pull_up_down: int = 20, initial: int | None = None
    ) -> None:
        """rpi-lgpio's ``setup``: outputs keep their level unless ``initial`` is given."""
        if self.mode == self.UNKNOWN:
            raise RuntimeError("Please set pin numbering mode using GPIO.setmode(GPIO.BOARD) or GPIO.setmode(GPIO.BCM)")
        for pin in [chanlist] if isinstance(chanlist, int) else list(chanlist):
            if direction == self.OUT:
                self.outputs.add(pin)
                self._set(pin, int(bool(initial)) if initial is not None else self.levels.get(pin, 0))
            else:
                self.outputs.discard(pin)

    def output(self, channel: int | Iterable[int], value: int | Iterable[int]) -> None:
        """rpi-lgpio's ``output``."""
        pins = [channel] if isinstance(channel, int) else list(channel)
        values = [value] * len(pins) if isinstance(value, int | bool) else list(value)
        for pin, level in zip(pins, values, strict=True):
            if pin not in self.outputs:
                raise RuntimeError("The GPIO channel has not been set up as an OUTPUT")
            self._set(pin, int(bool(level)))

    def input(self, channel: int) -> int:
        """rpi-lgpio's ``input``."""
        return self.levels.get(channel, 0)

    def cleanup(self, chanlist: int | Iterable[int] | None = None) -> None:
        """rpi-lgpio's ``cleanup``: the pins go back to inputs."""
        pins = set(self.outputs) if chanlist is None else {chanlist} if isinstance(chanlist, int) else set(chanlist)
        self.outputs -= pins
        if chanlist is None:
            self.mode = self.UNKNOWN

    def _set(self, pin: int, level: int) -> None:
        self.levels[pin] = level
        self.history.append((pin, level))


class _RaiseOnImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Importing ``name`` fails as it does on a machine without the library, or that is not a Pi."""

    def __init__(self, names: set[str], error: Exception) -> None:
        self.names = names
        self.error = error

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname in self.names:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        raise self.error

    def exec_module(self, module: types.ModuleType) -> None:  # pragma: no cover - create_module raises
        raise self.error


# -- gpiozero's mock pins -------------------------------------------------------------------------


class BoundedPWMPin(MockPWMPin):
    """gpiozero's ``MockPWMPin`` whose record of changes (``states``) is a :class:`Tail`: gpiozero's
    own keeps every change a pin ever made (``MockFactory(pin_class=BoundedPWMPin)``)."""

    def clear_states(self) -> None:
        super().clear_states()
        self.states = Tail(self.states)


# -- installing ----------------------------------------------------------------------------------


@contextmanager
def installed(monkeypatch: object, *, gpio: str = "present") -> Iterator[FakeLinux]:
    """Put a :class:`FakeLinux` under smbus2, spidev and RPi.GPIO for the test's duration.

    ``gpio``: ``"present"`` (the RPi.GPIO API records levels), ``"missing"``
    (no GPIO library installed: ``import RPi.GPIO`` raises ModuleNotFoundError, as
    on a PC), or ``"not-a-pi"`` (rpi-lgpio's import raises RuntimeError on a
    machine without a Raspberry Pi device tree).
    """
    import smbus2.smbus2

    kernel = FakeLinux()
    mp = monkeypatch
    mp.setattr(smbus2.smbus2, "os", _OsShim(kernel))
    mp.setattr(smbus2.smbus2, "ioctl", kernel.ioctl)
    mp.setitem(sys.modules, "spidev", _spidev_module(kernel))
    for name in ("RPi", "RPi.GPIO"):
        mp.delitem(sys.modules, name, raising=False)
    if gpio == "present":
        package = types.ModuleType("RPi")
        package.__path__ = []
        module = kernel.gpio.module()
        package.GPIO = module
        mp.setitem(sys.modules, "RPi", package)
        mp.setitem(sys.modules, "RPi.GPIO", module)
    else:
        if gpio == "missing":
            names, error = {"RPi", "RPi.GPIO"}, ModuleNotFoundError("No module named 'RPi'", name="RPi")
        elif gpio == "not-a-pi":
            package = types.ModuleType("RPi")
            package.__path__ = []
            mp.setitem(sys.modules, "RPi", package)
            names, error = {"RPi.GPIO"}, RuntimeError("This module can only be run on a Raspberry Pi!")
        else:
            raise ValueError(f"gpio must be present, missing or not-a-pi, not {gpio!r}")
        mp.setattr(sys, "meta_path", [_RaiseOnImport(names, error), *sys.meta_path])
    yield kernel


class _Forever:
    """The three calls :func:`installed` makes on pytest's monkeypatch, never undone."""

    def setattr(self, target: object, name: str, value: object) -> None:
        setattr(target, name, value)

    def setitem(self, mapping: dict, key: object, value: object) -> None:
        mapping[key] = value

    def delitem(self, mapping: dict, key: object, raising: bool = True) -> None:
        mapping.pop(key, None)


def install_for_process() -> FakeLinux:
    """:func:`installed` for the rest of the process, without pytest (the benchmarks' processes)."""
    return installed(_Forever()).__enter__()


# -- what the display made of it: controller RAM models -----------------------------------------

# Commands that take arguments in the same command stream, and how many.
_SSD1306_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8D: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}
_SSD1306_ARGS |= {0xA3: 2, 0xD6: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5}
_SH110X_ARGS = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1, 0xDC: 1}


class PageRam:
    """The display RAM of a page-addressed monochrome controller, fed what it received.

    ``chip``: ``"ssd1306"`` (also SSD1309: horizontal, vertical and page
    addressing, column and page windows) or ``"sh1106"`` / ``"sh1107"`` (page
    addressing only; the column pointer stops at the end of the RAM).
    """

    def __init__(self, chip: str, columns: int = 128, pages: int = 8) -> None:
        self.chip = chip
        self.columns = columns
        self.pages = pages
        self.ram = [bytearray(columns) for _ in range(pages)]
        self.addressing = 2  # page addressing after reset
        self.col_window = (0, columns - 1)
        self.page_window = (0, pages - 1)
        self.col = 0
        self.page = 0
        self.on = False
        self.commands: list[tuple[int, ...]] = []

    def feed(self, writes: Iterable[Write]) -> PageRam:
        """Replay delivered writes (commands restart at each transfer, as luma sends them); a
        record that dropped its first writes is refused (ValueError)."""
        for w in _complete(writes):
            if not w.delivered:
                continue
            if w.command:
                self._commands(w.payload)
            else:
                for byte in w.payload:
                    self._data(byte)
        return self

    def _commands(self, stream: bytes) -> None:
        table = _SSD1306_ARGS if self.chip == "ssd1306" else _SH110X_ARGS
        i = 0
        while i < len(stream):
            op = stream[i]
            n = table.get(op, 0)
            args = tuple(stream[i + 1 : i + 1 + n])
            i += 1 + n
            self.commands.append((op, *args))
            self._command(op, args)

    def _command(self, op: int, args: tuple[int, ...]) -> None:
        if op == 0xAE:
            self.on = False
        elif op == 0xAF:
            self.on = True
        elif op <= 0x0F:
            self.col = (self.col & 0xF0) | op
        elif op <= 0x1F:
            self.col = (self.col & 0x0F) | ((op & 0x0F) << 4)
        elif 0xB0 <= op <= 0xBF and (self.chip != "ssd1306" or op <= 0xB7):
            self.page = op & 0x0F
        elif self.chip == "ssd1306" and op == 0x20 and args:
            self.addressing = args[0] & 0x03
        elif self.chip == "ssd1306" and op == 0x21 and len(args) == 2:
            self.col_window = args
            self.col = args[0]
        elif self.chip == "ssd1306" and op == 0x22 and len(args) == 2:
            self.page_window = (args[0] & 0x07, args[1] & 0x07)
            self.page = self.page_window[0]

    def _data(self, byte: int) -> None:
        if self.col < self.columns and self.page < self.pages:
            self.ram[self.page][self.col] = byte
        if self.chip != "ssd1306" or self.addressing == 2:
            if self.chip != "ssd1306":
                self.col = min(self.col + 1, self.columns)  # SH1106: stops at the end
            else:
                self.col = self.col + 1 if self.col < self.columns - 1 else 0
            return
        (c0, c1), (p0, p1) = self.col_window, self.page_window
        if self.addressing == 0:  # horizontal: across, then down a page
            self.col += 1
            if self.col > c1:
                self.col = c0
                self.page = self.page + 1 if self.page < p1 else p0
        else:  # vertical
            self.page += 1
            if self.page > p1:
                self.page = p0
                self.col = self.col + 1 if self.col < c1 else c0

    def image(self, width: int, height: int, column_offset: int = 0) -> Image.Image:
        """The panel's pixels (device orientation, before luma's rotation), mode ``"1"``."""
        out = Image.new("1", (width, height))
        px = out.load()
        for page in range(height // 8):
            row = self.ram[page]
            for x in range(width):
                byte = row[column_offset + x]
                if byte:
                    for bit in range(8):
                        if byte >> bit & 1:
                            px[x, page * 8 + bit] = 1
        return out


class WindowRam:
    """The RAM of a windowed greyscale or colour controller (SSD1322, SSD1351), fed what it received.

    Both take a command byte (DC low) followed by its arguments as data; after
    0x5C (write RAM) the data fills the window set by 0x15 (columns) and 0x75
    (rows) row by row. SSD1351: 2 bytes a pixel (RGB565), one column a pixel.
    SSD1322: 4-bit grey, one column address = 4 pixels = 2 bytes.
    """

    def __init__(self, chip: str) -> None:
        self.chip = chip
        if chip == "ssd1351":
            self.columns, self.rows, self.bytes_per_column = 128, 128, 2
        elif chip == "ssd1322":
            self.columns, self.rows, self.bytes_per_column = 120, 128, 2
        else:
            raise ValueError(chip)
        self.ram = [bytearray(self.columns * self.bytes_per_column) for _ in range(self.rows)]
        self.op: int | None = None
        self.args: list[int] = []
        self.window = ((0, self.columns - 1), (0, self.rows - 1))
        self.col = self.row = self.byte = 0
        self.on = False

    def feed(self, writes: Iterable[Write]) -> WindowRam:
        """Replay delivered writes (a record that dropped its first writes is refused: ValueError)."""
        for w in _complete(writes):
            if not w.delivered:
                continue
            if w.command:
                for op in w.payload:
                    self._start(op)
            else:
                for byte in w.payload:
                    self._data(byte)
        return self

    def _start(self, op: int) -> None:
        self.op, self.args = op, []
        if op == 0xAE:
            self.on = False
        elif op == 0xAF:
            self.on = True
        elif op == 0x5C:
            (c0, _), (r0, _) = self.window
            self.col, self.row, self.byte = c0, r0, 0

    def _data(self, byte: int) -> None:
        if self.op != 0x5C:
            self.args.append(byte)
            if self.op in (0x15, 0x75) and len(self.args) == 2:
                (cols, rows) = self.window
                if self.op == 0x15:
                    self.window = (tuple(self.args), rows)
                else:
                    self.window = (cols, tuple(self.args))
            return
        (c0, c1), (r0, r1) = self.window
        self.ram[self.row][self.col * self.bytes_per_column + self.byte] = byte
        self.byte += 1
        if self.byte == self.bytes_per_column:
            self.byte = 0
            self.col += 1
            if self.col > c1:
                self.col = c0
                self.row = self.row + 1 if self.row < r1 else r0

    def rgb565(self, width: int, height: int) -> list[list[int]]:
        """SSD1351: the 16-bit pixel values, row by row."""
        return [[self.ram[y][2 * x] << 8 | self.ram[y][2 * x + 1] for x in range(width)] for y in range(height)]

    def grey4(self, width: int, height: int, column_offset: int) -> list[list[int]]:
        """SSD1322: the 4-bit grey levels, row by row (high nibble first)."""
        start = column_offset * 2  # bytes: 4 pixels a column address, 2 bytes each
        rows = []
        for y in range(height):
            row = self.ram[y][start : start + width // 2]
            rows.append([v for b in row for v in (b >> 4, b & 0x0F)])
        return rows


def panel(target: Recorder, driver: str, width: int, height: int) -> Image.Image:
    """What a page-addressed monochrome panel shows (device orientation, mode ``"1"``),
    replayed from everything ``target`` received."""
    if driver in ("ssd1306", "ssd1309"):
        return PageRam("ssd1306").feed(target.writes).image(width, height)
    if driver == "sh1106":
        return PageRam("sh1106", columns=132, pages=8).feed(target.writes).image(width, height, 2)
    if driver == "sh1107":
        return PageRam("sh1107", columns=128, pages=16).feed(target.writes).image(width, height)
    raise ValueError(f"no panel model for {driver!r}")
