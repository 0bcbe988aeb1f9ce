"""The display boundary with the libraries' real code: luma.oled's device classes on
luma.core's ``i2c`` and ``spi`` interfaces, smbus2's ``SMBus``, over recording fakes
of the kernel (tests/fakeos.py) that fail the way Linux does.

What is checked: the fakes answer as Linux does; what luma raises for each kernel
failure; that only the changed pages and columns are sent, and that the panel's RAM,
replayed from the recorded bytes, equals the picture pixel for pixel after every
frame; the byte budgets of issue 10; and a display that stops answering and comes
back, down to the daemon (a loose I2C wire mid-deal, SIGTERM).
"""

from __future__ import annotations

import errno
import logging
import random
import time

import luma.core.error
import luma.oled.device as stock
import pytest
import smbus2
from luma.core.interface.serial import i2c, spi
from PIL import Image, ImageDraw

from baccarat_core.cards import RANKS, SUITS, Card, hand_score
from baccarat_core.rounds import AREAS, play_round
from firmware import cli
from firmware.config import DEFAULT_CONFIG
from firmware.devices import displays
from firmware.devices import oled as devices_oled
from firmware.devices.oled import BUS_ERRORS, Screen, check_display, describe_bus_error, is_bus_error, open_device
from firmware.devices.wiring import DisplaySpec
from firmware.render import BetsView, TableView, render_bets, render_table
from tests import fakeos

# luma.oled 3.16's stock drivers read pixels with Image.getdata, which Pillow 13 deprecates (ours do not).
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")

FULL_SSD1306_128x64_I2C = 2 + 6 + 2 + 128 * 64 // 8  # window commands + data, each with address and control byte


@pytest.fixture
def linux(monkeypatch):
    with fakeos.installed(monkeypatch) as kernel:
        yield kernel


# -- what is meant, and what the panel shows --------------------------------------------------------


def meant(device, image: Image.Image) -> Image.Image:
    """The picture in device orientation, as luma's own ``preprocess`` rotates it."""
    return device.preprocess(image).convert("1")


def same_pixels(a: Image.Image, b: Image.Image) -> bool:
    return a.size == b.size and a.convert("1").tobytes() == b.convert("1").tobytes()


DENOMINATIONS = (1, 5, 25, 100, 500, 1000, 5000, 25000, 100000)


def bets_inputs(rng: random.Random, count: int) -> list[tuple[str, BetsView]]:
    """The bets display after each of ``count`` inputs: ``chip`` (one more chip of the active
    denomination on an area), ``arrow`` (another denomination) or ``clear`` (an area held clear)."""
    stacks: dict[str, tuple[int, ...]] = {a: () for a in AREAS}
    index = 0
    out = [("start", BetsView(dict(stacks), 1, False, True))]
    for _ in range(count):
        kind = rng.choices(["chip", "arrow", "clear"], [6, 2, 1])[0]
        area = rng.choice(AREAS)
        if kind == "arrow":
            index = max(0, min(len(DENOMINATIONS) - 1, index + rng.choice([-1, 1])))
        elif kind == "clear" or len(stacks[area]) >= 8:
            kind, stacks[area] = "clear", ()
        else:
            stacks[area] = (*stacks[area], DENOMINATIONS[index])
        view = BetsView(dict(stacks), DENOMINATIONS[index], index > 0, index < len(DENOMINATIONS) - 1)
        out.append((kind, view))
    return out


def bets_presses(rng: random.Random, count: int) -> list[BetsView]:
    """Just the pictures of :func:`bets_inputs`."""
    return [view for _, view in bets_inputs(rng, count)]


def deals(seed: int, rounds: int) -> list[list[TableView]]:
    """The table display frame by frame: for each round, one view a card, then the result."""
    rng = random.Random(seed)
    pack = [Card(rank, suit) for rank in RANKS for suit in SUITS]
    rng.shuffle(pack)
    color, left = rng.choice(["red", "blue", "green", "silver"]), 52
    out = []
    for _ in range(rounds):
        game = play_round(pack)
        pack = pack[len(game.order) :]
        hands: dict[str, list[Card]] = {"player": [], "banker": []}
        frames = []
        for hand, card in game.order:
            hands[hand].append(card)
            left -= 1
            p, b = hands["player"], hands["banker"]
            frames.append(
                TableView(
                    color,
                    left,
                    tuple(map(str, p)),
                    tuple(map(str, b)),
                    hand_score(p) if p else None,
                    hand_score(b) if b else None,
                    None,
                    "DEALING",
                )
            )
        cents = rng.choice([2500, -2500, 0, 123_400])
        sign = "+" if cents > 0 else "-" if cents < 0 else ""
        result = f"{game.winner.upper()} WINS {sign}${abs(cents) // 100}.00"
        frames.append(replace_result(frames[-1], result))
        out.append(frames)
    return out


def replace_result(view: TableView, result: str) -> TableView:
    return TableView(view.deck_color, view.cards_left, view.player, view.banker, view.player_score,
                     view.banker_score, result, result)  # fmt: skip


# -- the fakes answer as Linux does ---------------------------------------------------------------


