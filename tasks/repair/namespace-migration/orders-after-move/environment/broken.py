def broken(v):
    # orders-api runs but its database (still the old one) refuses connections
    v.pods_in_state("shop", {"app": "orders-api"}, "Running")
    v.pods_ready("shop", {"app": "orders-api"}, 0)
    v.connectivity("shop/app=orders-api", "orders-db.shop-old.svc:5432", allowed=False)
    # the order report never worked in shop: its binding names shop-old's ServiceAccount
    v.pods_in_state("shop", {"app": "order-reporter"}, "NotReady")
    v.permission("system:serviceaccount:shop:order-reporter", "list", "pods", "shop", allowed=False)
    # healthy: the new database, invoice-sync (on shop-old's queue), the storefront
    v.rollout_complete("shop", "orders-db")
    v.service_has_ready_endpoints("shop", "orders-db")
    v.rollout_complete("shop", "invoice-sync")
    v.rollout_complete("shop-old", "invoices-queue")
    v.rollout_complete("shop", "storefront")
    v.service_has_ready_endpoints("shop", "storefront")
