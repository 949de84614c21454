"""Each fault kind breaks what it should, names root causes that exist, and its inverse
(as objects and as kubectl JSON patches) restores the baseline and the intended matrix."""

import copy
import json
import shlex

import pytest

from kubeproof.netpol import faults, intent, inverse, materialize, report, tasks, topology

# kind -> (topology, variant, profile, the verdict codes its mismatches show)
WHERE = {
    "remove-ingress": ("online-boutique", "ingress", "netarena", {"ingress-denied"}),
    "add-ingress": ("online-boutique", "ingress", "netarena", {"ok"}),
    "change-port": ("online-boutique", "ingress", "netarena", {"ingress-denied"}),
    "change-protocol": ("online-boutique", "ingress", "netarena", {"ingress-denied"}),
    "add-egress": ("online-boutique", "ingress", "netarena", {"dns-blocked"}),
    "dns-egress-blocked": ("shop-shared-db", "deny", "full", {"dns-blocked"}),
    "namespace-label-renamed": ("shop-shared-db", "ingress", "full", {"ingress-denied"}),
    "policy-types-dropped": ("online-boutique", "ingress", "full", {"ok"}),
    "policy-types-added": ("bookinfo", "ingress", "full", {"dns-blocked"}),
    "default-deny-wrong-namespace": ("bookinfo", "ingress", "full", {"dns-blocked"}),
    "wrong-target-pods": ("bookinfo", "ingress", "full", {"ok", "ingress-denied"}),
    "service-targetport-drift": ("online-boutique", "deny", "full", {"egress-denied"}),
    "named-port-missing": ("bookinfo", "ingress", "full", {"ingress-denied"}),
    "endport-range": ("online-boutique", "deny", "full", {"ingress-denied"}),
    "ipblock-service-cidr": ("shop-shared-db", "ingress", "full", {"ingress-denied"}),
    "ipblock-except": ("online-boutique", "ingress", "full", {"ingress-denied"}),
    "version-label": ("bookinfo", "ingress", "full", {"ok", "ingress-denied"}),
    "service-port-in-policy": ("online-boutique", "deny", "full", {"egress-denied"}),
    "missing-namespace-selector": ("shop-shared-db", "deny", "full", {"egress-denied"}),
}


def generated(kind: str, seed: int = 3) -> tasks.Task:
    name, variant, profile, _ = WHERE[kind]
    return tasks.generate(tasks.make_id(name, variant, profile, [kind], seed))


def rep(task: tasks.Task, objects: list[dict]) -> report.Report:
    tp = topology.load(task.topology)
    return report.compute(tp, materialize.materialize(objects), task.profile)  # type: ignore[arg-type]


def field_exists(obj: dict, field: str) -> bool:
    here: object = obj
    for part in field.replace("]", "").replace("[", ".").split("."):
        if isinstance(here, list) and part.isdigit() and int(part) < len(here):
            here = here[int(part)]
        elif isinstance(here, dict) and part in here:
            here = here[part]
        else:
            return False
    return True


def json_patch(obj: dict, ops: list[dict]) -> dict:
    """RFC 6902 add/remove/replace, enough to replay the oracle's commands."""
    out = copy.deepcopy(obj)
    for op in ops:
        *parents, last = [
            p.replace("~1", "/").replace("~0", "~") for p in op["path"][1:].split("/")
        ]
        here = out
        for p in parents:
            here = here[int(p)] if isinstance(here, list) else here[p]
        key = int(last) if isinstance(here, list) else last
        if op["op"] == "remove":
            del here[key]
        else:
            here[key] = op["value"]
    return out


def test_every_kind_is_exercised():
    assert set(WHERE) == set(faults.KINDS)
    assert len(faults.NETARENA) == 5 and len(faults.INCIDENTS) >= 10


