"""S1: a static check of each document against the API's types, offline. The kinds, fields,
required fields and field types come from lightkube's models (msgspec Structs generated from
the Kubernetes OpenAPI; lightkube >= 1.0); an unknown field is an error, as kubectl's default
strict field validation makes it. lightkube types string maps as plain `dict`, so the maps
whose values must be strings (labels, ConfigMap data) or base64 (Secret data) are named
here."""

import base64
import binascii
import datetime
import typing
from functools import cache
from typing import Any

import msgspec
from lightkube.codecs import resource_registry
from lightkube.core.exceptions import LoadResourceError

# map fields whose values the API types as string (or []byte, sent as base64 text)
_STRING_MAPS = frozenset(
    {"labels", "annotations", "data", "stringData", "nodeSelector", "matchLabels", "selector"}
)
_BASE64_MAPS = {("Secret", "data"), ("ConfigMap", "binaryData")}
_DEPTH = 40


@cache
def _hints(model: type) -> dict[str, Any]:
    """Field name as the API spells it (`from`, which lightkube calls `from_`) -> type."""
    return {f.encode_name: f.type for f in msgspec.structs.fields(model)}


def resource_class(api_version: str, kind: str) -> type | None:
    try:
        return resource_registry.load(api_version, kind)
    except (LoadResourceError, AttributeError, ImportError, ValueError):
        return None


def _optional(tp: Any) -> tuple[bool, Any]:
    args = typing.get_args(tp)
    if typing.get_origin(tp) is typing.Union and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return True, rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007
    return False, tp


def _value(tp: Any, value: Any, path: str, errors: list[str], depth: int) -> None:
    if depth > _DEPTH:
        errors.append(f"{path}: nested too deep")
        return
    origin = typing.get_origin(tp)
    if origin is typing.Union:
        # IntOrString and the like: any member's type will do
        if not any(_fits(a, value) for a in typing.get_args(tp)):
            errors.append(f"{path}: {type(value).__name__} is not {tp}")
        return
    if origin in (list, typing.List):  # noqa: UP006
        if not isinstance(value, list):
            errors.append(f"{path}: want a list")
            return
        (item,) = typing.get_args(tp) or (Any,)
        for i, v in enumerate(value):
            _value(item, v, f"{path}[{i}]", errors, depth + 1)
        return
    if _is_model(tp):
        _object(tp, value, path, errors, depth + 1)
        return
    if not _fits(tp, value):
        errors.append(f"{path}: {type(value).__name__} is not {getattr(tp, '__name__', tp)}")


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def _fits(tp: Any, value: Any) -> bool:
    if tp is Any:
        return True
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if tp is str:
        return isinstance(value, str)
    if tp is dict:
        return isinstance(value, dict)
    if tp is datetime.datetime:
        return isinstance(value, str | datetime.datetime)
    if typing.get_origin(tp) in (list, typing.List):  # noqa: UP006
        return isinstance(value, list)
    if _is_model(tp):
        return isinstance(value, dict)
    return True


def _object(model: type, value: Any, path: str, errors: list[str], depth: int) -> None:
    if not isinstance(value, dict):
        errors.append(f"{path or 'document'}: want an object")
        return
    hints = _hints(model)
    for key in value:
        if key not in hints:
            errors.append(f"{_join(path, key)}: unknown field")
    for key, tp in hints.items():
        optional, inner = _optional(tp)
        if key not in value or value[key] is None:
            if not optional:
                errors.append(f"{_join(path, key)}: required")
            continue
        if inner is dict and key in _STRING_MAPS and isinstance(value[key], dict):
            bad = [k for k, v in value[key].items() if not isinstance(k, str) or not _str(v)]
            errors += [f"{_join(path, key)}.{k}: want a string" for k in bad]
            continue
        _value(inner, value[key], _join(path, key), errors, depth)


def _str(value: Any) -> bool:
    return isinstance(value, str)


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def _base64(doc: dict, errors: list[str]) -> None:
    for kind, field in _BASE64_MAPS:
        if doc.get("kind") != kind or not isinstance(doc.get(field), dict):
            continue
        for key, value in doc[field].items():
            try:
                base64.b64decode(str(value), validate=True)
            except binascii.Error:
                errors.append(f"{field}.{key}: not base64")


def validate(doc: dict) -> list[str]:
    """What is wrong with one document (empty when S1 passes)."""
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return ["apiVersion and kind must be strings"]
    model = resource_class(api_version, kind)
    if model is None:
        return [f"{api_version} {kind}: no such kind in Kubernetes"]
    errors: list[str] = []
    meta = doc.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        errors.append("metadata.name: required")
    _object(model, doc, "", errors, 0)
    _base64(doc, errors)
    return errors
