"""firmware.config.perms: the warning for a config that shows its password to every user."""

from __future__ import annotations

import logging

from firmware.config.perms import readable_by_others, warn_if_readable

CONFIG = '[mqtt]\nhost = "broker"\nusername = "prop"\npassword = "hunter2-secret"\n'


def _config(tmp_path, mode: int):
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    path.chmod(mode)
    return path


def test_a_world_readable_config_with_a_password_is_warned_about_once(tmp_path, caplog):
    path = _config(tmp_path, 0o644)
    with caplog.at_level(logging.WARNING, logger="baccarat"):
        first = warn_if_readable(path, has_secret=True)
        second = warn_if_readable(path, has_secret=True)
    assert first == (
        f"{path} holds a password and every user can read it (mode 0644); "
        f"make it private: chmod o-r {path} (with sudo if root owns it)"
    )
    assert second is None
    assert [r.getMessage() for r in caplog.records] == [first]
    assert "hunter2" not in caplog.text


def test_a_config_for_owner_and_group_only_is_fine(tmp_path, caplog):
    path = _config(tmp_path, 0o640)
    assert not readable_by_others(path)
    with caplog.at_level(logging.WARNING, logger="baccarat"):
        assert warn_if_readable(path, has_secret=True) is None
    assert caplog.records == []


def test_no_secret_no_warning(tmp_path, caplog):
    path = _config(tmp_path, 0o644)
    assert readable_by_others(path)
    with caplog.at_level(logging.WARNING, logger="baccarat"):
        assert warn_if_readable(path, has_secret=False) is None
    assert caplog.records == []


def test_a_missing_file_is_left_to_the_loader(tmp_path):
    assert warn_if_readable(tmp_path / "absent.toml", has_secret=True) is None
