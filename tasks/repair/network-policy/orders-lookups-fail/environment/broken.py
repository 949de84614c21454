def broken(v):
    v.pods_in_state("orders", {"app": "orders-api"}, "Running")
    v.pods_ready("orders", {"app": "orders-api"}, 0)
    v.connectivity("orders/app=orders-api", "orders-db:5432", allowed=False)
    v.rollout_complete("orders", "orders-db")
    v.rollout_complete("orders", "orders-reports")
    v.service_has_ready_endpoints("orders", "orders-db")
    v.service_has_ready_endpoints("orders", "orders-reports")
