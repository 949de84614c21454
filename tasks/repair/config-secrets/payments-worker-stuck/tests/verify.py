from urllib.parse import urlsplit

from kubeproof.verify import Result, contract
from kubeproof.verify.checks import read_object
from kubeproof.verify.workloads import _Objects, effective_env, pod_spec, references_valid

NS = "payments"
WORKERS = ("payments", "payments-audit")
QUEUE_REF = "spec.template.spec.containers[name=worker].env[name=QUEUE_URL].valueFrom.configMapKeyRef.key"


@contract
def workers_read_shared_config(ctx, namespace, workers, configmap, var, service, port):
    """Every worker resolves its queue setting from the shared ConfigMap (any key of it that
    exists: the old one put back, or the new one adopted by every worker), and the value names
    the queue Service on its port, in any DNS form; every other reference resolves too, so no
    worker is left to break at its next restart."""
    label = f"workers_read_shared_config {namespace}"
    problems = []
    objects = _Objects(ctx, namespace)
    for name in workers:
        obj, problem = read_object(ctx, "Deployment", namespace, name)
        if obj is None:
            problems.append(problem or f"{name} not found")
            continue
        refs = references_valid(ctx, "Deployment", namespace, name)
        if not refs.passed:
            problems.append(f"{name}: {refs.reason}")
        for c in pod_spec(obj).get("containers") or []:
            value, source = effective_env(c, objects).get(var, (None, "nowhere"))
            if not source.startswith(f"ConfigMap {configmap} key "):
                problems.append(f"{name}/{c['name']} {var} from {source}, not ConfigMap {configmap}")
                continue
            parts = urlsplit(value or "")
            host = (parts.hostname or "").rstrip(".").split(".")
            same = host[:1] == [service] and (
                len(host) == 1 or host[1:2] == [namespace]
                and host[2:] in ([], ["svc"], ["svc", "cluster", "local"])
            )
            if not same or (parts.port or port) != port:
                problems.append(f"{name}/{c['name']} {var} = {value!r}, not the {service} Service")
    return Result(label, not problems, "; ".join(problems[:4]) or f"every worker reads {configmap}")


def verify(v):
    # payments are processed again
    v.rollout_complete(NS, "payments")
    v.pods_ready(NS, {"app": "payments"}, 1)
    v.references_valid("Deployment", NS, "payments")
    v.workers_read_shared_config(NS, WORKERS, "payments-config", "QUEUE_URL", "queue", 6379)
    # what may change: the old key may come back beside the new one, or the workers may name
    # the new key; the ConfigMap keeps every key it has, nothing is copied or forked
    v.allow("ConfigMap", NS, "payments-config", ['data["queue-url"]'])
    for worker in WORKERS:
        v.allow("Deployment", NS, worker, [QUEUE_REF])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
