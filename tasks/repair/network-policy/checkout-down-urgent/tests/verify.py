def verify(v):
    v.rollout_complete("shop", "checkout")
    v.pods_ready("shop", {"app": "checkout"}, 2)
    v.service_has_ready_endpoints("shop", "checkout", minimum=2)
    v.connectivity("shop/app=checkout", "orders-db:5432")
    v.connectivity("shop/app=checkout", "cache:6379")
    # the PCI isolation still holds: nothing else reaches the orders database
    v.connectivity("shop/app=storefront", "orders-db:5432", allowed=False)
    v.connectivity("shop/app=analytics", "orders-db:5432", allowed=False)
    # the same policy, still admitting checkout and only checkout, with no extra rule
    v.uid_preserved("NetworkPolicy", "shop", "orders-db-ingress")
    v.fields_unchanged("NetworkPolicy", "shop", "orders-db-ingress",
                       ["spec.podSelector", "spec.policyTypes", "spec.ingress[0].from",
                        "spec.ingress[1]"])
    v.exact_resource_set("NetworkPolicy", "shop")
    for name in ("default-deny", "allow-dns", "checkout-from-storefront", "storefront-egress",
                 "checkout-egress", "cache-ingress"):
        v.unchanged("NetworkPolicy", "shop", name)
    v.exact_resource_set("PodDisruptionBudget", "shop")
    v.unchanged("PodDisruptionBudget", "shop", "checkout")
    v.unchanged("PodDisruptionBudget", "shop", "storefront")
    # the workloads and Services as they were
    v.fields_unchanged("Deployment", "shop", "checkout",
                       ["spec.replicas", "spec.template.metadata.labels",
                        "spec.template.spec.containers[0].env",
                        "spec.template.spec.containers[0].image"])
    for name in ("orders-db", "cache", "storefront", "analytics"):
        v.unchanged("Deployment", "shop", name)
    for name in ("orders-db", "cache", "checkout", "storefront"):
        v.unchanged("Service", "shop", name)
    v.exact_resource_set("Deployment", "shop")
    v.no_bare_pods("shop")
