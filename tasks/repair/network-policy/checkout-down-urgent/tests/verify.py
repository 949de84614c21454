NS = "shop"
DB = "shop/app=checkout -> shop/app=orders-db:5432"


def verify(v):
    # the outcome: checkout serves, with its database and cache
    v.healthy(NS, "checkout")
    v.connectivity("shop/app=checkout", "orders-db:5432")
    v.connectivity("shop/app=checkout", "cache:6379")
    # the PCI isolation by effect: nothing reaches the database but checkout, and nothing
    # anywhere opened beyond checkout's path, in any rule form, at any point of the turn
    v.connectivity("shop/app=storefront", "orders-db:5432", allowed=False)
    v.connectivity("shop/app=analytics", "orders-db:5432", allowed=False)
    v.no_new_paths(allow=[DB])
    v.no_lost_paths()  # and nothing that worked cut off
    # the shape: the database policy's rules are all a fix may change; no policy added,
    # removed or recreated, the workloads, Services and disruption budgets as they were
    v.allow("NetworkPolicy", NS, "orders-db-ingress", ["spec.ingress"])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
