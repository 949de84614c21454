"""The result of one check, contract or safety rule."""

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Result:
    name: str
    passed: bool
    reason: str
    kind: str = "check"  # check | contract | safety

    def to_dict(self) -> dict:
        return asdict(self)

    def __bool__(self) -> bool:
        return self.passed
