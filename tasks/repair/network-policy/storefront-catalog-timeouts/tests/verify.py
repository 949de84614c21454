NS = "shop"
STOREFRONT = "shop/app=storefront -> shop/app=catalog:8080"


def verify(v):
    # the outcome: the storefront serves again
    v.healthy(NS, "storefront")
    v.connectivity("shop/app=storefront", "catalog:8080")
    # the catalog stays locked down, by effect: the console stays out and nothing opened
    # beyond the storefront's path, in any selector form, at any point of the turn
    v.connectivity("shop/app=admin-console", "catalog:8080", allowed=False)
    v.no_new_paths(allow=[STOREFRONT])
    v.no_lost_paths()  # and nothing that worked cut off
    # the shape: the catalog policy's rules are all a fix may change; no policy added,
    # removed or recreated, the workloads and the inventory policy as they were
    v.allow("NetworkPolicy", NS, "catalog-ingress", ["spec.ingress"])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