def test_smbus2_on_the_fake_kernel_fails_as_linux_does(linux):
    with pytest.raises(FileNotFoundError) as missing:
        smbus2.SMBus(1)
    assert missing.value.errno == errno.ENOENT and missing.value.filename == "/dev/i2c-1"
    bus = linux.i2c_bus(1)
    linux.deny("/dev/i2c-1")
    with pytest.raises(PermissionError) as denied:
        smbus2.SMBus(1)
    assert denied.value.errno == errno.EACCES
    linux.denied.clear()
    smbus = smbus2.SMBus(1)
    with pytest.raises(OSError) as nack:
        smbus.write_i2c_block_data(0x3C, 0x00, [0xAE])
    assert nack.value.errno == errno.EREMOTEIO and type(nack.value) is OSError
    chip = bus.attach(0x3C)
    smbus.write_i2c_block_data(0x3C, 0x00, [0xAE, 0xAF])
    smbus.i2c_rdwr(smbus2.i2c_msg.write(0x3C, [0x40, 1, 2, 3]))
    assert [(w.command, w.payload, w.wire_bytes) for w in chip.writes] == [
        (True, b"\xae\xaf", 4),
        (False, b"\x01\x02\x03", 5),
    ]
    chip.unplug(errno.EIO)
    with pytest.raises(OSError) as eio:
        smbus.i2c_rdwr(smbus2.i2c_msg.write(0x3C, [0x40, 1]))
    assert eio.value.errno == errno.EIO and chip.writes[-1].wire_bytes == 1  # only the address went out
    smbus.close()
    assert linux.open_files == []
    with pytest.raises(TypeError):  # smbus2 after close: fcntl.ioctl(None, ...)
        smbus.write_i2c_block_data(0x3C, 0x00, [0xAE])


def test_spidev_and_gpio_fakes_answer_as_the_real_modules(linux):
    import RPi.GPIO as GPIO
    import spidev

    dev = spidev.SpiDev()
    with pytest.raises(FileNotFoundError) as missing:
        dev.open(0, 0)
    assert missing.value.errno == errno.ENOENT and missing.value.filename is None  # PyErr_SetFromErrno
    node = linux.spi_device(0, 0, dc=24)
    dev.open(0, 0)
    with pytest.raises(TypeError):
        dev.writebytes([])
    with pytest.raises(OverflowError):
        dev.writebytes([0] * 4097)
    GPIO.setmode(GPIO.BCM)
    with pytest.raises(RuntimeError):
        GPIO.output(24, GPIO.HIGH)  # not set up as an output
    GPIO.setup(24, GPIO.OUT)
    GPIO.output(24, GPIO.LOW)
    dev.writebytes([0xAE])
    GPIO.output(24, GPIO.HIGH)
    dev.writebytes([1, 2])
    node.unplug()  # no ACK on SPI: a loose wire raises nothing
    dev.writebytes([3])
    assert [(w.command, w.payload, w.delivered) for w in node.writes] == [
        (True, b"\xae", True),
        (False, b"\x01\x02", True),
        (False, b"\x03", False),
    ]
    node.fail_next(1)
    with pytest.raises(TimeoutError):
        dev.writebytes([4])


# -- luma's real drivers on the recorded bus ------------------------------------------------------


def test_luma_ssd1306_init_and_a_full_frame_on_i2c(linux):
    chip = linux.i2c_display(1, 0x3C)
    device = stock.ssd1306(i2c(port=1, address=0x3C), width=128, height=64)
    init = chip.writes[0]
    assert init.command and init.payload[0] == 0xAE  # display off first
    assert bytes([0xA8, 0x3F]) in init.payload and bytes([0x8D, 0x14]) in init.payload  # 64 rows, charge pump
    assert chip.writes[-1].command and chip.writes[-1].payload == b"\xaf"  # display on last
    mark = chip.mark()
    picture = Image.new("1", (128, 64))
    ImageDraw.Draw(picture).text((10, 10), "$25", fill=1)
    device.display(picture)
    assert [len(w.payload) for w in chip.since(mark)] == [6, 1024]
    assert chip.bytes_since(mark) == FULL_SSD1306_128x64_I2C == 1034
    assert fakeos.i2c_seconds(1034) == pytest.approx(0.0233, abs=0.0001)
    assert same_pixels(fakeos.panel(chip, "ssd1306", 128, 64), picture)


@pytest.mark.parametrize("driver", ["ssd1306", "ssd1309", "sh1106"])
@pytest.mark.parametrize("interface", ["i2c", "spi"])
@pytest.mark.parametrize("size", [(128, 64), (128, 32)])
def test_our_devices_start_exactly_as_luma_does(linux, driver, interface, size):
    """Init, clear and the first frame of our subclass are luma's own bytes."""
    width, height = size
    picture = render_bets(bets_presses(random.Random(1), 3)[-1], size, "1")
    if interface == "i2c":
        ours_at, luma_at = linux.i2c_display(1, 0x3C), linux.i2c_display(1, 0x3D)
        ours = open_device(driver, "i2c", width=width, height=height, address=0x3C)
        theirs = getattr(stock, driver)(i2c(port=1, address=0x3D), width=width, height=height)
    else:
        ours_at, luma_at = linux.spi_device(0, 0, dc=24), linux.spi_device(0, 1, dc=23)
        ours = open_device(driver, "spi", width=width, height=height, device=0, dc=24, reset=25)
        theirs = getattr(stock, driver)(spi(port=0, device=1, gpio_DC=23, gpio_RST=22), width=width, height=height)
    ours.invalidate()
    ours.display(picture)
    theirs.display(picture)
    assert [(w.command, w.payload) for w in ours_at.writes] == [(w.command, w.payload) for w in luma_at.writes]
    assert same_pixels(fakeos.panel(ours_at, driver, width, height), picture)


@pytest.mark.parametrize("driver", ["ssd1306", "ssd1309"])
@pytest.mark.parametrize("size", [(96, 16), (64, 48), (64, 32)])
@pytest.mark.parametrize("rotate", [0, 1])
def test_our_ssd1306_starts_as_luma_s_in_every_mode_luma_has(linux, driver, size, rotate):
    """Our SSD1306 and SSD1309 set the panel up without luma's ``__init__`` (which builds lookup
    tables only its own ``display()`` reads): the same bytes as luma's, in each of its modes."""
    width, height = size
    ours_at, luma_at = linux.i2c_display(1, 0x3C), linux.i2c_display(1, 0x3D)
    ours = open_device(driver, "i2c", width=width, height=height, address=0x3C, rotate=rotate)
    theirs = getattr(stock, driver)(i2c(port=1, address=0x3D), width=width, height=height, rotate=rotate)
    assert (ours.width, ours.height, ours.size, ours._colstart, ours._colend) == (
        theirs.width,
        theirs.height,
        theirs.size,
        theirs._colstart,
        theirs._colend,
    )
    picture = Image.new("1", ours.size)
    ImageDraw.Draw(picture).text((2, 2), "$5", fill=1)
    ours.invalidate()
    ours.display(picture)
    theirs.display(picture)
    assert [(w.command, w.payload) for w in ours_at.writes] == [(w.command, w.payload) for w in luma_at.writes]


