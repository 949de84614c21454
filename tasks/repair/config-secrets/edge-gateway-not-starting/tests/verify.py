from kubeproof.verify import Result, contract
from kubeproof.verify.workloads import mount

NS = "edge"
GATEWAY = "spec.template.spec.containers[name=gateway]"


@contract
def reads_public_routes(ctx, namespace, name):
    """The public gateway's /etc/gateway/config.yaml is the shared ConfigMap's routes.yaml,
    however it is mounted (items, subPath, a projected volume), and that key exists: not the
    admin routes, not a copy, not a key that was there only for a moment."""
    found = mount(
        ctx, "Deployment", namespace, name, "/etc/gateway/config.yaml",
        container="gateway", configmap="gateway-routes", key="routes.yaml",
    )
    return Result(f"reads_public_routes Deployment {namespace}/{name}", found.passed, found.reason)


def verify(v):
    # 3.1 rolled out, every replica serving
    v.healthy(NS, "gateway")
    v.pods_ready(NS, {"app": "gateway"}, 2)
    v.field_equals("Deployment", NS, "gateway", f"{GATEWAY}.image", "acme/edge-gateway:3.1")
    v.references_valid("Deployment", NS, "gateway")
    # reading the public routes from the shared ConfigMap; only how the gateway mounts them
    # may change (gateway-routes, gateway-admin and the rest stay as they are)
    v.reads_public_routes(NS, "gateway")
    v.allow("Deployment", NS, "gateway",
            ["spec.template.spec.volumes", f"{GATEWAY}.volumeMounts"])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
