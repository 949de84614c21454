def verify(v):
    v.pods_ready("shop", {"app": "storefront"}, 2)
    v.connectivity("shop/app=storefront", "catalog:8080")
    # the intruder stays out
    v.connectivity("shop/app=admin-console", "catalog:8080", allowed=False)
    # the shape: the same policy, still admitting the storefront by its app label only
    v.uid_preserved("NetworkPolicy", "shop", "catalog-ingress")
    v.field_is("NetworkPolicy", "shop", "catalog-ingress",
               "spec.ingress[0].from[0].podSelector.matchLabels.app", "storefront")
    v.fields_unchanged("NetworkPolicy", "shop", "catalog-ingress",
                       ["spec.podSelector", "spec.policyTypes", "spec.ingress[0].ports"])
    v.exact_resource_set("NetworkPolicy", "shop")
    v.unchanged("Deployment", "shop", "storefront")
    v.unchanged("Deployment", "shop", "admin-console")
    v.unchanged("Deployment", "shop", "inventory")
    v.unchanged("NetworkPolicy", "shop", "inventory-ingress")
    v.no_bare_pods("shop")