def test_our_ssd1306_refuses_a_mode_as_luma_s_does(linux):
    linux.i2c_display(1, 0x3C)
    with pytest.raises(luma.core.error.DeviceDisplayModeError) as theirs:
        stock.ssd1306(i2c(port=1, address=0x3C), width=128, height=48)
    with pytest.raises(luma.core.error.DeviceDisplayModeError) as ours:
        open_device("ssd1306", "i2c", width=128, height=48, address=0x3C)
    assert str(ours.value) == str(theirs.value) == "Unsupported display mode: 128 x 48"


@pytest.mark.parametrize(
    ("driver", "size", "chip", "offset"), [("ssd1351", (128, 128), "ssd1351", 0), ("ssd1322", (256, 64), "ssd1322", 28)]
)
def test_greyscale_and_colour_drivers_keep_luma_s_diff_to_previous(linux, driver, size, chip, offset):
    node = linux.spi_device(0, 0, dc=24)
    device = open_device(driver, "spi", width=size[0], height=size[1], dc=24, reset=25)
    assert device.framebuffer.__class__.__name__ == "diff_to_previous"
    assert node.writes[0].command and node.speeds == [8_000_000]
    assert linux.gpio.history[:3] == [(24, 0), (25, 0), (25, 0)] and (25, 1) in linux.gpio.history  # RST pulsed
    full = size[0] * size[1] * (2 if chip == "ssd1351" else 1) // (1 if chip == "ssd1351" else 2)
    for i, view in enumerate(bets_presses(random.Random(2), 6)):
        picture = render_bets(view, device.size, "RGB")
        if chip == "ssd1322":
            picture = picture.convert("L").convert("RGB")
        mark = node.mark()
        device.display(picture)
        data = sum(len(w.payload) for w in node.since(mark) if not w.command and len(w.payload) > 4)
        if i > 0:
            assert data < full / 4, f"press {i}: {data} bytes of pixels, the full frame is {full}"
        ram = fakeos.WindowRam(chip).feed(node.writes)
        if chip == "ssd1351":
            want = [[_rgb565(picture.getpixel((x, y))) for x in range(size[0])] for y in range(size[1])]
            assert ram.rgb565(*size) == want
        else:
            want = [[_grey4(picture.getpixel((x, y))) for x in range(size[0])] for y in range(size[1])]
            assert ram.grey4(*size, offset) == want
    mark = node.mark()
    device.invalidate()
    device.display(picture)
    assert sum(len(w.payload) for w in node.since(mark) if not w.command) >= full  # the whole frame again


def _rgb565(rgb: tuple[int, int, int]) -> int:
    r, g, b = rgb
    return 0 if r == g == b == 0 else (r & 0xF8) << 8 | (g & 0xFC) << 3 | b >> 3


def _grey4(rgb: tuple[int, int, int]) -> int:
    r, g, b = rgb
    return (r * 306 + g * 601 + b * 117) >> 14


# -- what luma raises for each kernel failure -----------------------------------------------------


def _i2c_open(linux):
    return open_device("ssd1306", "i2c", width=128, height=64)


def _spi_open(linux):
    return open_device("sh1106", "spi", width=128, height=64, dc=24, reset=25)


def _working_i2c(linux):
    linux.i2c_display(1, 0x3C)
    return _i2c_open(linux)


LUMA_ERRORS = [
    # (case, arrange, act, exception, message, bus error)
    ("I2C: no /dev/i2c-1", lambda k: None, _i2c_open,
     luma.core.error.DeviceNotFoundError, "I2C device not found: /dev/i2c-1", True),
    ("I2C: EACCES (not in the i2c group)", lambda k: (k.i2c_bus(1), k.deny("/dev/i2c-1")), _i2c_open,
     luma.core.error.DevicePermissionError, "I2C device permission denied: /dev/i2c-1", True),
    ("I2C: nothing at 0x3C at start (EREMOTEIO)", lambda k: k.i2c_bus(1), _i2c_open,
     luma.core.error.DeviceNotFoundError, "I2C device not found on address: 0x3C", True),
    ("I2C: EIO at start", lambda k: k.i2c_display().unplug(errno.EIO), _i2c_open,
     luma.core.error.DeviceNotFoundError, "I2C device not found on address: 0x3C", True),
    ("I2C: ENXIO at start (other adapters' NACK)", lambda k: k.i2c_display().unplug(errno.ENXIO), _i2c_open,
     OSError, "No such device or address", True),
    ("I2C: EBUSY (a kernel driver owns 0x3C)", lambda k: k.i2c_bus(1).claimed.add(0x3C), _i2c_open,
     OSError, "Device or resource busy", True),
    ("SPI: no /dev/spidev0.0", lambda k: None, _spi_open,
     luma.core.error.DeviceNotFoundError, "SPI device not found", True),
    ("SPI: EACCES (not in the spi group)", lambda k: k.deny(k.spi_device(0, 0).path), _spi_open,
     PermissionError, "Permission denied", True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "arrange", "act", "raised", "message", "bus"), LUMA_ERRORS, ids=[c[0] for c in LUMA_ERRORS]
)
def test_what_luma_raises_when_opening(linux, case, arrange, act, raised, message, bus):
    arrange(linux)
    with pytest.raises(raised) as caught:
        act(linux)
    assert type(caught.value) is raised
    assert message in str(caught.value)
    assert is_bus_error(caught.value) is bus
    assert linux.open_files == []  # a failed open closes its bus


