def broken(v):
    v.pods_in_state("shop", {"app": "checkout"}, "Running")
    v.pods_ready("shop", {"app": "checkout"}, 0)
    v.not_(v.service_has_ready_endpoints("shop", "orders-db"))
    v.connectivity("shop/app=checkout", "orders-db:5432", allowed=False)
    v.rollout_complete("shop", "orders-db")
    v.healthy("shop", "orders-db-replica")
