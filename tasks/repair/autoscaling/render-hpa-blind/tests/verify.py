from kubeproof.nodesim.quantity import parse
from kubeproof.verify import Result, contract
from kubeproof.verify.checks import read_object
from kubeproof.verify.workloads import pod_spec

NS = "render"
HPA = "HorizontalPodAutoscaler"


# what the 3.4 revision ran with (rollout history), lost from 3.5 in a manifest refactor
RELEASED = {"requests": {"cpu": "250m", "memory": "256Mi"}, "limits": {"memory": "512Mi"}}


@contract
def resources_as_released(ctx, namespace, name, container):
    """The container requests the CPU its previous revision requested (what the autoscaler's
    utilization is measured against: not a token value), and any other request or limit it
    sets is the previous revision's too."""
    label = f"resources_as_released Deployment {namespace}/{name} {container}"
    obj, problem = read_object(ctx, "Deployment", namespace, name)
    if obj is None:
        return Result(label, False, problem or "not found")
    found = [c for c in pod_spec(obj).get("containers") or [] if c.get("name") == container]
    if not found:
        return Result(label, False, f"no container {container}")
    resources = found[0].get("resources") or {}
    problems = []
    cpu = (resources.get("requests") or {}).get("cpu")
    if cpu is None:
        problems.append("requests no CPU")
    for group in ("requests", "limits"):
        for res, value in (resources.get(group) or {}).items():
            want = RELEASED.get(group, {}).get(res)
            try:
                same = want is not None and parse(str(value)) == parse(want)
            except ValueError:
                same = False
            if not same:
                problems.append(f"{group}.{res} = {value}, the release had {want or 'none'}")
    return Result(label, not problems, "; ".join(problems) or f"requests cpu {cpu}, as released")


def verify(v):
    # the autoscaler measures the workers again and acts on it
    v.condition(HPA, NS, "render-worker", "ScalingActive")
    v.condition(HPA, NS, "render-worker", "AbleToScale")
    v.rollout_complete(NS, "render-worker")
    v.field_equals("Deployment", NS, "render-worker",
                   "spec.template.spec.containers[name=worker].image", "acme/render-worker:3.5")
    # the fix: 3.5 carries the requests 3.4 had; nothing else of the release changes
    v.resources_as_released(NS, "render-worker", "worker")
    v.allow("Deployment", NS, "render-worker",
            ["spec.template.spec.containers[name=worker].resources"])
    # the size is the autoscaler's to set: no write of the agent's may change it
    v.allow("Deployment", NS, "render-worker", ["spec.replicas"], by="controllers")
    v.only_allowed_changes()