@pytest.mark.parametrize(
    ("code", "after", "raised", "message"),
    [
        (errno.EREMOTEIO, 0, luma.core.error.DeviceNotFoundError, "I2C device not found on address: 0x3C"),
        (errno.EIO, 0, luma.core.error.DeviceNotFoundError, "I2C device not found on address: 0x3C"),
        (errno.EREMOTEIO, 1, OSError, "Remote I/O error"),  # the wire went between the command and the data
        (errno.ENXIO, 0, OSError, "No such device or address"),
        (errno.ETIMEDOUT, 0, TimeoutError, "Connection timed out"),
    ],
    ids=["EREMOTEIO-on-command", "EIO-on-command", "EREMOTEIO-on-data", "ENXIO", "ETIMEDOUT"],
)
@pytest.mark.parametrize("driver", ["ssd1306", "sh1106", "ssd1309"])
def test_what_luma_raises_when_an_i2c_display_stops_answering(linux, driver, code, after, raised, message):
    chip = linux.i2c_display()
    device = open_device(driver, "i2c", width=128, height=64)
    chip.fail_next(1, code, after=after)
    with pytest.raises(BUS_ERRORS) as caught:
        device.invalidate()
        device.display(Image.new("1", (128, 64), 1))
    assert type(caught.value) is raised and message in str(caught.value)
    assert not isinstance(caught.value, OSError) or caught.value.errno == code
    line = describe_bus_error(caught.value)
    assert errno.errorcode[code] in line and "\n" not in line


def test_a_loose_i2c_display_fails_clear_and_hide_with_luma_s_error(linux):
    chip = linux.i2c_display()
    device = _i2c_open(linux)
    device.display(Image.new("1", (128, 64), 1))  # so that clear() has something to send
    chip.unplug()
    for step in (device.clear, device.hide):
        with pytest.raises(luma.core.error.DeviceNotFoundError):
            step()
    assert not issubclass(luma.core.error.DeviceNotFoundError, OSError)  # why catching OSError was not enough


def test_what_luma_raises_on_spi(monkeypatch):
    with fakeos.installed(monkeypatch) as linux:
        with pytest.raises(luma.core.error.DeviceNotFoundError, match="SPI device not found"):
            _spi_open(linux)
        node = linux.spi_device(0, 0, dc=24)
        linux.deny(node.path)
        with pytest.raises(PermissionError) as denied:  # luma passes EACCES through as it is
            _spi_open(linux)
        assert is_bus_error(denied.value)
        linux.denied.clear()
        device = _spi_open(linux)
        node.unplug()
        device.display(Image.new("1", (128, 64), 1))  # a loose SPI wire: nothing to notice
        assert not node.writes[-1].delivered
        node.plug()
        node.fail_next(1)
        with pytest.raises(TimeoutError):
            device.display(Image.new("1", (128, 64), 0))
    with fakeos.installed(monkeypatch, gpio="missing") as linux:
        linux.spi_device(0, 0)
        with pytest.raises(ModuleNotFoundError):
            _spi_open(linux)
    with fakeos.installed(monkeypatch, gpio="not-a-pi") as linux:
        linux.spi_device(0, 0)
        with pytest.raises(luma.core.error.UnsupportedPlatform, match="GPIO access not available"):
            _spi_open(linux)


# -- send only what changed -----------------------------------------------------------------------


PAGE_CASES = [(d, s, r) for d in ("ssd1306", "ssd1309", "sh1106") for s in ((128, 64), (128, 32)) for r in (0, 2)]
PAGE_CASES += [("sh1107", (64, 128), 0), ("sh1107", (64, 128), 1)]


@pytest.mark.parametrize(
    ("driver", "size", "rotate"), PAGE_CASES, ids=[f"{d}-{s[0]}x{s[1]}-r{r}" for d, s, r in PAGE_CASES]
)
def test_every_partial_update_leaves_the_panel_showing_the_picture(linux, driver, size, rotate):
    chip = linux.i2c_display()
    device = open_device(driver, "i2c", width=size[0], height=size[1], rotate=rotate)
    rng = random.Random(f"{driver}{size}{rotate}")
    pictures = [render_bets(v, device.size, "1") for v in bets_presses(rng, 8)]
    pictures += [render_table(v, device.size, "1") for frames in deals(rng.randrange(1000), 3) for v in frames]
    noise = Image.new("1", device.size)
    for _ in range(40):  # scattered edits: several windows a frame, pages left alone between them
        noise = noise.copy()
        draw = ImageDraw.Draw(noise)
        for _ in range(rng.randint(1, 4)):
            x, y = rng.randrange(device.size[0]), rng.randrange(device.size[1])
            draw.rectangle((x, y, x + rng.randint(0, 9), y + rng.randint(0, 3)), fill=rng.randint(0, 1))
        pictures.append(noise)
    for n, picture in enumerate(pictures):
        mark = chip.mark()
        device.display(picture)
        sent = chip.bytes_since(mark)
        shown = fakeos.panel(chip, driver, size[0], size[1])
        assert same_pixels(shown, meant(device, picture)), f"frame {n}: the panel differs from the picture"
        if n and picture.tobytes() == pictures[n - 1].tobytes():
            assert sent == 0


def test_an_unchanged_frame_sends_nothing_and_invalidate_sends_it_all(linux):
    chip = linux.i2c_display()
    device = open_device("ssd1306", "i2c", width=128, height=64)
    picture = render_table(deals(5, 1)[0][-1], (128, 64), "1")
    device.display(picture)
    mark = chip.mark()
    device.display(picture)
    assert chip.bytes_since(mark) == 0
    device.invalidate()
    device.display(picture)
    assert chip.bytes_since(mark) == FULL_SSD1306_128x64_I2C


