"""`ltm config get|set|unset|list|path|edit`: the settings in config.toml."""

from __future__ import annotations

from .. import verbs
from ..config import KEYS, config_get, config_list, config_path, config_set, config_unset


def register(add) -> None:
    config = add("config", cmd_config, f"read and change settings ({', '.join(KEYS)})")
    config_verbs = config.add_subparsers(dest="config_action", metavar="<action>", required=True)
    config_verbs.add_parser("path", help="print the config file's path")
    config_verbs.add_parser("list", help="print every setting")
    config_verbs.add_parser("get", help="print one setting").add_argument("key", choices=KEYS, help="the setting")
    setter = config_verbs.add_parser("set", help="change one setting")
    setter.add_argument("key", choices=KEYS, help="the setting")
    setter.add_argument("value", help="its new value")
    config_verbs.add_parser("unset", help="reset one setting").add_argument("key", choices=KEYS, help="the setting")
    config_verbs.add_parser("edit", help="open the config file in the config `editor`, $EDITOR or vi")


def cmd_config(args) -> int:
    action = args.config_action
    if action == "path":
        print(config_path())
    elif action == "list":
        for key, value in config_list():
            print(f"{key} = {value}")
    elif action == "get":
        print(config_get(args.key))
    elif action == "set":
        config_set(args.key, args.value)
    elif action == "unset":
        config_unset(args.key)
    elif action == "edit":
        return 0 if verbs.edit_config() == 0 else 1
    return 0
