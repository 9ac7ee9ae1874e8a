"""Pins on the third-party internals the hub relies on.

Where the hub's code overrides or calls a library's private (underscore) member, or leans on an
undocumented behaviour, and no public extension point serves, a test here fails when the library
changes under it: the installed version is the one requirements.txt pins, the member still has
the signature we override, and the behaviour we rely on still happens. Each failure message names
the override and why it exists, so an upgrade that breaks one fails CI loudly instead of the hub
misbehaving quietly.

PRIVATE_USES lists every use of a library's private member in the hub's code (every package
.importlinter names; not tests or migrations); `test_no_new_private_use_of_a_library` fails on
one it does not list. Django's documented `_meta`, `_state` and `_base_manager`, and namedtuple's `_replace`, are
public API. The pins themselves are in test_pins_database.py (psycopg, Django's connection,
sessions and handler) and test_pins_web_libraries.py (django-redis, allauth, the OAuth toolkit,
django-csp, drf-spectacular).
"""

import ast
import importlib
import importlib.metadata
import inspect
import re
import warnings

import pytest

from hub.testing import ROOT, root_packages

HUB_PACKAGES = root_packages()
OUR_MODULES = (*HUB_PACKAGES, "ltm", "tests", "conftest")

# Every private member of a library the hub's code touches: where, what, and what pins it. A new
# one fails test_no_new_private_use_of_a_library until it is listed here with a pin, or replaced
# by the library's public extension point.
PRIVATE_USES = {
    "ops/middleware.py:module:_wrapped": (
        "django.utils.functional.LazyObject._wrapped and `empty`: the request log line names the "
        "person only when the page already looked them up (test_lazy_object_keeps_its_wrapped_slot)"
    ),
    "hub/backends/postgresql/base.py:module:_WaitTimeout": (
        "psycopg.errors._WaitTimeout, what Connection.wait raises when its timeout expires: the "
        "answer timeout turns it into OperationalError (test_psycopg_*)"
    ),
    "accounts/sessions.py:SessionStore._session_key": (
        "django SessionBase._session_key setter: an unknown session key is dropped, not adopted, "
        "as Django's own engines do (test_django_session_*)"
    ),
    "oauth/client_views.py:ClientConfigurationView._authenticate_registration_request": (
        "django-oauth-toolkit's registration-token check, run before our redirect URI rule "
        "(test_dot_registration_token_check_*)"
    ),
    "oauth/client_views.py:module:_csp_update": (
        "django-csp's per-response policy update, what csp.decorators.csp_update sets: the consent "
        "page's form-action names the client's origin (test_django_csp_*)"
    ),
    "accounts/oidc/views.py:HubOIDCAdapter._decode_id_token": (
        "allauth's OpenID Connect adapter, where it decodes the ID token and skips the signature "
        "after fetching the token itself: the hub checks it always (test_allauth_oidc_*)"
    ),
    "packets/models/packet.py:module:_iterable_class": (
        "django QuerySet._iterable_class, the class that turns rows into models: with_held hands out "
        "each packet held out for its reader, however the queryset is chained (test_django_queryset_*)"
    ),
    "core/middleware.py:ApiHandler._get_response": (
        "django BaseHandler._get_response, what load_middleware wraps in the middleware: the wire "
        "API's own chain is built around it (test_django_handler_*)"
    ),
    "core/middleware.py:ApiHandler._view_middleware": (
        "django BaseHandler's list of process_view hooks, which _get_response runs (test_django_handler_*)"
    ),
    "core/middleware.py:ApiHandler._template_response_middleware": (
        "django BaseHandler's list of process_template_response hooks (test_django_handler_*)"
    ),
    "core/middleware.py:ApiHandler._exception_middleware": (
        "django BaseHandler's list of process_exception hooks (test_django_handler_*)"
    ),
}
# Underscore names that are public API: Django documents Model._meta, Model._state and
# Model._base_manager, namedtuple documents _replace, _asdict, _fields and _make.
DOCUMENTED = {"_meta", "_state", "_base_manager", "_replace", "_asdict", "_fields", "_make"}


def pinned_version(distribution: str) -> str:
    """The version requirements.txt (or requirements-postgres.txt) pins for `distribution`
    (`name==version`, extras allowed)."""
    wanted = re.sub(r"[-_.]+", "-", distribution).lower()
    pins = "".join((ROOT / name).read_text() for name in ("requirements.txt", "requirements-postgres.txt"))
    for line in pins.splitlines():
        match = re.match(r"^\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?==([^\s#;]+)", line)
        if match and re.sub(r"[-_.]+", "-", match[1]).lower() == wanted:
            return match[3]
    raise AssertionError(f"requirements.txt pins no version of {distribution}")


