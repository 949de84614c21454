READER = "system:serviceaccount:shop:stock-reporter"


def broken(v):
    # the reporter runs but is not ready: it may not list pods
    v.pods_in_state("shop", {"app": "stock-reporter"}, "Running")
    v.pods_in_state("shop", {"app": "stock-reporter"}, "NotReady")
    v.permission(READER, "list", "pods", "shop", allowed=False)
    # the auditor and the storefront are healthy
    v.rollout_complete("shop", "pod-auditor")
    v.pods_ready("shop", {"app": "pod-auditor"}, 1)
    v.healthy("shop", "storefront")
