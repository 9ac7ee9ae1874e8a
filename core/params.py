"""What a /v1 request brings in, read once at the edge: its query parameters and its JSON body go
through a DRF serializer declared with the fields below (`query` and `body`), and the view hands
the typed values to one service or selector. The same serializers describe the parameters and
bodies in the OpenAPI document (`extend_schema(parameters=[TheQuerySerializer])`).

A bad value is a 400 `{"error": ...}` whose message is a sentence naming the field and what it
takes ("limit must be a whole number from 1 to 100; got 'abc'"): the fields word their messages
with `{field}` (and `{got}`, the refused value, quoted and cut short). An empty value
(`?team=`, `{"label": ""}`, `{"label": null}`) counts as absent unless a field says otherwise.
"""

import functools
import re
from types import SimpleNamespace

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import build_choice_field
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.fields import empty
from rest_framework.settings import api_settings

from core.errors import BadRequest

# A whole number as Go's strconv.Atoi reads it: an optional sign, then ASCII digits and nothing
# else (not " 5", "1_0", "٣", "5.0" or "1e1", all of which int() or float() would take). Leading
# zeros are digits like any other; past 19 significant digits no int64 holds the value (and
# int() of a long enough text is refused), so it is no number here either.
WHOLE_NUMBER = re.compile(r"([+-]?)0*([0-9]{1,19})")


def whole_number(text) -> int | None:
    """`text` read as a whole number by the one rule above; None when it is not one."""
    found = WHOLE_NUMBER.fullmatch(text) if isinstance(text, str) else None
    return int(found[1] + found[2]) if found else None


def shown(value) -> str:
    """A refused value as a message quotes it: its repr, cut at about 40 characters."""
    if isinstance(value, str):
        return repr(value[:40])
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


class _Worded:
    """A field whose messages are whole sentences: `{field}` names it, `{got}` quotes what was
    refused. An empty text or a null counts as absent (the default, or `required`) unless
    `empty_is_absent=False`; then it is a value like any other, to accept or refuse."""

    default_error_messages = {
        "required": "{field} is required",
        "null": "{field} must not be null",
        "blank": "{field} must not be empty",
        "invalid": "{field} is not valid; got {got}",
    }

    def __init__(self, *, empty_is_absent: bool = True, **kwargs):
        self.empty_is_absent = empty_is_absent
        super().__init__(**kwargs)

    def run_validation(self, data=empty):
        if self.empty_is_absent and (data is None or (isinstance(data, str) and data == "")):
            data = empty
        return super().run_validation(data)

    def fail(self, key, **kwargs):
        kwargs.setdefault("got", "")
        super().fail(key, field=self.field_name, **kwargs)


@extend_schema_field(OpenApiTypes.INT)
class WholeNumberField(_Worded, serializers.Field):
    """A whole number (the rule of WHOLE_NUMBER) from `min_value` to `max_value`, sent as text (a
    query parameter). With `fallback`, anything else means the default instead of a 400."""

    default_error_messages = {"invalid": "{field} must be a whole number from {min_value} to {max_value}; got {got}"}

    def __init__(self, *, min_value: int, max_value: int, fallback: bool = False, **kwargs):
        self.min_value, self.max_value, self.fallback = min_value, max_value, fallback
        super().__init__(**kwargs)
        assert not fallback or self.default is not empty, "a fallback needs a default"

    def to_internal_value(self, data) -> int:
        value = whole_number(data)
        if value is not None and self.min_value <= value <= self.max_value:
            return value
        if self.fallback:
            return self.get_default()
        self.fail("invalid", min_value=self.min_value, max_value=self.max_value, got=shown(data))

    def to_representation(self, value) -> int:
        return value