# What each library is pinned for: the overrides of its internals that a new version may break.
PINNED_FOR = {
    "psycopg": "hub.backends.postgresql.BoundedConnection overrides Connection.wait and catches errors._WaitTimeout",
    "Django": "accounts.sessions.SessionStore drops unknown keys through SessionBase._session_key; "
    "hub.backends.postgresql.DatabaseWrapper.get_new_connection stands in for Django's; "
    "core.middleware.ApiHandler builds a chain as BaseHandler.load_middleware does; "
    "packets.models.PacketQuerySet.with_held sets QuerySet._iterable_class",
    "django-redis": "hub.backends.cache.FailOpenRedisCache wraps RedisCache.client and overrides add",
    "django-allauth": "hub.backends.cache.is_rate_limit_lock recognises allauth's internal rate-limit lock key; "
    "packets.sharing.services reads the share limit's window through allauth.core.internal.ratelimit.get_rates",
    "django-oauth-toolkit": "oauth.client_views calls _authenticate_registration_request; "
    "oauth.apps replaces Application.get_allowed_schemes",
    "django-csp": "oauth.client_views sets response._csp_update",
    "mcp": "mcp_remote.server names serverInfo.version through Server(version=...)",
}


@pytest.mark.parametrize("distribution", sorted(PINNED_FOR))
def test_the_installed_version_is_the_one_requirements_txt_pins(distribution):
    installed, pinned = importlib.metadata.version(distribution), pinned_version(distribution)
    assert installed == pinned, (
        f"{distribution} {installed} is installed, requirements.txt pins {pinned}: the pins in "
        f"hub/tests/test_pins_*.py check the internals {PINNED_FOR[distribution]}; run them "
        "against the version the hub ships"
    )


# --- every private use is listed -----------------------------------------------------------------


def _hub_files():
    for package in HUB_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            if "tests" not in parts and "migrations" not in parts:
                yield path


def _is_ours(module_name: str) -> bool:
    return module_name.split(".")[0] in OUR_MODULES


def _library_classes(cls) -> list[type]:
    return [base for base in cls.__mro__[1:] if base is not object and not _is_ours(base.__module__)]


def _library_defines(cls, name: str) -> bool:
    """Whether a library class `cls` inherits from has `name`, as a class member or in its source
    (attributes its methods set on instances)."""
    for base in _library_classes(cls):
        if name in vars(base):
            return True
        try:
            source = inspect.getsource(base)
        except (OSError, TypeError):
            continue
        if re.search(rf"\b{re.escape(name)}\b", source):
            return True
    return False


def _is_self(node) -> bool:
    if isinstance(node, ast.Name) and node.id in ("self", "cls"):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in DOCUMENTED


def _our_names() -> set[str]:
    """Underscore names the hub's code defines itself (functions, classes, attributes it sets)."""
    names = set()
    for path in _hub_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return {name for name in names if _private(name)}


def _private_uses() -> set[str]:
    ours = _our_names()
    found = set()
    for path in _hub_files():
        relative = path.relative_to(ROOT).as_posix()
        module_name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        tree = ast.parse(path.read_text())
        module = None
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not _is_ours(node.module) and node.level == 0:
                found.update(f"{relative}:module:{alias.name}" for alias in node.names if _private(alias.name))
        for cls_node in [node for node in tree.body if isinstance(node, ast.ClassDef)]:
            module = module or importlib.import_module(module_name)
            cls = getattr(module, cls_node.name, None)
            if not isinstance(cls, type) or not _library_classes(cls):
                continue
            for node in ast.walk(cls_node):
                name = None
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in cls_node.body:
                    name = node.name
                elif isinstance(node, ast.Attribute) and _is_self(node.value):
                    name = node.attr
                if name and _private(name) and _library_defines(cls, name):
                    found.add(f"{relative}:{cls_node.name}.{name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and not _is_self(node.value) and _private(node.attr):
                if node.attr not in ours:
                    found.add(f"{relative}:module:{node.attr}")
    return found


def test_no_new_private_use_of_a_library():
    found = _private_uses()
    new = sorted(found - set(PRIVATE_USES))
    assert not new, (
        "the hub's code uses a library's private member that PRIVATE_USES in "
        f"hub/tests/test_library_pins.py does not list: {new}. Use the library's public extension "
        "point instead, or list it there with a test that fails when the library changes under it."
    )
    gone = sorted(set(PRIVATE_USES) - found)
    if gone:
        warnings.warn(f"PRIVATE_USES lists uses the code no longer has; remove them: {gone}", stacklevel=1)


def test_django_queryset_keeps_its_iterable_class_through_chaining(db, alice):
    from django.db.models.query import ModelIterable, QuerySet

    from packets.models import Packet

    assert issubclass(QuerySet(model=Packet)._iterable_class, ModelIterable), "QuerySet._iterable_class is gone"
    chained = Packet.objects.with_held(alice).filter(pk="none").order_by("pk")
    assert chained._iterable_class.__name__ == "HeldOut", "a chained queryset lost its iterable class"


def test_lazy_object_keeps_its_wrapped_slot():
    from django.utils.functional import SimpleLazyObject, empty

    lazy = SimpleLazyObject(lambda: "looked up")
    assert lazy._wrapped is empty
    str(lazy)
    assert lazy._wrapped == "looked up"
