"""COMMAND: the answer is one kubectl command, run for real as the evaluation identity.
Easy: label a live object. Intermediate: a question, the names of the objects of a kind
that carry a label (judged by what the command prints). Advanced: one of the kind's own
changes (scale, set image, or a merge patch), judged by its effect as an UPDATE is. Every
fixture must survive; a question must change nothing."""

import json
import random

from kubeproof.generate.command import render
from kubeproof.generate.draft import Draft
from kubeproof.generate.model import CommandOutput, Mutant, Stage, Tier
from kubeproof.generate.ops import changes, preserve
from kubeproof.generate.ops.base import SHORT, base, copy, flag, live, manifest, mutant, where

HOSTILE_FLAG = "--kubeconfig=/etc/kubernetes/admin.conf"
PIPE = ["|", "tee", "/tmp/kubeproof-out"]
NAMES = "jsonpath={.items[*].metadata.name}"
# a kind the same name does not exist as, for a cluster-scoped object (no namespace to miss)
_OTHER = {"Namespace": "clusterrole", "ClusterRole": "clusterrolebinding",
          "ClusterRoleBinding": "clusterrole"}  # fmt: skip


def _ns(obj: dict) -> list[str]:
    ns = obj["metadata"].get("namespace")
    return ["-n", ns] if ns else []


def _resource(obj: dict) -> str:
    return obj["kind"].lower()


def _patch(change: changes.Change, value) -> dict:
    """The JSON merge patch that sets the change's field (a field of maps only: a change in
    a list item, the image, has a command of its own)."""
    keys = preserve.map_keys(change.path)
    assert keys, change.path
    patch: dict = {}
    current = patch
    for key in keys[:-1]:
        current = current.setdefault(key, {})
    current[keys[-1]] = value
    return patch


def change_argv(obj: dict, change: changes.Change, value) -> list[str]:
    """The command that makes one change (`value` in place of the asked one, for a mutant)."""
    kind, name = _resource(obj), obj["metadata"]["name"]
    if change.native and change.native[0] == "scale":
        return ["kubectl", "scale", kind, name, *_ns(obj), f"--replicas={value}"]
    if change.native and change.native[:2] == ["set", "image"]:
        return ["kubectl", "set", "image", f"{kind}/{name}", f"main={value}", *_ns(obj)]
    for head, verb in (("metadata.labels", "label"), ("metadata.annotations", "annotate")):
        if change.path.startswith(head):
            key = change.path.removeprefix(head)[2:-2]
            argv = ["kubectl", verb, kind, name, *_ns(obj), f"{key}={value}"]
            # kubectl refuses to replace a value unless told to
            present = key in (obj["metadata"].get(head.split(".")[1]) or {})
            return [*argv, "--overwrite"] if present else argv
    body = json.dumps(_patch(change, value), separators=(",", ":"))
    return ["kubectl", "patch", kind, name, *_ns(obj), "--type=merge", "-p", body]


def _wrong_place(argv: list[str], obj: dict, question: bool) -> tuple[str, list[str], Stage]:
    """The command aimed at the wrong namespace (or, cluster-scoped, the wrong kind): a
    change then misses its object (NotFound, S2), a question prints nothing (S4)."""
    stage = Stage.s4_checks if question else Stage.s2_apply
    out = list(argv)
    if "-n" in out:
        out[out.index("-n") + 1] = "default"
        return "wrong_namespace", out, stage
    kind = _resource(obj)
    other = _OTHER[obj["kind"]]
    out = [other if a == kind else a.replace(f"{kind}/", f"{other}/") for a in out]
    return "wrong_kind", out, stage


def _common(obj: dict, argv: list[str], question: bool) -> list[Mutant]:
    operator, moved, stage = _wrong_place(argv, obj, question)
    return [
        mutant(operator, stage, obj, "-n" if "-n" in argv else "kind", render(moved)),
        mutant("shell_pipe", Stage.s0_extract, obj, "|", render(argv) + " " + " ".join(PIPE)),
        mutant(
            "forbidden_flag", Stage.s0_extract, obj, "--kubeconfig", render([*argv, HOSTILE_FLAG])
        ),
    ]