def test_a_frame_that_failed_half_way_is_followed_by_a_full_frame(linux):
    chip = linux.i2c_display()
    device = open_device("ssd1306", "i2c", width=128, height=64)
    views = bets_presses(random.Random(3), 3)
    device.display(render_bets(views[0], (128, 64), "1"))
    chip.fail_next(1, errno.EREMOTEIO, after=1)  # the window command went through, the data did not
    with pytest.raises(OSError):
        device.display(render_bets(views[1], (128, 64), "1"))
    mark = chip.mark()
    picture = render_bets(views[0], (128, 64), "1")  # back to what the panel had before: a diff would send nothing
    device.display(picture)
    assert chip.bytes_since(mark) == FULL_SSD1306_128x64_I2C
    assert same_pixels(fakeos.panel(chip, "ssd1306", 128, 64), picture)


# -- the byte budgets of issue 10 (counted on the recorded bus, luma's stock driver alongside) -----------


def _ours_and_luma(linux, driver: str, size: tuple[int, int]):
    ours_at, luma_at = linux.i2c_display(1, 0x3C), linux.i2c_display(1, 0x3D)
    ours = open_device(driver, "i2c", width=size[0], height=size[1], address=0x3C)
    theirs = getattr(stock, driver)(i2c(port=1, address=0x3D), width=size[0], height=size[1])
    return ours, ours_at, theirs, luma_at


def _send(device, at: fakeos.Recorder, picture: Image.Image) -> int:
    mark = at.mark()
    device.display(picture)
    return at.bytes_since(mark)


def test_a_chip_press_on_a_128x64_ssd1306_costs_at_most_300_bytes(linux):
    ours, ours_at, theirs, luma_at = _ours_and_luma(linux, "ssd1306", (128, 64))
    inputs = bets_inputs(random.Random(7), 300)
    first = render_bets(inputs[0][1], (128, 64), "1")
    _send(ours, ours_at, first), _send(theirs, luma_at, first)
    presses = 0
    for kind, view in inputs[1:]:
        picture = render_bets(view, (128, 64), "1")
        today = _send(theirs, luma_at, picture)
        sent = _send(ours, ours_at, picture)
        assert today == 1034
        if kind == "chip":
            presses += 1
            assert 0 < sent <= 300, f"{view.stacks}: {sent} bytes"
        assert same_pixels(fakeos.panel(ours_at, "ssd1306", 128, 64), picture)
    assert presses > 150


@pytest.mark.parametrize(
    ("driver", "size"), [("ssd1306", (128, 64)), ("sh1106", (128, 64)), ("ssd1309", (128, 64)), ("ssd1306", (128, 32))]
)
def test_dealt_cards_cost_at_most_500_bytes_on_average_and_a_deal_a_quarter_of_today(linux, driver, size):
    """The table display of the reference build is 128x64: there every deal costs at most a
    quarter of luma's bytes. On a 128x32 table the first card repaints most of the display
    (the last round's hands go), so there the six deals together keep to a quarter."""
    ours, ours_at, theirs, luma_at = _ours_and_luma(linux, driver, size)
    start = render_table(TableView("red", 52), size, "1")
    _send(ours, ours_at, start), _send(theirs, luma_at, start)
    cards, total_today, total_ours = [], 0, 0
    for n, frames in enumerate(deals(11, 6)):
        deal_today = deal_ours = 0
        for view in frames:
            picture = render_table(view, size, "1")
            today, sent = _send(theirs, luma_at, picture), _send(ours, ours_at, picture)
            deal_today += today
            deal_ours += sent
            if view.result is None:
                cards.append(sent)
        if size == (128, 64):
            assert deal_ours <= deal_today / 4, f"deal {n}: {deal_ours} bytes against {deal_today} today"
        assert same_pixels(fakeos.panel(ours_at, driver, *size), picture)
        total_today += deal_today
        total_ours += deal_ours
    assert total_ours <= total_today / 4, (total_ours, total_today)
    assert sum(cards) / len(cards) <= 500, cards


# -- a display that stops answering: the Screen ---------------------------------------------------


def _i2c_factory(driver: str = "ssd1306", size: tuple[int, int] = (128, 64), address: int = 0x3C):
    return lambda: open_device(driver, "i2c", width=size[0], height=size[1], address=address)


def _messages(caplog, role: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if f"display {role}" in r.getMessage()]


@pytest.mark.parametrize("reopen", [True, False], ids=["reopened", "invalidated"])
def test_a_loose_i2c_wire_is_logged_once_and_the_display_is_redrawn_in_full(linux, caplog, reopen):
    caplog.set_level(logging.INFO, logger="baccarat")
    chip = linux.i2c_display()
    factory = _i2c_factory()
    screen = Screen("bets", factory(), reopen=factory if reopen else None)
    views = bets_presses(random.Random(5), 12)
    assert screen.show(render_bets(views[0], (128, 64), "1"))

    chip.unplug()  # EREMOTEIO on every write
    for view in views[1:8]:
        assert not screen.show(render_bets(view, (128, 64), "1"))
    assert screen.failing
    stopped = [m for m in _messages(caplog, "bets") if "stopped answering" in m]
    assert stopped == [
        "display bets stopped answering (I2C device not found on address: 0x3C (Remote I/O error, EREMOTEIO)); "
        "the game goes on, retrying every second"
    ]
    assert linux.open_files == ["/dev/i2c-1"] or reopen  # reopening while loose leaks no file

    chip.plug()
    mark = chip.mark()
    picture = render_bets(views[8], (128, 64), "1")
    assert screen.show(picture)
    writes = chip.since(mark)
    if reopen:  # opened afresh: luma's init (display off .. on), a blank frame, then the picture's pages
        assert writes[0].command and writes[0].payload[0] == 0xAE
        assert any(w.command and w.payload == b"\xaf" for w in writes)
        assert chip.bytes_since(mark) > FULL_SSD1306_128x64_I2C
    else:
        assert chip.bytes_since(mark) == FULL_SSD1306_128x64_I2C
    assert same_pixels(fakeos.panel(chip, "ssd1306", 128, 64), picture)
    assert fakeos.PageRam("ssd1306").feed(chip.writes).on
    assert [m for m in _messages(caplog, "bets") if "answers again" in m] == [
        "display bets answers again; redrawn in full"
    ]
    assert len(_messages(caplog, "bets")) == 2
    assert len(linux.open_files) == 1

    mark = chip.mark()
    picture = render_bets(views[9], (128, 64), "1")
    assert screen.show(picture)
    assert 0 < chip.bytes_since(mark) <= 300  # back to sending changes only
    assert same_pixels(fakeos.panel(chip, "ssd1306", 128, 64), picture)


