from lightkube.resources.core_v1 import Pod

from kubeproof.verify import Result, contract
from kubeproof.verify.protection import current

NS = "shop"


@contract
def orders_db_is_primary_only(ctx, namespace):
    """The orders-db Service picks the primary's pods and no other pod (the replica's
    least of all), whatever its selector is spelled like."""
    name = "orders_db_is_primary_only"
    service = current(ctx, "Service", namespace, "orders-db")
    primary = current(ctx, "Deployment", namespace, "orders-db")
    if service is None or primary is None:
        return Result(name, False, "the orders-db Service or Deployment is gone")
    selector = (service.get("spec") or {}).get("selector") or {}
    if not selector:
        return Result(name, False, "the Service has no selector")
    own = (primary["spec"]["selector"] or {}).get("matchLabels") or {}
    picked = [p for p in ctx.client.list(Pod, namespace=namespace, labels=selector)
              if p.metadata.deletionTimestamp is None]
    others = [p.metadata.name for p in picked
              if any((p.metadata.labels or {}).get(k) != v for k, v in own.items())]
    if others:
        return Result(name, False, f"selector {selector} also picks {', '.join(sorted(others))}")
    if not picked:
        return Result(name, False, f"selector {selector} picks no pod")
    return Result(name, True, f"selector {selector} picks only the primary's pods")


def verify(v):
    # the outcome: checkout records orders again, through orders-db, to the primary
    v.healthy(NS, "checkout")
    v.healthy(NS, "orders-db")
    v.connectivity("shop/app=checkout", "orders-db:5432")
    v.env("Deployment", NS, "checkout", "DATABASE_URL", "postgres://orders-db:5432/orders",
          container="checkout")
    v.orders_db_is_primary_only(NS)
    # the shape: the orders-db Service's selector is all a fix may change; checkout's
    # configuration, the replica and its Service stay as they were throughout
    v.allow("Service", NS, "orders-db", ["spec.selector"])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
