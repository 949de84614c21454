from kubeproof.verify import Result, contract
from kubeproof.verify.protection import current
from kubeproof.verify.workloads import pod_spec

NS = "analytics"
DATA = "/var/lib/postgresql/data"
PGDATA = "/var/lib/postgresql/data/pgdata"


@contract
def data_on_claim(ctx, namespace, name, container, path, claim, inner=""):
    """What the container sees at `path` comes from the PersistentVolumeClaim, at `inner`
    inside its volume: the mount that decides the path (the longest mountPath above it)
    is a volume of that claim, so no emptyDir or other volume shadows the data."""
    label = f"data_on_claim {path}"
    obj = current(ctx, "Deployment", namespace, name)
    if obj is None:
        return Result(label, False, f"Deployment {namespace}/{name} is gone")
    spec = pod_spec(obj)
    found = [c for c in spec.get("containers") or [] if c.get("name") == container]
    if not found:
        return Result(label, False, f"no container {container}")
    best = None
    for m in found[0].get("volumeMounts") or []:
        mp = m.get("mountPath", "").rstrip("/") or "/"
        if (path == mp or path.startswith(mp.rstrip("/") + "/")) and (
            best is None or len(mp) > len(best["mountPath"].rstrip("/"))
        ):
            best = m
    if best is None:
        return Result(label, False, f"nothing is mounted at {path}")
    volume = {v.get("name"): v for v in spec.get("volumes") or []}.get(best.get("name")) or {}
    got = (volume.get("persistentVolumeClaim") or {}).get("claimName")
    if got != claim:
        kind = next((k for k in volume if k != "name"), "nothing")
        return Result(label, False, f"{path} is {kind} {got or ''}".rstrip() + f", not claim {claim}")
    where = "/".join(
        p for p in ((best.get("subPath") or "").strip("/"),
                    path[len(best["mountPath"].rstrip("/")):].strip("/")) if p
    )
    if where != inner or best.get("subPathExpr"):
        return Result(label, False, f"{path} is /{where} of claim {claim}, want /{inner}")
    return Result(label, True, f"{path} is /{inner} of claim {claim}")


@contract
def restored_volume_kept(ctx, namespace):
    """The restored volume is never bound anywhere but to the warehouse-data claim, and
    that claim to nothing but the restored volume (still binding is not yet a fault; a
    binding elsewhere, or the volume released from a claim that is gone, is)."""
    label = "restored_volume_kept"
    claim = current(ctx, "PersistentVolumeClaim", namespace, "warehouse-data")
    volume = current(ctx, "PersistentVolume", None, "warehouse-data-pv")
    if volume is None:
        return Result(label, False, "PersistentVolume warehouse-data-pv is gone")
    problems = []
    bound = ((claim or {}).get("spec") or {}).get("volumeName")
    if bound and bound != "warehouse-data-pv":
        problems.append(f"warehouse-data is bound to {bound}")
    ref = (volume.get("spec") or {}).get("claimRef") or {}
    if ref:
        holder = f"{ref.get('namespace')}/{ref.get('name')}"
        if holder != f"{namespace}/warehouse-data":
            problems.append(f"warehouse-data-pv is held by {holder}")
        elif claim is None or (ref.get("uid") and ref["uid"] != claim["metadata"]["uid"]):
            problems.append("warehouse-data-pv is held for a warehouse-data claim that is gone")
    return Result(label, not problems, "; ".join(problems)
                  or "the restored volume is held by warehouse-data or by nothing yet")


def verify(v):
    # the outcome: the warehouse runs, on its own claim, bound to the restored volume
    v.healthy(NS, "warehouse")
    v.field_equals("PersistentVolumeClaim", NS, "warehouse-data", "status.phase", "Bound")
    v.field_equals("PersistentVolume", None, "warehouse-data-pv", "status.phase", "Bound")
    v.mount("Deployment", NS, "warehouse", PGDATA, container="postgres", pvc="warehouse-data")
    v.references_valid("Deployment", NS, "warehouse")
    # the shape: the restored volume is held by warehouse-data and nothing else, and the
    # database files (PGDATA) live on that claim, not on anything mounted over them
    v.field_equals("PersistentVolumeClaim", NS, "warehouse-data", "spec.volumeName",
                   "warehouse-data-pv")
    v.field_equals("PersistentVolume", None, "warehouse-data-pv", "spec.claimRef.name",
                   "warehouse-data")
    v.restored_volume_kept(NS)
    v.data_on_claim(NS, "warehouse", "postgres", DATA, "warehouse-data")
    v.data_on_claim(NS, "warehouse", "postgres", PGDATA, "warehouse-data", inner="pgdata")
    # the claim may be re-created with another class and a way to pick the restored
    # volume; the warehouse Deployment, dashboards and its claim, and everything else in
    # analytics stay as they were throughout, and no other claim appears
    v.allow("PersistentVolumeClaim", NS, "warehouse-data",
            ["spec.storageClassName", "spec.selector", "spec.volumeName"], delete=True)
    v.only_allowed_changes()
    v.no_bare_pods(NS)
