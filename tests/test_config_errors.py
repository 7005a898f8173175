"""What a person sees when a config file is wrong: one line that names the file or the key,
in YAML's words (null, list, mapping), quoting at most a few dozen characters."""

from __future__ import annotations

import pytest

from catena_zero.config import Config, ConfigError, config_from_dict, load_config


def error_of(path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message and len(message) < 400, message[:400]
    return message


def test_binary_junk_names_the_file(tmp_path):
    junk = tmp_path / "junk.yaml"
    junk.write_bytes(bytes(range(256)) * 4)
    assert error_of(junk).startswith(f"{junk}: not a text file (invalid UTF-8 at byte 128)")
    nul = tmp_path / "nul.yaml"
    nul.write_bytes(b"game:\n  side: 3\x00\x00\n" + b"\x00" * 100_000)
    message = error_of(nul)
    assert message.startswith(f"{nul}: invalid YAML: character U+0000 at position 15 is not allowed")


def test_an_empty_section_means_its_defaults(tmp_path):
    """``game:`` with every key commented out is YAML null: the section's defaults, not an error
    about a NoneType."""
    path = tmp_path / "c.yaml"
    path.write_text("game:\n  # side: 4\nsearch:\nseed: 3\n")
    config = load_config(path)
    assert config.game == Config().game and config.search == Config().search and config.seed == 3


@pytest.mark.parametrize(
    "data, message",
    [
        ({"game": [1, 2]}, "game must be a mapping of keys to values, got a list"),
        ({"game": "side 3"}, "game must be a mapping of keys to values, got 'side 3'"),
        ({"net": {"blocks": None}}, "net.blocks must be an integer, got nothing (null)"),
        ({"net": {"blocks": [3]}}, "net.blocks must be an integer, got a list"),
        ({"search": {"tree_reuse": "yes"}}, "search.tree_reuse must be true or false, got 'yes'"),
        ({"game": {1: 2, "sides": 3}}, "unknown key game.1 "),
    ],
)
def test_messages_use_yaml_words(data, message):
    with pytest.raises(ConfigError) as info:
        config_from_dict(data)
    assert str(info.value).startswith(message), str(info.value)
    assert "NoneType" not in str(info.value)


def test_huge_values_and_keys_are_quoted_short():
    for data in ({"net": {"device": "x" * 10_000_000}}, {"net": {"blocks": "\0" * 100_000}},
                 {"game": {"k" * 10_000_000: 1}}):
        with pytest.raises(ConfigError) as info:
            config_from_dict(data)
        assert len(str(info.value)) < 400, str(info.value)[:400]