class TextField(_Worded, serializers.CharField):
    """A JSON string or a query parameter's text, as sent: no other JSON type is turned into one
    (DRF's CharField takes 7 for "7"), no whitespace is trimmed. Rules a service owns for the API
    and the dashboard alike (a team name's pattern, an e-mail address) stay there; `described`
    adds them to the OpenAPI description (e.g. `{"format": "email"}`). An empty text being absent,
    `allow_blank` only says, in the description, whether one may be sent."""

    default_error_messages = {"invalid": "{field} must be a string; got {got}"}

    def __init__(self, *, described: dict | None = None, **kwargs):
        super().__init__(trim_whitespace=False, **kwargs)
        if described:
            extend_schema_field({"type": "string", **described})(self)

    def to_internal_value(self, data) -> str:
        if not isinstance(data, str):
            self.fail("invalid", got=shown(data))
        return data


@extend_schema_field(OpenApiTypes.BOOL)
class FlagField(_Worded, serializers.Field):
    """A JSON true or false, exactly (DRF's BooleanField takes "yes", 1 and "on" too)."""

    default_error_messages = {"invalid": "{field} must be true or false; got {got}"}

    def to_internal_value(self, data) -> bool:
        if isinstance(data, bool):
            return data
        self.fail("invalid", got=shown(data))

    def to_representation(self, value) -> bool:
        return value


class ChoiceParam(_Worded, serializers.Field):
    """One of `choices` (texts), exactly (DRF's ChoiceField takes 1 for "1")."""

    default_error_messages = {"invalid": "{field} must be one of {choices}; got {got}"}

    def __init__(self, choices, **kwargs):
        self.choices = list(choices)
        super().__init__(**kwargs)

    def to_internal_value(self, data) -> str:
        if isinstance(data, str) and data in self.choices:
            return data
        self.fail("invalid", choices=", ".join(self.choices), got=shown(data))

    def to_representation(self, value) -> str:
        return value


class ChoiceParamSchema(OpenApiSerializerFieldExtension):
    """A ChoiceParam is described as drf-spectacular describes a ChoiceField (an enum, which a
    body's component names), its choices sorted as OpenApiParameter sorts an enum."""

    target_class = ChoiceParam

    def map_serializer_field(self, auto_schema, direction):
        choices = {choice: choice for choice in sorted(self.target.choices)}
        return build_choice_field(
            SimpleNamespace(choices=choices, allow_blank=False, allow_null=self.target.allow_null)
        )


def query(serializer_class, request) -> dict:
    """The query parameters `serializer_class` declares, checked and typed (others are ignored;
    of a repeated one, the last counts, as with `GET.get`)."""
    return checked(serializer_class, request.GET.dict())


def body(serializer_class, request) -> dict:
    """The JSON object of the body, checked and typed by `serializer_class` (no body, or `null`,
    is `{}`: the client sends nothing or `{}` where it has nothing to say)."""
    data = request.data
    if data is None or data == "":
        data = {}
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return checked(serializer_class, data)


def checked(serializer_class, data: dict) -> dict:
    """`data` validated by `serializer_class` (what `is_valid()` then `validated_data` give)."""
    try:
        return _reader(serializer_class).run_validation(data)
    except ValidationError as refused:
        raise BadRequest(message(refused.detail)) from None


@functools.cache
def _reader(serializer_class):
    """One instance of each input serializer, made once: a new one per request would deep-copy
    its fields every time, most of what reading the parameters costs.
    Validating keeps nothing on the instance, and the fields here keep no state, so it serves
    every request (and thread) alike."""
    return serializer_class()


def message(errors: dict) -> str:
    """A serializer's errors as one message: each field's sentences, those that do not name their
    field (DRF's own wording, "This field is required.") prefixed with it."""
    sentences = []
    for field, problems in errors.items():
        for problem in problems if isinstance(problems, list) else [problems]:
            text = str(problem)
            named = field == api_settings.NON_FIELD_ERRORS_KEY or re.search(rf"\b{re.escape(field)}\b", text)
            sentences.append(text if named else f"{field}: {text}")
    return "; ".join(sentences)
