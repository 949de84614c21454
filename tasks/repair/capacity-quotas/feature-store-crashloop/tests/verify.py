from lightkube.resources.core_v1 import Pod

from kubeproof.verify import Result, check, contract
from kubeproof.verify.checks import read_object
from kubeproof.verify.fields import equal
from kubeproof.verify.workloads import pod_spec

NS = "ml"
# what the platform team agreed for the feature store (ConfigMap capacity-agreements, PLAT-1184)
AGREED = {"requests": {"memory": "256Mi"}, "limits": {"memory": "512Mi"}}


def _memory_problems(resources, where):
    problems = []
    for group, values in AGREED.items():
        got = ((resources or {}).get(group) or {}).get("memory")
        if got is None or not equal(got, values["memory"], quantity=True):
            problems.append(f"{where} {group}.memory = {got}, agreed {values['memory']}")
    return problems


@contract
def sized_as_agreed(ctx, namespace, name, container):
    """The Deployment's container asks for exactly the memory agreed for it."""
    label = f"sized_as_agreed Deployment {namespace}/{name} {container}"
    obj, problem = read_object(ctx, "Deployment", namespace, name)
    if obj is None:
        return Result(label, False, problem or "not found")
    found = [c for c in pod_spec(obj).get("containers") or [] if c["name"] == container]
    if not found:
        return Result(label, False, f"no container {container}")
    problems = _memory_problems(found[0].get("resources"), "the Deployment's")
    return Result(label, not problems, "; ".join(problems) or "requests 256Mi, limit 512Mi")


@check
def pods_sized_as_agreed(ctx, namespace, labels, container):
    """Every running pod's container has the agreed memory (pods admitted while a namespace
    default was raised for a moment keep that default: they are not sized as agreed)."""
    label = f"pods_sized_as_agreed {namespace} {container}"
    problems, seen = [], 0
    for pod in ctx.client.list(Pod, namespace=namespace, labels=labels):
        if pod.metadata.deletionTimestamp is not None:
            continue
        for c in pod.spec.containers:
            if c.name == container:
                seen += 1
                res = c.resources.to_dict() if c.resources else {}
                problems += _memory_problems(res, f"pod {pod.metadata.name}'s")
    if not seen:
        problems.append("no pods")
    return Result(label, not problems, "; ".join(problems[:4]) or f"{seen} pod(s) as agreed")


def verify(v):
    v.healthy(NS, "feature-store")
    v.pods_ready(NS, {"app": "feature-store"}, 2)
    # the workload carries the agreed size; the platform's defaults and everything else stay
    v.pods_sized_as_agreed(NS, {"app": "feature-store"}, "feature-store")
    v.sized_as_agreed(NS, "feature-store", "feature-store")
    v.allow("Deployment", NS, "feature-store",
            ["spec.template.spec.containers[name=feature-store].resources"])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
