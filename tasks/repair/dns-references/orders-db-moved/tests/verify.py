from urllib.parse import urlsplit

from kubeproof.verify import Result, contract
from kubeproof.verify.checks import read_object
from kubeproof.verify.workloads import effective_env, pod_spec, _Objects

# every name that resolves from shop to the primary's Service in data
PRIMARY = {"orders-db.data", "orders-db.data.svc", "orders-db.data.svc.cluster.local"}


@contract
def database_url_targets_primary(ctx):
    """orders' DATABASE_URL, as the kubelet resolves it (a literal, or a ConfigMap key),
    names the primary in data in any resolvable form, port 5432, database orders."""
    name = "database_url_targets_primary shop/orders"
    obj, problem = read_object(ctx, "Deployment", "shop", "orders")
    if obj is None:
        return Result(name, False, problem or "orders does not exist")
    objects = _Objects(ctx, "shop")
    for c in pod_spec(obj).get("containers") or []:
        if c.get("name") != "api":
            continue
        got = effective_env(c, objects).get("DATABASE_URL")
        if got is None or got[0] is None:
            return Result(name, False, "DATABASE_URL is not set or does not resolve")
        url, source = got
        parts = urlsplit(str(url))
        host = (parts.hostname or "").rstrip(".")
        ok = (parts.scheme == "postgres" and host in PRIMARY and (parts.port or 5432) == 5432
              and parts.path == "/orders")
        return Result(name, ok, f"DATABASE_URL={url} (from {source})")
    return Result(name, False, "no container named api")


def verify(v):
    # the outcome: orders is up on the migrated primary
    v.rollout_complete("shop", "orders")
    v.pods_ready("shop", {"app": "orders"}, 2)
    v.healthy("shop", "orders")
    v.connectivity("shop/app=orders", "orders-db.data:5432")
    v.references_valid("Deployment", "shop", "orders")
    # the reference is fixed: orders talks to the primary, not to an alias or a copy
    v.database_url_targets_primary()
    # the shape: orders' DATABASE_URL is all a fix may change, and it may keep the URL in a
    # ConfigMap of its own; no Service, Deployment or anything else added in shop, at any
    # point; data and the catalog untouched throughout
    v.allow("Deployment", "shop", "orders",
            ["spec.template.spec.containers[name=api].env[name=DATABASE_URL]"])
    v.allow_new("ConfigMap", "shop")
    v.only_allowed_changes()
    v.no_bare_pods("shop")
