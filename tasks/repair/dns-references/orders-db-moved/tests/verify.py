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


@contract(baseline=True)
def env_names_unchanged(ctx):
    """orders' api container ends up with the same environment variables, by name, as at
    baseline: loading its URL through envFrom brings in nothing else."""
    name = "env_names_unchanged shop/orders"
    obj, problem = read_object(ctx, "Deployment", "shop", "orders")
    before = ctx.baseline.get("Deployment", "shop", "orders")
    if obj is None or before is None:
        return Result(name, False, problem or "orders is not in the baseline")
    objects = _Objects(ctx, "shop")

    def names(deployment):
        return {var for c in pod_spec(deployment).get("containers") or []
                if c.get("name") == "api" for var in effective_env(c, objects)}

    added, lost = names(obj) - names(before), names(before) - names(obj)
    problems = ([f"adds {', '.join(sorted(added))}"] if added else []) + (
        [f"loses {', '.join(sorted(lost))}"] if lost else [])
    return Result(name, not problems, "; ".join(problems) or "the same variables as before")


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
            ["spec.template.spec.containers[name=api].env[name=DATABASE_URL]",
             # the URL may also be loaded whole from that ConfigMap (envFrom), so long as
             # nothing but DATABASE_URL comes with it
             "spec.template.spec.containers[name=api].envFrom"])
    v.env_names_unchanged()
    v.allow_new("ConfigMap", "shop")
    v.only_allowed_changes()
    v.no_bare_pods("shop")
