def broken(v):
    # the pickers run but cannot reach stock-api: its Service forwards to a port nobody serves
    v.pods_in_state("warehouse", {"app": "picker"}, "Running")
    v.pods_ready("warehouse", {"app": "picker"}, 0)
    v.connectivity("warehouse/app=picker", "stock-api:80", allowed=False)
    # stock-api itself is healthy and its metrics Service answers
    v.rollout_complete("warehouse", "stock-api")
    v.service_has_ready_endpoints("warehouse", "stock-api-metrics", minimum=2)
    v.connectivity("warehouse/app=picker", "stock-api-metrics:9090")
