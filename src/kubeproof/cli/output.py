"""Printing for people (rich) and for programs (`-o json|yaml`)."""

import json
import sys
from enum import StrEnum
from typing import Any

import yaml
from rich.console import Console

console = Console()
stderr = Console(stderr=True)


class Format(StrEnum):
    text = "text"
    json = "json"
    yaml = "yaml"


def emit(data: Any, fmt: Format) -> bool:
    """Print `data` as JSON or YAML and return True; return False for text (caller prints)."""
    if fmt is Format.json:
        sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
        return True
    if fmt is Format.yaml:
        sys.stdout.write(yaml.safe_dump(json.loads(json.dumps(data, default=str)), sort_keys=False))
        return True
    return False


def err(message: object) -> None:
    stderr.print(f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True)
