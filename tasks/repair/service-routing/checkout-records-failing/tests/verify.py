def verify(v):
    v.rollout_complete("shop", "checkout")
    v.pods_ready("shop", {"app": "checkout"}, 2)
    v.service_has_ready_endpoints("shop", "orders-db")
    v.connectivity("shop/app=checkout", "orders-db:5432")
    # the primary, not the replica
    v.field_is("Service", "shop", "orders-db", "spec.selector", {"app": "orders-db", "role": "primary"})
    v.uid_preserved("Service", "shop", "orders-db")
    v.fields_unchanged(
        "Deployment", "shop", "checkout",
        ["spec.template.spec.containers[0].env", "spec.template.spec.containers[0].image"],
    )
    v.unchanged("Deployment", "shop", "orders-db-replica")
    v.unchanged("Service", "shop", "orders-db-replica")
    v.exact_resource_set("Service", "shop")
    v.exact_resource_set("Deployment", "shop")
    v.no_bare_pods("shop")
