"""The credential and config files: the same paths, modes and TOML keys as the Go client."""

import stat
import tomllib

import pytest

from ltm import config
from ltm.main import main


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_dir_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("LTM_CONFIG_DIR", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert config.config_dir() == tmp_path / "home" / ".config" / "ltm"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config.config_dir() == tmp_path / "xdg" / "ltm"
    monkeypatch.setenv("LTM_CONFIG_DIR", str(tmp_path / "explicit"))
    assert config.config_dir() == tmp_path / "explicit"
    assert config.credentials_path() == tmp_path / "explicit" / "credentials"
    assert config.config_path() == tmp_path / "explicit" / "config.toml"


def test_token_file_is_private(config_dir):
    assert config.read_token() is None
    config.write_token("ltm_abc123")
    path = config_dir / "credentials"
    assert path.read_text() == "ltm_abc123\n"
    assert mode(path) == 0o600
    assert mode(config_dir) == 0o700
    assert config.read_token() == "ltm_abc123"


def test_rewriting_a_loose_token_file_makes_it_private(config_dir):
    config_dir.mkdir()
    (config_dir / "credentials").write_text("old\n")
    (config_dir / "credentials").chmod(0o644)
    config.write_token("new")
    assert mode(config_dir / "credentials") == 0o600
    assert config.read_token() == "new"


def test_reads_a_config_written_by_the_go_client(config_dir):
    config_dir.mkdir()
    (config_dir / "config.toml").write_text(
        'host = "https://hub.example.com"\nuser = "anna"\noutput = "json"\nlenient = true\neditor = "vim"\n'
    )
    assert config.load_config() == {
        "host": "https://hub.example.com",
        "user": "anna",
        "output": "json",
        "lenient": True,
        "editor": "vim",
    }
    assert config.config_get("lenient") == "true"
    assert config.configured_host() == "https://hub.example.com"


def test_defaults_when_there_is_no_file(config_dir):
    assert config.config_get("output") == "human"
    assert config.config_get("lenient") == "false"
    assert config.configured_host() is None


def test_writes_flat_toml_keys_the_go_client_reads(config_dir):
    config.config_set("host", "https://hub.example.com")
    config.config_set("lenient", "yes")
    text = (config_dir / "config.toml").read_text()
    assert 'host = "https://hub.example.com"' in text.splitlines()
    assert "lenient = true" in text.splitlines()
    assert tomllib.loads(text) == {"host": "https://hub.example.com", "lenient": True}
    assert mode(config_dir / "config.toml") == 0o600
    config.config_unset("lenient")
    assert tomllib.loads((config_dir / "config.toml").read_text()) == {"host": "https://hub.example.com"}


def test_unknown_keys_in_the_file_survive_a_write(config_dir):
    config_dir.mkdir()
    (config_dir / "config.toml").write_text('future_key = "kept"\n')
    config.config_set("user", "anna")
    assert tomllib.loads((config_dir / "config.toml").read_text()) == {"future_key": "kept", "user": "anna"}


def test_env_host_wins_over_the_file(config_dir, monkeypatch):
    config.config_set("host", "https://file.example.com")
    monkeypatch.setenv("LTM_HOST", "https://go-env.example.com")
    assert config.configured_host() == "https://go-env.example.com"
    monkeypatch.setenv("LTM_HUB_URL", "https://env.example.com")
    assert config.configured_host() == "https://env.example.com"


def test_bad_values_are_refused(config_dir):
    with pytest.raises(config.ConfigError, match="not a boolean"):
        config.config_set("lenient", "maybe")
    with pytest.raises(config.ConfigError, match="unknown config key"):
        config.config_get("colour")


def test_config_commands(config_dir, capsys):
    assert main(["config", "set", "host", "https://hub.example.com"]) == 0
    assert main(["config", "get", "host"]) == 0
    assert capsys.readouterr().out == "https://hub.example.com\n"
    assert main(["config", "list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["editor = ", "host = https://hub.example.com", "lenient = false", "output = human", "user = "]
    assert main(["config", "path"]) == 0
    assert capsys.readouterr().out.strip() == str(config_dir / "config.toml")
    assert main(["config", "unset", "host"]) == 0
    assert main(["config", "get", "host"]) == 0
    assert capsys.readouterr().out == "\n"
    assert main(["config", "set", "lenient", "maybe"]) == 1
    assert "not a boolean" in capsys.readouterr().err
    assert main(["config", "get", "colour"]) == 2


def test_broken_config_file_is_reported(config_dir, capsys):
    config_dir.mkdir()
    (config_dir / "config.toml").write_text("host = \n")
    assert main(["config", "get", "host"]) == 1
    assert "fix or delete the file" in capsys.readouterr().err


@pytest.mark.parametrize("nested", ["[" * 100_000, "[" * 300 + "]" * 300], ids=["past-the-reader", "past-the-writer"])
def test_a_deeply_nested_config_file_is_reported_not_crashed(config_dir, capsys, nested):
    config_dir.mkdir()
    (config_dir / "config.toml").write_text(f"x = {nested}\n")
    assert main(["config", "set", "host", "hub.example.com"]) == 1
    err = capsys.readouterr().err
    assert "config.toml: nested more than 32 levels deep; fix or delete the file" in err


def test_env_overrides_show_in_config_get_and_list_as_in_the_go_client(config_dir, monkeypatch, capsys):
    """The Go client's Resolve: LTM_HOST, LTM_USER and LTM_OUTPUT win over the file, and
    `config get` / `config list` show the resolved values."""
    assert main(["config", "set", "user", "file-user"]) == 0
    monkeypatch.setenv("LTM_HOST", "https://env.example")
    monkeypatch.setenv("LTM_USER", "env-user")
    monkeypatch.setenv("LTM_OUTPUT", "json")
    capsys.readouterr()
    assert main(["config", "get", "host"]) == 0
    assert main(["config", "get", "user"]) == 0
    assert main(["config", "get", "output"]) == 0
    assert capsys.readouterr().out == "https://env.example\nenv-user\njson\n"
    assert main(["config", "list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert "user = env-user" in listed and "output = json" in listed
    # the file itself keeps what was set there
    assert tomllib.loads(config.config_path().read_text()) == {"user": "file-user"}


def test_config_edit_opens_the_configured_editor(config_dir, monkeypatch):
    """`ltm config edit`, as the Go client: the config `editor`, else $EDITOR, else vi."""
    calls = []
    monkeypatch.setattr("ltm.verbs.account.subprocess.call", lambda argv: calls.append(argv) or 0)
    monkeypatch.setenv("EDITOR", "nano")
    assert main(["config", "edit"]) == 0
    assert main(["config", "set", "editor", "code --wait"]) == 0
    assert main(["config", "edit"]) == 0
    monkeypatch.setattr("ltm.verbs.account.subprocess.call", lambda argv: calls.append(argv) or 3)
    assert main(["config", "edit"]) == 1  # the editor failed
    path = str(config.config_path())
    assert calls == [["nano", path], ["code", "--wait", path], ["code", "--wait", path]]
