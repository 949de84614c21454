"""The object a task's verifier (`tests/verify.py: verify(v)`) and broken-state assertions
(`environment/broken.py: broken(v)`) receive: every check and contract of this package,
bound to the admin client and the baseline, each call recorded as a Result.

    def verify(v):
        v.rollout_complete("shop", "checkout")
        v.uid_preserved("Deployment", "shop", "checkout")
        v.rbac_no_wildcards("shop")
"""

import ast
import difflib
import hashlib
import importlib.util
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import httpx
from lightkube import ApiError, Client

from kubeproof.errors import KubeproofError
from kubeproof.verify import actions, paths
from kubeproof.verify.actions import Actions
from kubeproof.verify.baseline import Baseline
from kubeproof.verify.history import History
from kubeproof.verify.protection import Allowances, Rule
from kubeproof.verify.registry import Context, Entry, NeedsBaseline, entry_of, load_builtins
from kubeproof.verify.result import Result

REGISTRY: dict[str, Entry] = load_builtins()
HELPERS = {
    "not_",
    "results",
    "client",
    "baseline",
    "history",
    "allow",
    "allow_new",
    "evict",
    "delete",
}
NAMES = sorted(REGISTRY) + sorted(HELPERS)
UNJUDGEABLE = "could not judge: "


class Verifier:
    def __init__(
        self,
        client: Client,
        baseline: Baseline | None = None,
        history: History | None = None,
        local: dict[str, Entry] | None = None,
        acts: Actions | None = None,
    ):
        self.client = client
        self.acts = acts if acts is not None else Actions()
        self.baseline = baseline or Baseline()
        self.history = history
        self.allowances = Allowances()
        self.context = Context(client, self.baseline, history, self.allowances)
        self.local = local or {}
        self.results: list[Result] = []

    def __getattr__(self, name: str):
        entry = self.local.get(name) or REGISTRY.get(name)
        if entry is None:
            raise AttributeError(f"no check or contract named {name!r}")

        def call(*args, **kwargs) -> Result:
            try:
                result = entry(self.context, *args, **kwargs)
            except Exception as exc:
                if harness_failure(exc):
                    raise
                result = unjudgeable(entry.name, entry.kind, exc)
            self.results.append(result)
            return result

        call.__doc__ = entry.fn.__doc__
        return call

    def allow(
        self,
        kind: str,
        namespace: str | None,
        name: str,
        fields: list[str] | None = None,
        delete: bool = False,
        by: str = "anyone",
    ) -> None:
        """Declare what a valid fix may change in an object (`name` may be a glob): the
        path patterns of docs/verify.md, and whether it may delete (or recreate) it.
        `by="controllers"`: the end state may differ there (an autoscaler sets the
        replicas) but no write of the agent's may change it. `only_allowed_changes()`
        protects everything else."""
        if by not in ("anyone", "controllers"):
            raise ValueError(f"by={by!r}: anyone or controllers")
        patterns = [paths.parse(f) for f in fields or []]
        self.allowances.rules.append(
            Rule(kind, namespace, name, patterns, delete=delete, controllers_only=by != "anyone")
        )

    def allow_new(self, kind: str, namespace: str | None, name: str = "*") -> None:
        """Declare objects a valid fix may create (`name` may be a glob)."""
        self.allowances.rules.append(Rule(kind, namespace, name, new=True))

    def evict(
        self, namespace: str, labels: dict[str, str], count: int = 1, recover_sec: float = 60
    ) -> Result:
        """Evict up to `count` running pods the labels select, once, through the Eviction
        API (a PodDisruptionBudget may refuse: the result fails); the checks after it are
        then judged until they hold, at least `recover_sec` long (docs/verify.md)."""
        key = f"evict {namespace} {sorted(labels.items())} {count}"
        return self._act(
            key, recover_sec, lambda: actions.evict(self.client, namespace, labels, count)
        )

    def delete(
        self, kind: str, namespace: str | None, name: str, recover_sec: float = 60
    ) -> Result:
        """Delete the object once (a pod its controller should replace); the checks after it
        are then judged until they hold, at least `recover_sec` long."""
        key = f"delete {kind} {namespace} {name}"
        return self._act(
            key, recover_sec, lambda: actions.delete(self.client, kind, namespace, name)
        )

    def _act(self, key: str, recover_sec: float, act) -> Result:
        result = self.acts.run(key, recover_sec, act)
        if self.history is not None:  # what the verifier writes is not the agent's doing
            self.history.verifier_from = self.acts.first_at
        self.results.append(result)
        return result

    def not_(self, result: Result) -> Result:
        """The opposite of a result just recorded: `v.not_(v.rollout_complete(...))`."""
        if self.results and self.results[-1] is result:
            self.results.pop()
        flipped = Result(f"not {result.name}", not result.passed, result.reason, result.kind)
        self.results.append(flipped)
        return flipped


