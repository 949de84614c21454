"""The registry of checks and contracts: `@check` and `@contract` declare what a function is
(the kind of its results) and whether it needs the baseline, so nothing is guessed from a
parameter name. Task verifiers define their own with the same decorators:

    from kubeproof.verify import Result, contract

    @contract(baseline=True)
    def ledger_frozen(ctx, namespace):
        '''The ledger's replica count never moved.'''
        ...
        return Result("ledger_frozen", ok, reason)

    def verify(v):
        v.ledger_frozen("bank")

Every registered function takes a `Context` first; the rest of its parameters follow the
one naming convention of docs/verify.md: an object is `(kind, namespace, name)`, with
`namespace=None` for cluster-scoped objects; a function whose kind is implied takes
`(namespace, name)`.
"""

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from lightkube import Client

from kubeproof.verify.baseline import Baseline
from kubeproof.verify.result import Result

if TYPE_CHECKING:
    from kubeproof.verify.history import History
    from kubeproof.verify.protection import Allowances

Kind = Literal["check", "contract"]


@dataclass
class Context:
    """What a check or contract may read: the admin client, the baseline (empty before the
    agent's turn), the history of writes since the baseline (None where there is no audit
    log, e.g. external clusters) and what the verifier allowed to change."""

    client: Client
    baseline: Baseline = field(default_factory=Baseline)
    history: "History | None" = None
    allowances: "Allowances | None" = None


@dataclass(frozen=True)
class Entry:
    name: str
    fn: Callable[..., Result]
    kind: Kind
    baseline: bool

    def __call__(self, ctx: Context, *args, **kwargs) -> Result:
        if self.baseline and ctx.baseline.empty:
            raise NeedsBaseline(
                f"{self.name} compares with the baseline, which does not exist yet "
                "(broken(v) runs before the agent's turn): use it in verify(v)"
            )
        result = self.fn(ctx, *args, **kwargs)
        if not isinstance(result, Result):
            raise TypeError(f"{self.name} returned {type(result).__name__}, not a Result")
        return dataclasses.replace(result, kind=self.kind) if result.kind != self.kind else result


class NeedsBaseline(RuntimeError):
    pass


REGISTRY: dict[str, Entry] = {}
_BUILTIN_PREFIX = "kubeproof.verify."


def _register(kind: Kind, fn: Callable | None, baseline: bool):
    def wrap(f: Callable) -> Callable:
        entry = Entry(f.__name__, f, kind, baseline)
        f.__kubeproof__ = entry  # type: ignore[attr-defined]
        # built-ins are global; a task's own stay with its module (tasks run side by side)
        if f.__module__.startswith(_BUILTIN_PREFIX):
            if f.__name__ in REGISTRY:
                raise ValueError(f"{f.__name__} is registered twice")
            REGISTRY[f.__name__] = entry
        return f

    return wrap(fn) if fn is not None else wrap


def check(fn: Callable | None = None, *, baseline: bool = False):
    """Declare a check: did the operator outcome happen."""
    return _register("check", fn, baseline)


def contract(fn: Callable | None = None, *, baseline: bool = False):
    """Declare a contract: was the task's shape respected."""
    return _register("contract", fn, baseline)


def entry_of(fn: object) -> Entry | None:
    return getattr(fn, "__kubeproof__", None)


def load_builtins() -> dict[str, Entry]:
    """Import every module that registers built-ins, then the registry."""
    from kubeproof.verify import (  # noqa: F401
        batch,
        checks,
        contracts,
        netpolicy,
        observe,
        placement,
        protection,
        rbac,
        workloads,
    )

    return REGISTRY
