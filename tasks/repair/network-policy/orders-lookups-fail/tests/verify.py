NS = "orders"


def verify(v):
    # the outcome: orders-api resolves and reaches its database
    v.healthy(NS, "orders-api")
    v.connectivity("orders/app=orders-api", "orders-db:5432")
    # still locked down, by effect: nothing in orders became reachable (DNS lives in
    # kube-system), in any rule form or policy, at any point of the turn
    v.connectivity("orders/app=orders-api", "orders-reports:8080", allowed=False)
    v.no_new_paths()
    # the shape: orders-api's egress rules, or a policy beside them, are all a fix may
    # change; the policy still isolates egress, everything else as it was
    v.allow("NetworkPolicy", NS, "orders-api-egress", ["spec.egress"])
    v.allow_new("NetworkPolicy", NS)
    v.only_allowed_changes()
    v.no_bare_pods(NS)
