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
import inspect
import time
from collections.abc import Callable
from pathlib import Path

from lightkube import Client

from kubeproof.errors import KubeproofError
from kubeproof.verify import checks, contracts
from kubeproof.verify.baseline import Baseline
from kubeproof.verify.result import Result


def _public(module) -> dict[str, Callable]:
    return {
        name: fn
        for name, fn in vars(module).items()
        if inspect.isfunction(fn) and fn.__module__ == module.__name__ and not name.startswith("_")
    }


REGISTRY: dict[str, Callable] = _public(checks) | _public(contracts)
HELPERS = {"not_", "results", "client", "baseline"}
NAMES = sorted(REGISTRY) + sorted(HELPERS)


def _needs_baseline(fn: Callable) -> bool:
    params = list(inspect.signature(fn).parameters)
    return len(params) > 1 and params[1] == "baseline"


class Verifier:
    def __init__(self, client: Client, baseline: Baseline | None = None):
        self.client = client
        self.baseline = baseline or Baseline()
        self.results: list[Result] = []

    def __getattr__(self, name: str):
        fn = REGISTRY.get(name)
        if fn is None:
            raise AttributeError(f"no check or contract named {name!r}")

        def call(*args, **kwargs) -> Result:
            head = (self.client, self.baseline) if _needs_baseline(fn) else (self.client,)
            result = fn(*head, *args, **kwargs)
            self.results.append(result)
            return result

        call.__doc__ = fn.__doc__
        return call

    def not_(self, result: Result) -> Result:
        """The opposite of a result just recorded: `v.not_(v.rollout_complete(...))`."""
        if self.results and self.results[-1] is result:
            self.results.pop()
        flipped = Result(f"not {result.name}", not result.passed, result.reason, result.kind)
        self.results.append(flipped)
        return flipped


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


def once(fn: Callable[[Verifier], object], client: Client, baseline: Baseline) -> list[Result]:
    v = Verifier(client, baseline)
    fn(v)
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
) -> tuple[list[Result], float]:
    """Evaluate until every result passes, or a contract fails (a broken shape does not
    heal), or nothing has changed for `quiet` seconds, or `timeout`. Returns the last
    results and the seconds spent."""
    started = time.monotonic()
    last_key, last_change = None, started
    while True:
        results = once(fn, client, baseline)
        now = time.monotonic()
        key = tuple((r.name, r.passed, r.reason) for r in results)
        if key != last_key:
            last_key, last_change = key, now
        if all(results):
            break
        if any(not r.passed and r.kind == "contract" for r in results):
            break
        if now - last_change >= quiet or now - started >= timeout:
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
    problems = []
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == v
            and node.attr not in REGISTRY
            and node.attr not in HELPERS
        ):
            close = difflib.get_close_matches(node.attr, NAMES, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            problems.append((node.lineno, f"unknown check or contract {v}.{node.attr}{hint}"))
    return problems
