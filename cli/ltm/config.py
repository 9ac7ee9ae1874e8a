"""Where the client keeps its token and settings: the same files the Go `ltm` client uses.

`credentials` holds the token and a newline (mode 0600, folder 0700); `config.toml` holds flat
keys (`host = "..."`, `user`, `output`, `lenient`, `editor`). Sharing the files lets a person
switch between the Go and the Python client at any time.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import tomli_w

from .errors import ConfigError
from .protocol.strict_json import TOO_DEEP, JSONLimitError, check_depth

CREDENTIALS_FILE = "credentials"
CONFIG_FILE = "config.toml"

# The keys `ltm config` knows, with their defaults (as the Go client reads them).
DEFAULTS: dict[str, str | bool] = {
    "host": "",
    "user": "",
    "output": "human",
    "lenient": False,
    "editor": "",
}
KEYS = sorted(DEFAULTS)
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off", ""}


def config_dir() -> Path:
    """$LTM_CONFIG_DIR, else $XDG_CONFIG_HOME/ltm, else ~/.config/ltm."""
    if os.environ.get("LTM_CONFIG_DIR"):
        return Path(os.environ["LTM_CONFIG_DIR"])
    if os.environ.get("XDG_CONFIG_HOME"):
        return Path(os.environ["XDG_CONFIG_HOME"]) / "ltm"
    return Path.home() / ".config" / "ltm"


def credentials_path() -> Path:
    return config_dir() / CREDENTIALS_FILE


def config_path() -> Path:
    return config_dir() / CONFIG_FILE


# --- credentials -------------------------------------------------------------------------


def read_token() -> str | None:
    """The stored token, or None when there is none."""
    try:
        token = credentials_path().read_text("utf-8").strip()
    except FileNotFoundError:
        return None
    return token or None


def write_token(token: str) -> Path:
    """Store the token (and a newline) readable by the owner only."""
    path = credentials_path()
    _write_private(path, token.strip() + "\n")
    return path


# --- config.toml -------------------------------------------------------------------------


def read_config_file() -> dict:
    """The raw TOML table, empty when the file does not exist."""
    path = config_path()
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
        # tomli_w recurses too, when `ltm config set` writes the file back; the keys are flat.
        check_depth(data)
    except FileNotFoundError:
        return {}
    except RecursionError:  # tomllib recurses once a level
        raise ConfigError(f"cannot read {path}: {TOO_DEEP}; fix or delete the file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, JSONLimitError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}; fix or delete the file") from None
    return data


# Environment variables that override the file, first set wins (the Go client reads LTM_HOST,
# LTM_USER and LTM_OUTPUT; LTM_HUB_URL is this client's own name for the host).
ENV_OVERRIDES: dict[str, tuple[str, ...]] = {
    "host": ("LTM_HUB_URL", "LTM_HOST"),
    "user": ("LTM_USER",),
    "output": ("LTM_OUTPUT",),
}


def load_config() -> dict:
    """Every known key with its value from the environment, else the file, else its default
    (what `ltm config get` and `ltm config list` show, as the Go client does)."""
    values = dict(DEFAULTS)
    for key, value in read_config_file().items():
        if key in DEFAULTS:
            values[key] = value
    for key, names in ENV_OVERRIDES.items():
        for name in names:
            if os.environ.get(name):
                values[key] = os.environ[name]
                break
    if not values["output"]:
        values["output"] = "human"
    return values


def config_get(key: str) -> str:
    _check_key(key)
    return _show(load_config()[key])


def config_set(key: str, value: str) -> None:
    _check_key(key)
    data = read_config_file()
    data[key] = _parse_bool(value) if isinstance(DEFAULTS[key], bool) else value
    _save(data)


def config_unset(key: str) -> None:
    _check_key(key)
    data = read_config_file()
    data.pop(key, None)
    _save(data)


def config_list() -> list[tuple[str, str]]:
    values = load_config()
    return [(key, _show(values[key])) for key in KEYS]


def configured_host() -> str | None:
    """The hub to talk to: $LTM_HUB_URL, else $LTM_HOST (the Go client's), else config `host`."""
    return load_config()["host"] or None


def host_source() -> str | None:
    """Where configured_host() found the address, in words for messages; None without one."""
    for name in ENV_OVERRIDES["host"]:
        if os.environ.get(name):
            return f"set by {name}"
    return "see `ltm config get host`" if load_config()["host"] else None


def _save(data: dict) -> None:
    # Leave empty values out, as the Go client does, so both write the same file.
    kept = {key: value for key, value in data.items() if value not in ("", False, None)}
    _write_private(config_path(), tomli_w.dumps(kept))


def _write_private(path: Path, text: str) -> None:
    """Write a file of mode 0600 inside a folder of mode 0700 (the folder only when we make it)."""
    folder = path.parent
    if not folder.exists():
        folder.mkdir(parents=True, mode=0o700)
        folder.chmod(0o700)  # mkdir's mode is filtered by the umask
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)  # a crash mid-write never leaves half a token behind


def _check_key(key: str) -> None:
    if key not in DEFAULTS:
        raise ConfigError(f"unknown config key {key!r}; try one of: {', '.join(KEYS)}")


def _parse_bool(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigError(f"not a boolean: {value!r}; use true or false")


def _show(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
