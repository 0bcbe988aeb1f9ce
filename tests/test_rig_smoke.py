from tests.pixels import find_text


def test_chip_press_shows_on_bets_display(rig):
    rig.tap("player")
    assert rig.daemon.module.stacks["player"] == [1]
    assert find_text(rig.frame("bets"), "$1") is not None
