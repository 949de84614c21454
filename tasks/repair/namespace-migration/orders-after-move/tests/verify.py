from urllib.parse import urlsplit

from lightkube.resources.apps_v1 import Deployment

from kubeproof.verify.result import Result

REPORTER = "system:serviceaccount:shop:order-reporter"
# every name that resolves from shop to shop's own orders-db
SHOP_DB = {"orders-db", "orders-db.shop", "orders-db.shop.svc", "orders-db.shop.svc.cluster.local"}


def database_url_targets_shop(v):
    """orders-api's DATABASE_URL names shop's orders-db (any resolvable form), same database."""
    name = "database_url_targets_shop shop/orders-api"
    dep = v.client.get(Deployment, "orders-api", namespace="shop")
    env = {e.name: e for e in dep.spec.template.spec.containers[0].env or []}
    url = env["DATABASE_URL"].value if "DATABASE_URL" in env else None
    if not url:
        v.results.append(Result(name, False, "DATABASE_URL is not a literal value", "contract"))
        return
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".")
    ok = parts.scheme == "postgres" and host in SHOP_DB and (parts.port or 5432) == 5432 \
        and parts.path == "/orders"
    v.results.append(Result(name, ok, f"DATABASE_URL={url}", "contract"))


def verify(v):
    # orders work on the new database
    v.rollout_complete("shop", "orders-api")
    v.pods_ready("shop", {"app": "orders-api"}, 2)
    v.connectivity("shop/app=orders-api", "orders-db.shop:5432")
    database_url_targets_shop(v)
    v.fields_unchanged("Deployment", "shop", "orders-api", ["spec.template.spec.containers[0].image"])
    # the report works with shop's own ServiceAccount, and only that one
    v.pods_ready("shop", {"app": "order-reporter"}, 1)
    v.permission(REPORTER, "list", "pods", "shop")
    v.permission(REPORTER, "watch", "pods", "shop")
    v.permission("system:serviceaccount:shop-old:order-reporter", "list", "pods", "shop", allowed=False)
    v.permission("system:serviceaccount:shop:default", "list", "pods", "shop", allowed=False)
    v.field_is("RoleBinding", "shop", "order-reporter", "subjects",
               [{"kind": "ServiceAccount", "name": "order-reporter", "namespace": "shop"}])
    v.rbac_rules_exact("shop", "order-reporter",
                       [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}])
    v.rbac_no_wildcards("shop")
    v.no_new_cluster_rbac()
    v.fields_unchanged("Deployment", "shop", "order-reporter", ["spec.template.spec.serviceAccountName"])
    # fixed in place, nothing added
    v.uid_preserved("RoleBinding", "shop", "order-reporter")
    v.uid_preserved("Deployment", "shop", "orders-api")
    for kind in ("Deployment", "Service", "Role", "RoleBinding", "ServiceAccount"):
        v.exact_resource_set(kind, "shop")
    # what was right stays: invoice-sync on shop-old's queue; shop-old is frozen
    v.rollout_complete("shop", "invoice-sync")
    v.unchanged("Deployment", "shop", "invoice-sync")
    v.unchanged("Deployment", "shop", "orders-db")
    v.namespace_untouched("shop-old")
    v.no_bare_pods("shop")