def harness_failure(exc: BaseException) -> bool:
    """Failures of the cluster or the harness (a trial `error`, retried), as opposed to
    whatever an agent-written object makes a check trip over (the agent's failure)."""
    if isinstance(exc, (KubeproofError, NeedsBaseline, httpx.TransportError, TimeoutError)):
        return True
    if isinstance(exc, ApiError):  # 5xx, throttling: the apiserver, not the object
        return exc.status.code is None or exc.status.code >= 500 or exc.status.code == 429
    return False


def unjudgeable(name: str, kind: str, exc: BaseException) -> Result:
    """An object the check cannot read is a failed check, never a retried `error`: an agent
    must not be able to turn a bad trial into a fresh one by writing odd shapes. The
    traceback goes into the reason's tail so the verifier log shows where it tripped."""
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" at {Path(where[0].filename).name}:{where[0].lineno}" if where else ""
    text = str(exc)[:300]
    return Result(name, False, f"{UNJUDGEABLE}{type(exc).__name__}: {text}{at}", kind)


def local_entries(fn: Callable) -> dict[str, Entry]:
    """Checks and contracts a task's verifier file defines with the decorators."""
    found = {}
    for value in getattr(fn, "__globals__", {}).values():
        entry = entry_of(value)
        if entry is not None and not entry.fn.__module__.startswith("kubeproof.verify."):
            found[entry.name] = entry
    return found


def load_function(path: Path, name: str) -> Callable[[Verifier], object]:
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(f"kubeproof_task_{name}_{digest}", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise KubeproofError(f"{path}: cannot load: {exc}") from exc
    fn = getattr(module, name, None)
    if not callable(fn):
        raise KubeproofError(f"{path}: defines no function {name}(v)")
    return fn


def once(
    fn: Callable[[Verifier], object],
    client: Client,
    baseline: Baseline,
    history: History | None = None,
    acts: Actions | None = None,
) -> list[Result]:
    if history is not None:
        history.refresh()
    v = Verifier(client, baseline, history, local_entries(fn), acts)
    try:
        fn(v)
    except Exception as exc:  # the verifier's own code tripped over the agent's objects
        if harness_failure(exc):
            raise
        v.results.append(unjudgeable(fn.__name__, "check", exc))
    if not v.results:
        raise KubeproofError(f"{fn.__code__.co_filename}: {fn.__name__}(v) checked nothing")
    return v.results


def settle(
    fn: Callable[[Verifier], object],
    client: Client,
    baseline: Baseline,
    *,
    quiet: float,
    timeout: float,
    interval: float = 0.5,
    history: History | None = None,
    acts: Actions | None = None,
) -> tuple[list[Result], float]:
    """Evaluate until every result passes, or a contract fails (a broken shape does not
    heal), or nothing has changed for `quiet` seconds — and not before the recovery time
    of the verifier's last action (`v.evict`, `v.delete`) — or `timeout`. Returns the
    last results and the seconds spent; `acts` collects what the verifier did."""
    started = time.monotonic()
    last_key, last_change = None, started
    acts = acts if acts is not None else Actions()
    while True:
        results = once(fn, client, baseline, history, acts)
        now = time.monotonic()
        key = tuple((r.name, r.passed, r.reason) for r in results)
        if key != last_key:
            last_key, last_change = key, now
        reacted = acts.last_at is None or now - acts.last_at >= quiet
        if all(results) and reacted:  # not a look taken before an action could tell
            break
        if any(not r.passed and r.kind == "contract" for r in results):
            break
        if now - started >= timeout:
            break
        if now - last_change >= quiet and now >= acts.hold_until:
            break
        time.sleep(interval)
    return results, round(time.monotonic() - started, 3)


def lint(path: Path, function: str) -> list[tuple[int, str]]:
    """(line, message) for a verifier file: the function is defined with one argument and
    calls only checks and contracts that exist."""
    try:
        tree = ast.parse(path.read_text(), str(path))
    except SyntaxError as exc:
        return [(exc.lineno or 1, f"syntax error: {exc.msg}")]
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function]
    if not defs:
        return [(1, f"defines no function {function}(v)")]
    fn = defs[0]
    if not fn.args.args:
        return [(fn.lineno, f"{function}() must take the verifier as its argument")]
    v = fn.args.args[0].arg
    local = {
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef)
        and any(
            (isinstance(d, ast.Name) and d.id in ("check", "contract"))
            or (isinstance(d, ast.Call) and getattr(d.func, "id", None) in ("check", "contract"))
            for d in n.decorator_list
        )
    }
    problems = []
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == v
            and node.attr not in REGISTRY
            and node.attr not in HELPERS
            and node.attr not in local
        ):
            close = difflib.get_close_matches(node.attr, NAMES, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            problems.append((node.lineno, f"unknown check or contract {v}.{node.attr}{hint}"))
    return problems
