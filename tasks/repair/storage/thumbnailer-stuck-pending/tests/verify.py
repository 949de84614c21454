from kubeproof.verify import Result, contract
from kubeproof.verify.protection import current
from kubeproof.verify.workloads import pod_spec

NS = "media"
UPLOADS = "/usr/share/nginx/html/uploads"


@contract
def serves_whole_claim(ctx, namespace, name, container, path, claim):
    """What the container sees at `path` is the root of the claim's volume: the mount
    that decides the path (the longest mountPath above it) is a volume of that
    PersistentVolumeClaim, with no subPath, so the data already on it is what is served
    (an emptyDir over the path, a new sub-directory or the claim mounted elsewhere is not)."""
    label = "serves_whole_claim"
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
    volumes = {v.get("name"): v for v in spec.get("volumes") or []}
    volume = volumes.get(best.get("name")) or {}
    got = (volume.get("persistentVolumeClaim") or {}).get("claimName")
    if got != claim:
        kind = next((k for k in volume if k != "name"), "nothing")
        return Result(label, False, f"{path} is {kind} {got or ''}".rstrip() + f", not claim {claim}")
    inner = "/".join(
        p for p in ((best.get("subPath") or "").strip("/"),
                    path[len(best["mountPath"].rstrip("/")):].strip("/")) if p
    )
    if inner or best.get("subPathExpr"):
        return Result(label, False,
                      f"{path} is {inner or best.get('subPathExpr')} inside claim {claim}, not its root")
    return Result(label, True, f"{path} is the root of claim {claim}")


def verify(v):
    # the outcome: the thumbnailer serves, from the claim that holds the uploads
    v.healthy(NS, "thumbnailer")
    v.mount("Deployment", NS, "thumbnailer", UPLOADS, container="web", pvc="uploads")
    v.references_valid("Deployment", NS, "thumbnailer")
    # the shape: the uploads path is the uploads claim itself (not an emptyDir, a new
    # sub-directory or the claim parked elsewhere), the claim is still bound to the
    # uploads volume, and only the pod's volumes and mounts may change; the claim, the
    # Service and everything else stay as they were throughout, no claim added
    v.serves_whole_claim(NS, "thumbnailer", "web", UPLOADS, "uploads")
    v.field_is("PersistentVolumeClaim", NS, "uploads", "spec.volumeName", "media-uploads")
    v.allow("Deployment", NS, "thumbnailer", [
        "spec.template.spec.volumes",
        "spec.template.spec.containers[name=web].volumeMounts",
    ])
    # pausing the rollout for a multi-step edit and resuming it is fine (it must end
    # unpaused), and so is recording a change-cause
    v.allow("Deployment", NS, "thumbnailer", [
        "spec.paused", 'metadata.annotations["kubernetes.io/change-cause"]'])
    v.field_absent("Deployment", NS, "thumbnailer", "spec.paused")
    v.only_allowed_changes()
    v.no_bare_pods(NS)