def test_a_glitch_during_the_data_transfer_is_survived_too(linux, caplog):
    caplog.set_level(logging.INFO, logger="baccarat")
    chip = linux.i2c_display()
    factory = _i2c_factory()
    screen = Screen("table", factory(), reopen=factory)
    frames = [render_table(v, (128, 64), "1") for v in deals(2, 1)[0]]
    screen.show(frames[0])
    chip.fail_next(1, errno.EREMOTEIO, after=1)  # a raw OSError from luma's data(), not DeviceNotFoundError
    assert not screen.show(frames[1])
    assert screen.failing
    assert screen.show(frames[2])
    assert same_pixels(fakeos.panel(chip, "ssd1306", 128, 64), frames[2])
    assert len(_messages(caplog, "table")) == 2


def test_retrying_a_display_that_stays_away_leaks_nothing(linux):
    chip = linux.i2c_display()
    factory = _i2c_factory()
    screen = Screen("table", factory(), reopen=factory)
    chip.unplug()
    for n in range(200):
        screen.show(render_table(TableView("red", 52 - n % 40), (128, 64), "1"))
    assert linux.open_files == []  # the old device's bus was released, each failed open closed its own
    chip.plug()
    assert screen.show(render_table(TableView("red", 1), (128, 64), "1"))
    assert linux.open_files == ["/dev/i2c-1"]


def test_off_blanks_every_display_that_answers_and_never_raises(monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="baccarat")
    with fakeos.installed(monkeypatch) as linux:
        placard, table = linux.i2c_display(1, 0x3C), linux.i2c_display(1, 0x3D)
        bets = linux.spi_device(0, 0, dc=24)
        opens = {
            "placard": _i2c_factory("ssd1306", (128, 32), 0x3C),
            "table": _i2c_factory("ssd1306", (128, 64), 0x3D),
            "bets": lambda: open_device("sh1106", "spi", width=128, height=64, dc=24, reset=25),
        }
        screens = {role: Screen(role, open_(), reopen=open_) for role, open_ in opens.items()}
        screens["placard"].show(Image.new("1", (128, 32), 1))
        screens["table"].show(Image.new("1", (128, 64), 1))
        screens["bets"].show(Image.new("1", (128, 64), 1))
        table.unplug()
        screens["table"].show(Image.new("1", (128, 64), 0))  # failing now
        placard.unplug()  # went between the last frame and SIGTERM
        for screen in screens.values():  # the daemon's _shutdown
            screen.off()
        bets_ram = fakeos.PageRam("sh1106", columns=132).feed(bets.writes)
        assert not bets_ram.on and bets_ram.image(128, 64, 2).getbbox() is None
        warnings = [r for r in caplog.records if "did not blank" in r.getMessage()]
        assert sorted(r.getMessage().split()[1] for r in warnings) == ["placard", "table"]
        table.plug()  # a failing display that answers again by SIGTERM is blanked
        screens["table"].off()
        table_ram = fakeos.PageRam("ssd1306").feed(table.writes)
        assert not table_ram.on and table_ram.image(128, 64).getbbox() is None


def test_the_framebuffered_drivers_are_luma_s_classes_made_once_when_first_asked_for():
    from firmware.devices.oled_drivers import FRAMEBUFFER_DRIVERS

    assert sorted(FRAMEBUFFER_DRIVERS) == ["ssd1322", "ssd1325", "ssd1327", "ssd1331", "ssd1351", "ssd1362"]
    made = FRAMEBUFFER_DRIVERS["ssd1351"]
    assert made is FRAMEBUFFER_DRIVERS["ssd1351"] and issubclass(made, stock.ssd1351) and made.__name__ == "ssd1351"
    assert "ssd1306" not in FRAMEBUFFER_DRIVERS
    with pytest.raises(KeyError):
        FRAMEBUFFER_DRIVERS["ssd1306"]


def test_a_framebuffered_display_that_failed_half_way_is_blanked_in_full(linux, caplog):
    """luma's diff_to_previous keeps the last frame that went through whole; after a frame
    that failed half way the panel holds parts of it, so the Screen starts the diff afresh."""
    node = linux.spi_device(0, 0, dc=24)
    screen = Screen("bets", open_device("ssd1351", "spi", width=128, height=128, dc=24, reset=25))
    before = Image.new("RGB", (128, 128))
    ImageDraw.Draw(before).rectangle((0, 0, 20, 20), fill="white")  # top left segment
    screen.show(before)
    half = Image.new("RGB", (128, 128))
    ImageDraw.Draw(half).rectangle((0, 70, 20, 80), fill="white")  # third row of segments
    ImageDraw.Draw(half).rectangle((110, 110, 127, 127), fill="white")  # last segment
    node.fail_next(1, after=2 * 6)  # two segments go through (6 transfers each), the last one fails
    assert not screen.show(half) and screen.failing
    ram = fakeos.WindowRam("ssd1351").feed(node.writes)
    assert any(ram.rgb565(128, 128)[75]), "the failed frame left its middle part on the panel"
    screen.off()
    ram = fakeos.WindowRam("ssd1351").feed(node.writes)
    assert not any(any(row) for row in ram.rgb565(128, 128)) and not ram.on


