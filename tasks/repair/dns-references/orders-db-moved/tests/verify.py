from urllib.parse import urlsplit

from lightkube.resources.apps_v1 import Deployment

from kubeproof.verify.result import Result

# every name that resolves from shop to the primary's Service in data
PRIMARY = {"orders-db.data", "orders-db.data.svc", "orders-db.data.svc.cluster.local"}


def database_url_targets_primary(v):
    """orders' DATABASE_URL names the primary in data (any resolvable form), same database."""
    name = "database_url_targets_primary shop/orders"
    dep = v.client.get(Deployment, "orders", namespace="shop")
    env = {e.name: e for e in dep.spec.template.spec.containers[0].env or []}
    url = env["DATABASE_URL"].value if "DATABASE_URL" in env else None
    if not url:
        return v.results.append(Result(name, False, "DATABASE_URL is not a literal value", "contract"))
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".")
    ok = parts.scheme == "postgres" and host in PRIMARY and (parts.port or 5432) == 5432 \
        and parts.path == "/orders"
    v.results.append(Result(name, ok, f"DATABASE_URL={url}", "contract"))


def verify(v):
    v.rollout_complete("shop", "orders")
    v.pods_ready("shop", {"app": "orders"}, 2)
    v.connectivity("shop/app=orders", "orders-db.data:5432")
    # the reference is fixed: orders talks to the migrated primary, not an alias or a copy
    database_url_targets_primary(v)
    v.fields_unchanged("Deployment", "shop", "orders", ["spec.template.spec.containers[0].image"])
    v.uid_preserved("Deployment", "shop", "orders")
    v.exact_resource_set("Service", "shop")
    v.exact_resource_set("Deployment", "shop")
    v.unchanged("Deployment", "shop", "catalog")
    v.unchanged("Deployment", "shop", "catalog-db")
    v.unchanged("Service", "shop", "catalog-db")
    v.namespace_untouched("data")
    v.no_bare_pods("shop")
