def broken(v):
    # checkout runs but cannot resolve its payments URL
    v.pods_in_state("shop", {"app": "checkout"}, "Running")
    v.pods_ready("shop", {"app": "checkout"}, 0)
    v.connectivity("shop/app=checkout", "payments-api.payments.svc.cluster:8080", allowed=False)
    # payments itself is healthy, and so is the cart (the other reader of checkout-config)
    v.healthy("payments", "payments-api")
    v.healthy("shop", "cart")