def test_a_missing_display_is_left_alone(linux):
    screen = Screen("placard", None)
    assert not screen.show(Image.new("1", (128, 32)))
    screen.off()
    screen.close()


# -- check-config asks luma, touching no bus --------------------------------------------------------

DRIVERS = ("ssd1306", "sh1106", "ssd1309", "sh1107", "ssd1322", "ssd1325", "ssd1327", "ssd1362", "ssd1351", "ssd1331")
GOOD_SIZES = {
    "ssd1306": (128, 64),
    "sh1106": (128, 64),
    "ssd1309": (128, 64),
    "sh1107": (64, 128),
    "ssd1322": (256, 64),
    "ssd1325": (128, 64),
    "ssd1327": (128, 128),
    "ssd1362": (256, 64),
    "ssd1351": (128, 128),
    "ssd1331": (96, 64),
}


@pytest.mark.parametrize("driver", DRIVERS)
def test_check_display_asks_luma_without_a_bus(monkeypatch, driver):
    size = GOOD_SIZES[driver]
    spi_pins = {"dc": 24, "reset": 25}
    with fakeos.installed(monkeypatch, gpio="missing") as linux:  # no /dev node, no GPIO library
        assert check_display(driver, "spi", *size, **spi_pins) is None
        assert check_display(driver, "spi", *size, rotate=3, **spi_pins) is None
        refusal = check_display(driver, "spi", 100, size[1], **spi_pins)
        assert refusal == (
            f"luma.oled's {driver} does not support width = 100, height = {size[1]}"
            f" (Unsupported display mode: 100 x {size[1]})"
        )
        assert check_display(driver, "spi", *size, rotate=4, **spi_pins) == (
            f"luma.oled's {driver} does not support rotate = 4"
        )
        over_i2c = check_display(driver, "i2c", *size)
        if driver == "ssd1325":  # its init sequence is one command of more than 32 bytes
            assert over_i2c == (
                'luma.oled\'s ssd1325 does not work with interface = "i2c" (its init sequence is one command'
                ' longer than the 32 bytes luma\'s I2C interface sends at once): use "spi"'
            )
        else:
            assert over_i2c is None
        assert linux.open_files == [] and linux.gpio.history == []


def test_check_display_reports_the_interface_s_objections():
    assert check_display("ssd1306", "spi", 128, 64, bus_speed_hz=3_000_000) == (
        "luma's SPI interface does not support bus_speed_hz = 3000000"
    )
    assert (
        check_display("ssd1306", "i2c", 128, 64, address="0xZZ")
        == "luma's I2C interface does not take address = '0xZZ'"
    )
    assert check_display("ssd9999", "i2c", 128, 64) == "unknown display driver 'ssd9999'"
    assert check_display("ssd1306", "usb", 128, 64) == "unknown display interface 'usb'"
    assert devices_oled.NullBus().writebytes([1]) is None


