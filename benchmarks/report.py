"""What every benchmark ends with: its table for people, its figures as JSON for programs."""

import json

from rich.console import Console
from rich.table import Table


def publish(table: Table, result: dict, json_path: str | None) -> None:
    Console().print(table)
    text = json.dumps(result, indent=2)
    print(text)
    if json_path:
        with open(json_path, "w") as fh:
            fh.write(text + "\n")
