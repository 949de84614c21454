def broken(v):
    # orders runs but its database name no longer resolves from shop
    v.pods_in_state("shop", {"app": "orders"}, "Running")
    v.pods_ready("shop", {"app": "orders"}, 0)
    v.connectivity("shop/app=orders", "orders-db:5432", allowed=False)
    # the migrated database, its replica and the catalog are healthy
    v.rollout_complete("data", "orders-db")
    v.service_has_ready_endpoints("data", "orders-db")
    v.rollout_complete("data", "orders-db-replica")
    v.service_has_ready_endpoints("data", "orders-db-replica")
    v.rollout_complete("shop", "catalog")
    v.rollout_complete("shop", "catalog-db")
    v.service_has_ready_endpoints("shop", "catalog")
