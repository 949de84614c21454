"""Writing the [kubeproof] section an import appends to a task.toml: strings, numbers,
booleans, lists of strings and tables of strings are all it holds. The Harbor sections
above it are kept as their author wrote them, comments and all."""

import json

Value = str | int | float | bool | list | dict | None


def _value(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def kubeproof_section(fields: dict[str, Value]) -> str:
    lines = ["[kubeproof]"]
    lines += [f"{key} = {_value(value)}" for key, value in fields.items() if value is not None]
    return "\n".join(lines) + "\n"
