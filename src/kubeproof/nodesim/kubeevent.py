"""The record a simulated kubelet emits: one Event as the recorder would create it, and the
timestamp format of status fields (RFC 3339, seconds, as metav1.Time marshals)."""

import datetime as dt
from dataclasses import dataclass


@dataclass
class Event:
    type: str
    reason: str
    message: str
    field_path: str | None = None


def ts(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