@pytest.mark.parametrize("kind", sorted(WHERE))
def test_fault_breaks_and_its_inverse_restores(kind):
    task = generated(kind)
    codes = WHERE[kind][3]
    broken = rep(task, task.objects)
    assert broken.mismatches, kind
    assert {c.code for c in broken.mismatches} & codes, [c.code for c in broken.mismatches]
    by_ref = {tasks.ref(o): o for o in task.objects}
    tp = topology.load(task.topology)
    base = tasks.baseline_objects(tp, task.variant)
    (applied,) = task.faults
    assert applied.kind == kind and applied.root_causes
    for rc in applied.root_causes:
        key = f"{rc.kind}/{rc.namespace or ''}/{rc.name}"
        if rc.field == "":  # an object the fault created
            assert key in by_ref and key not in base
        else:  # a field the fault changed, or removed
            assert field_exists(by_ref[key], rc.field) or field_exists(base[key], rc.field), rc
    fixed = inverse.apply(by_ref, task.fix)
    assert fixed == base
    assert rep(task, list(fixed.values())).matrix() == task.intended
    # the same fix as kubectl commands
    replayed = dict(by_ref)
    for command in task.fix.commands:
        patch, _, wait = command.partition(" && ")
        words = shlex.split(patch)
        if wait:  # a Deployment's patch waits for its rollout
            assert words[1:4] == ["patch", "deployment", words[3]], command
            assert shlex.split(wait)[:6] == ["kubectl", "rollout", "status", *words[2:4], "-n"]
        ns = words[words.index("-n") + 1] if "-n" in words else ""
        target = next(
            k
            for k, o in replayed.items()
            if (o["kind"].lower(), o["metadata"].get("namespace", ""), o["metadata"]["name"])
            == (words[2], ns, words[3])
        )
        if words[1] == "delete":
            del replayed[target]
        else:
            replayed[target] = json_patch(replayed[target], json.loads(words[-1]))
    assert replayed == base


def intended_into(task: tasks.Task, app: str) -> set[str]:
    return {k for k, v in task.intended.items() if v and f" -> {app}." in k}


def test_netarena_faults_break_exactly_their_cells():
    task = generated("remove-ingress")
    app = task.faults[0].params["policy"]
    assert {c.probe for c in rep(task, task.objects).mismatches} == intended_into(task, app)

    task = generated("change-port")
    app = task.faults[0].params["policy"]
    assert {c.probe for c in rep(task, task.objects).mismatches} == intended_into(task, app)

    task = generated("add-ingress")
    params = task.faults[0].params
    opened = {c.probe for c in rep(task, task.objects).mismatches}
    assert opened == {
        k
        for k in task.intended
        if any(k.startswith(f"default/{a} -> {params['policy']}.") for a in params["apps"])
    }

    task = generated("add-egress")
    app = task.faults[0].params["policy"]
    cut = {c.probe for c in rep(task, task.objects).mismatches}
    assert cut == {k for k, v in task.intended.items() if v and k.startswith(f"default/{app} ->")}


def test_targetport_drift_looks_like_a_policy_fault_but_is_the_service():
    task = generated("service-targetport-drift")
    (rc,) = task.faults[0].root_causes
    assert rc.kind == "Service" and rc.field.endswith(".targetPort")
    assert any("NetworkPolicy" in c.explanation for c in rep(task, task.objects).mismatches)


def test_a_fault_that_cannot_show_is_not_applicable():
    with pytest.raises(tasks.NotApplicable):
        tasks.generate(tasks.make_id("online-boutique", "ingress", "full", ["version-label"], 0))


def test_ids_are_checked():
    with pytest.raises(ValueError, match="unknown fault"):
        tasks.parse_id("netpol/v1/bookinfo/ingress/full/no-such-fault/1")
    with pytest.raises(ValueError, match="not a netpol task id"):
        tasks.parse_id("netpol/v1/bookinfo/ingress/full/remove-ingress")
    task_id = tasks.make_id("bookinfo", "deny", "full", ["remove-ingress", "version-label"], 4)
    assert tasks.parse_id(task_id) == (
        "bookinfo",
        "deny",
        "full",
        ["remove-ingress", "version-label"],
        4,
    )


def test_netarena_suite_is_15_types():
    ids = tasks.suite("netarena-k8s")
    assert len(ids) == 15 and len(set(ids)) == 15
    assert sum("+" in i for i in ids) == 10
    assert all("/online-boutique/ingress/netarena/" in i for i in ids)


def test_intended_matrix_in_the_task_is_the_topologys():
    task = generated("remove-ingress")
    assert task.intended == intent.matrix(topology.load("online-boutique"), "netarena")
