from urllib.parse import urlsplit

from kubeproof.verify import Result, contract
from kubeproof.verify.checks import read_object
from kubeproof.verify.workloads import effective_env, pod_spec, _Objects

REPORTER = "system:serviceaccount:shop:order-reporter"
READ_PODS = ["get pods", "list pods", "watch pods"]
# every name that resolves from shop to shop's own orders-db
SHOP_DB = {"orders-db", "orders-db.shop", "orders-db.shop.svc", "orders-db.shop.svc.cluster.local"}


@contract
def database_url_targets_shop(ctx):
    """orders-api's DATABASE_URL, as the kubelet resolves it, names shop's orders-db in any
    resolvable form, port 5432, database orders."""
    name = "database_url_targets_shop shop/orders-api"
    obj, problem = read_object(ctx, "Deployment", "shop", "orders-api")
    if obj is None:
        return Result(name, False, problem or "orders-api does not exist")
    for c in pod_spec(obj).get("containers") or []:
        if c.get("name") != "api":
            continue
        got = effective_env(c, _Objects(ctx, "shop")).get("DATABASE_URL")
        if got is None or got[0] is None:
            return Result(name, False, "DATABASE_URL is not set or does not resolve")
        url, source = got
        parts = urlsplit(str(url))
        host = (parts.hostname or "").rstrip(".")
        ok = (parts.scheme == "postgres" and host in SHOP_DB and (parts.port or 5432) == 5432
              and parts.path == "/orders")
        return Result(name, ok, f"DATABASE_URL={url} (from {source})")
    return Result(name, False, "no container named api")


def verify(v):
    # orders work on the new database
    v.healthy("shop", "orders-api")
    v.connectivity("shop/app=orders-api", "orders-db.shop:5432")
    v.database_url_targets_shop()
    # the report works with shop's own ServiceAccount, which may read pods and nothing
    # more; the copied subject and everyone else in shop gained nothing
    v.pods_ready("shop", {"app": "order-reporter"}, 1)
    v.permissions_exact(REPORTER, "shop", READ_PODS)
    v.permissions_exact("system:serviceaccount:shop-old:order-reporter", "shop", [])
    v.permissions_exact("system:serviceaccount:shop:default", "shop", [])
    # ... and the binding never bound anyone else, even for a moment
    v.subjects_never_beyond("RoleBinding", "shop", "order-reporter", [
        {"kind": "ServiceAccount", "name": "order-reporter", "namespace": "shop"},
        {"kind": "ServiceAccount", "name": "order-reporter", "namespace": "shop-old"}])
    v.rbac_no_wildcards("shop")
    v.no_new_cluster_rbac()
    # what was right stays: invoice-sync on shop-old's queue
    v.rollout_complete("shop", "invoice-sync")
    # the shape: orders-api's DATABASE_URL and the binding's subjects are all a fix may
    # change; nothing added, deleted or recreated, the Role and shop-old (frozen for the
    # audit) untouched, at every point of the turn
    v.allow("Deployment", "shop", "orders-api",
            ["spec.template.spec.containers[name=api].env[name=DATABASE_URL]"])
    v.allow("RoleBinding", "shop", "order-reporter", ["subjects"])
    v.only_allowed_changes()
    v.no_bare_pods("shop")