def _named(argv: list[str], obj: dict) -> Mutant:
    name = obj["metadata"]["name"]
    out = [a + "-x" if a == name else a.replace(f"/{name}", f"/{name}-x") for a in argv]
    return mutant("wrong_name", Stage.s2_apply, obj, "name", render(out))


def command_task(resource_type: str, rng: random.Random, tier: Tier) -> Draft:
    start = base(resource_type, rng, tier)
    target = live(start.objects[0])
    if tier is Tier.intermediate:
        return _question(start, target, rng)
    fixtures = start.fixtures + [live(o) for o in start.objects]
    count = 0 if tier is Tier.easy else 1
    if count:
        change = changes.changes(rng, target, 1, start.checks)[0]
    else:
        change = changes.label_change(rng, target)
    argv = change_argv(target, change, change.value)
    checks = changes.checks_for(target, [change]) + preserve.unchanged(target, [change.covered])
    kind, name = target["kind"], target["metadata"]["name"]
    full = (
        f"{start.scenario} The {kind} {name}{where(target)} is live"
        + (f", as follows:\n\n```yaml\n{manifest(target)}```\n\n" if count else ". ")
        + f"Write one kubectl command that makes this change: {change.ask}. Change nothing "
        f"else. The command is run as it is, without a shell."
    )
    wrong = change_argv(target, change, change.wrong)
    mutants = [
        mutant("wrong_value", Stage.s4_checks, target, change.path, render(wrong)),
        _named(argv, target),
        *_common(target, argv, question=False),
    ]
    return Draft(
        scenario=start.scenario,
        full=full,
        simplified=f"One kubectl command: for the {kind} {name}{where(target)}, {change.ask}.",
        terse=f"cmd: {SHORT[kind]} {name}{flag(target)}: {change.terse}",
        objects=[],
        checks=checks,
        fixtures=fixtures,
        expected=fixtures,
        command=render(argv),
        mutants=mutants,
    )


def _question(start: Draft, target: dict, rng: random.Random) -> Draft:
    kind, name = target["kind"], target["metadata"]["name"]
    release, other = rng.sample(range(100, 1000), 2)
    siblings = []
    for suffix in rng.sample(("blue", "green", "canary", "old", "next"), 3):
        sibling = copy(target)
        sibling["metadata"]["name"] = f"{name}-{suffix}"
        siblings.append(sibling)
    picked = [target, *siblings[: rng.choice((0, 1, 2))]]
    for obj in [target, *siblings]:
        value = release if obj in picked else other
        obj["metadata"].setdefault("labels", {})["release"] = f"r{value}"
    rest = [live(o) for o in start.objects[1:]]
    fixtures = [*start.fixtures, target, *rest, *siblings]
    argv = ["kubectl", "get", _resource(target), *_ns(target), "-l", f"release=r{release}",
            "-o", NAMES]  # fmt: skip
    expected = " ".join(sorted(o["metadata"]["name"] for o in picked))
    wrong_selector = [a.replace(f"r{release}", f"r{release}x") for a in argv]
    ask = f"prints the names of the {kind}s{where(target)} labelled release=r{release}"
    return Draft(
        scenario=start.scenario,
        full=f"{start.scenario} Several {kind}s exist{where(target)}. Write one kubectl "
        f"command that {ask}, separated by spaces, and nothing else. The command is run as it "
        f"is, without a shell, and must change nothing.",
        simplified=f"One kubectl command that {ask} (names only).",
        terse=f"cmd: names of {SHORT[kind]}{flag(target)} w/ release=r{release}",
        objects=[],
        checks=[CommandOutput(expected=expected, compare="words")],
        fixtures=fixtures,
        expected=fixtures,
        command=render(argv),
        mutants=[
            mutant("wrong_selector", Stage.s4_checks, target, "-l", render(wrong_selector)),
            *_common(target, argv, question=True),
        ],
    )
