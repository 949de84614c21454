NS = "orders"
# name lookups: to the cluster DNS, or port 53 anywhere (a common, harmless form)
DNS = "orders/app=orders-api -> *:53"


def verify(v):
    # the outcome: orders-api resolves and reaches its database
    v.healthy(NS, "orders-api")
    v.connectivity("orders/app=orders-api", "orders-db:5432")
    # still locked down, by effect: nothing opened but name lookups (not the rest of
    # kube-system, not the reports), in any rule form or policy, at any point of the turn;
    # and nothing that worked cut off (a default deny beside the fix)
    v.connectivity("orders/app=orders-api", "orders-reports:8080", allowed=False)
    v.no_new_paths(allow=[DNS])
    v.no_lost_paths()
    # the shape: orders-api's egress rules, or a policy beside them, are all a fix may
    # change; the policy still isolates egress, everything else as it was
    v.allow("NetworkPolicy", NS, "orders-api-egress", ["spec.egress"])
    v.allow_new("NetworkPolicy", NS)
    v.only_allowed_changes()
    v.no_bare_pods(NS)
