"""What a cluster would hold after `kubectl apply` of manifests, for netsim without a
cluster: one ready pod per Deployment replica (its template, an address in the pod CIDR)
and a cluster IP for each Service. Objects read from a live cluster need none of this."""

import copy

POD_NETWORK = "10.244.1."  # the first worker's pod CIDR, 10.244.1.0/24
SERVICE_NETWORK = "10.96.100."  # inside the Service CIDR 10.96.0.0/12, clear of kube-dns


def _pods(deployment: dict, first_ip: int) -> list[dict]:
    meta = deployment["metadata"]
    spec = deployment.get("spec") or {}
    template = spec.get("template") or {}
    replicas = spec.get("replicas", 1)
    pods = []
    for i in range(replicas):
        pods.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{meta['name']}-{i}" if replicas > 1 else meta["name"],
                    "namespace": meta.get("namespace", "default"),
                    "labels": dict((template.get("metadata") or {}).get("labels") or {}),
                },
                "spec": copy.deepcopy(template.get("spec") or {}),
                "status": {
                    "phase": "Running",
                    "podIP": f"{POD_NETWORK}{first_ip + i}",
                    "conditions": [{"type": "Ready", "status": "True"}],
                },
            }
        )
    return pods


def materialize(manifests: list[dict]) -> list[dict]:
    """The manifests plus the pods their Deployments make; Services get cluster IPs."""
    out: list[dict] = []
    next_pod, next_service = 2, 1
    for obj in manifests:
        kind = obj.get("kind")
        if kind == "Service" and not (obj.get("spec") or {}).get("clusterIP"):
            obj = copy.deepcopy(obj)
            obj["spec"]["clusterIP"] = f"{SERVICE_NETWORK}{next_service}"
            next_service += 1
        out.append(obj)
        if kind == "Deployment":
            pods = _pods(obj, next_pod)
            next_pod += len(pods)
            out += pods
    if next_pod > 250 or next_service > 250:
        raise ValueError("too many pods or Services to give addresses to")
    return out