def test_run_names_a_size_luma_refuses_when_the_display_fails_to_open(linux, mock_factory, tmp_path, capsys, caplog):
    """`baccarat run` on a Pi asks luma about a display's settings only when its open fails (each
    device is built once per start): a size luma refuses is still one line and exit 2, not a
    display "missing" and retried, and the display opened before it is blanked and released."""
    placard = linux.i2c_display(1, 0x3C)
    linux.i2c_display(1, 0x3D)
    linux.spi_device(0, 0, dc=24)
    text = DEFAULT_CONFIG.read_text(encoding="utf-8")
    assert "address = 0x3D\nwidth = 128" in text
    config = tmp_path / "config.toml"
    config.write_text(
        text.replace("address = 0x3D\nwidth = 128", "address = 0x3D\nwidth = 100")
        + f'\n[state]\nfile = "{tmp_path / "state.json"}"\n\n[control]\nsocket = "{tmp_path / "c.sock"}"\n',
        encoding="utf-8",
    )
    with caplog.at_level(logging.INFO):
        assert cli.main(["run", "--config", str(config)]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error" in line.lower()]
    assert errors == [
        f"baccarat run: error: {config}: [[displays]] table: luma.oled's ssd1306 does not support width = 100, "
        "height = 64 (Unsupported display mode: 100 x 64)"
    ]
    assert not [r for r in caplog.records if "missing" in r.getMessage()], "a refused size is not a missing display"
    ram = fakeos.PageRam("ssd1306", pages=4).feed(placard.writes)
    assert placard.writes and not ram.on and not any(any(page) for page in ram.ram), "the placard ends blank and off"
    assert linux.open_files == [], "every bus opened is closed again"
    assert mock_factory.pin(17).state == 0 and mock_factory.pin(27).state == 0, "the status light is off"


def test_a_display_that_does_not_answer_is_asked_about_its_settings_once(linux, monkeypatch):
    """A display that keeps failing to open (retried every second) is not checked again each time."""
    spec = DisplaySpec("placard", "ssd1306", "i2c", 128, 32, address=0x3E)  # no display at 0x3E
    linux.i2c_bus(1)
    asked = []
    original = displays.check_spec
    monkeypatch.setattr(displays, "check_spec", lambda s: asked.append(s) or original(s))
    displays._problem.cache_clear()
    for _ in range(3):
        with pytest.raises(luma.core.error.DeviceNotFoundError):
            displays.open_luma_device(spec)
    displays._problem.cache_clear()
    assert asked == [spec]
    assert linux.open_files == []


# -- the daemon, a loose wire mid-deal and SIGTERM ------------------------------------------------------


def test_a_loose_table_wire_mid_deal_the_game_goes_on_and_sigterm_blanks_what_answers(monkeypatch, rig_factory, caplog):
    from firmware.devices.displays import open_luma_device

    caplog.set_level(logging.INFO, logger="baccarat")
    with fakeos.installed(monkeypatch) as linux:
        placard, table = linux.i2c_display(1, 0x3C), linux.i2c_display(1, 0x3D)  # the reference config's wiring
        bets = linux.spi_device(0, 0, dc=24)
        rig = rig_factory(device_factory=open_luma_device)
        daemon = rig.daemon

        def shows_its_picture(role: str, target, driver: str, size) -> bool:
            picture = daemon.call(lambda: daemon.picture(role)).result(5)
            return same_pixels(fakeos.panel(target, driver, *size), picture)

        assert shows_its_picture("placard", placard, "ssd1306", (128, 32))
        assert shows_its_picture("table", table, "ssd1306", (128, 64))
        assert shows_its_picture("bets", bets, "sh1106", (128, 64))

        game = daemon.module.next_round()
        assert game.winner != "tie", "pick a seed whose next round is not a tie"
        rig.chips("banker" if game.winner == "player" else "player", 25)  # a losing bet: a strike
        table.unplug()  # EREMOTEIO from the table's address from now on
        rig.deal()
        strike = rig.wait_for("strike")
        daemon.wait_idle()
        assert strike.reason == "loss"
        assert rig.kinds().count("card") == len(game.order)  # every card was dealt
        assert any(state.state for state in daemon.board.status.red.pin.states)  # the red light flashed
        failures = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert [r.getMessage().split(" (")[0] for r in failures] == ["display table stopped answering"]
        assert not [r for r in caplog.records if r.exc_info]  # no traceback anywhere

        table.plug()  # the daemon retries every second by itself
        deadline = time.monotonic() + 4
        while not shows_its_picture("table", table, "ssd1306", (128, 64)):
            assert time.monotonic() < deadline, "the table display was not redrawn after it came back"
            time.sleep(0.05)
        assert fakeos.PageRam("ssd1306").feed(table.writes).on
        assert len(_messages(caplog, "table")) == 2  # stopped answering, answers again

        chip = daemon.module.denomination
        rig.tap("right")  # the game goes on after the round
        assert daemon.module.denomination > chip
        table.unplug()
        placard_before = placard.mark()
        daemon.stop()  # SIGTERM
        for target, driver, size in ((placard, "ssd1306", (128, 32)), (bets, "sh1106", (128, 64))):
            ram = fakeos.PageRam(driver, columns=132 if driver == "sh1106" else 128).feed(target.writes)
            shown = ram.image(*size, 2 if driver == "sh1106" else 0)
            assert shown.getbbox() is None and not ram.on, f"{driver} was not blanked"
        assert placard.bytes_since(placard_before) > 0
        assert [r.getMessage().split(":")[0] for r in caplog.records if "did not blank" in r.getMessage()] == [
            "display table did not blank"
        ]


def test_the_bit_reversal_table_reverses_every_byte():
    assert devices_oled._REVERSED_BITS == bytes(int(f"{i:08b}"[::-1], 2) for i in range(256))


# -- the original's deal on the recorded bus ------------------------------------------------------------


def test_a_deal_on_the_recorded_bus_shows_the_originals_frames_at_their_moments(monkeypatch, rig_factory):
    """luma's real drivers over the fake kernel, the daemon's schedule on a clock the test moves a
    sixteenth of a second at a time: each frame (stamped with the daemon's own clock) at the
    spec's moment, the panel showing the picture after each, and the bytes of the whole deal.
    The reference deck's first round: six cards, banker wins, a $25 bet on Player lost."""
    from firmware.devices.displays import open_luma_device
    from firmware.simulator.pins import ManualClock
    from tests.conftest import make_config

    with fakeos.installed(monkeypatch) as linux:
        linux.i2c_display(1, 0x3C)  # the placard
        ends = {"table": (linux.i2c_display(1, 0x3D), "ssd1306"), "bets": (linux.spi_device(0, 0, dc=24), "sh1106")}
        clock = ManualClock(0.0)
        rig = rig_factory(
            make_config(timing={"pacing": "original"}), device_factory=open_luma_device, schedule_clock=clock
        )
        daemon = rig.daemon
        rig.chips("player", 25)
        marks = {role: end.mark() for role, (end, _) in ends.items()}
        frames: list[tuple[float, str, int, bool]] = []  # moment, role, bytes sent, the panel shows the picture

        def sent(role: str, image: Image.Image) -> None:
            if role in ends:
                end, driver = ends[role]
                frames.append(
                    (
                        clock(),
                        role,
                        end.bytes_since(marks[role]),
                        same_pixels(fakeos.panel(end, driver, 128, 64), image),
                    )
                )
                marks[role] = end.mark()

        daemon.on_frame.append(sent)
        rig.driver.tap("deal")
        daemon.catch_up()
        while daemon.call(lambda: daemon.dealing, during_round=True).result(5):
            clock.advance(1 / 16)
            daemon.catch_up()
        daemon.wait_idle()

    lands = [0, 0.25, 0.5, 0.75, 2.5, 4.5]
    table = [at for at, role, _, _ in frames if role == "table"]
    assert table == sorted([*lands, *(t + 1 for t in lands), 6.75])  # 6 card backs, 6 flips, the result
    assert [at for at, role, _, _ in frames if role == "bets"] == [6.75]  # the lost bet leaves at the payout
    assert all(shows for *_, shows in frames), "a panel does not show its picture"
    cards = [size for at, role, size, _ in frames if role == "table" and at < 6.75]
    assert 0 < max(cards) and sum(cards) / len(cards) <= 500, cards  # each back and flip: a few pages
    whole = sum(size for _, role, size, _ in frames if role == "table")
    assert whole <= 13 * FULL_SSD1306_128x64_I2C / 8, whole  # the whole deal: an eighth of 13 full frames
