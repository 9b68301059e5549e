"""ServerSettings from flags, a TOML file with a [server] section, and the token variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from remem.errors import ConfigError
from remem.extraction import RuleExtractor
from remem.service.auth import TOKEN_ENV, check_binding, is_loopback
from remem.service.settings import ServerSettings


def test_the_server_section_is_read_and_the_rest_goes_to_the_runtime(tmp_path: Path) -> None:
    config = tmp_path / "remem.toml"
    config.write_text(
        f'path = "{tmp_path / "m"}"\n[embeddings]\nprovider = "hashing"\n'
        '[server]\nhost = "0.0.0.0"\nport = 9000\ntoken = "from-the-file-0123456789"\n'
        'namespaces = ["ana", "bob"]\n',
        encoding="utf-8",
    )
    settings = ServerSettings.load(config_file=config, environ={})
    assert (settings.host, settings.port) == ("0.0.0.0", 9000)
    assert settings.token == "from-the-file-0123456789"
    assert settings.service.namespaces == ("ana", "bob")
    assert settings.service.namespace == "ana"
    assert settings.runtime.embedding_provider == "hashing"
    assert settings.runtime.path == tmp_path / "m"
    env = ServerSettings.load(config_file=config, environ={TOKEN_ENV: "from-the-env-0123456789"})
    assert env.token == "from-the-env-0123456789"
    assert "from-the" not in repr(env)


def test_a_public_host_without_a_token_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="REMEM_SERVER_TOKEN"):
        ServerSettings.load(path=tmp_path, host="0.0.0.0", environ={})
    with pytest.raises(ConfigError, match="16 characters"):
        check_binding("127.0.0.1", "short")
    assert ServerSettings.load(path=tmp_path, environ={}).token is None
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("192.168.1.10")


def test_unknown_server_keys_and_bad_ports_are_config_errors(tmp_path: Path) -> None:
    config = tmp_path / "remem.toml"
    config.write_text('[server]\nhots = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[server\] takes only"):
        ServerSettings.load(config_file=config, environ={})
    with pytest.raises(ConfigError, match="port"):
        ServerSettings.load(path=tmp_path, port=70000, environ={})


def test_a_server_extracts_recorded_turns_unless_told_not_to(tmp_path: Path) -> None:
    settings = ServerSettings.load(path=tmp_path / "m", embeddings="hashing", environ={})
    assert settings.extract == "rules"
    assert isinstance(settings.open_runtime().extractor, RuleExtractor)
    config = tmp_path / "remem.toml"
    config.write_text('[server]\nextract = "off"\n', encoding="utf-8")
    off = ServerSettings.load(config_file=config, path=tmp_path / "m", environ={})
    assert off.open_runtime().extractor is None
    config.write_text('[server]\nextract = "llm"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="extract must be one of 'rules', 'off'"):
        ServerSettings.load(config_file=config, path=tmp_path / "m", environ={})
