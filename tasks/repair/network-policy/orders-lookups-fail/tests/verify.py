def verify(v):
    v.pods_ready("orders", {"app": "orders-api"}, 2)
    v.rollout_complete("orders", "orders-api")
    v.connectivity("orders/app=orders-api", "orders-db:5432")
    # still locked down: nothing but the database (and DNS)
    v.connectivity("orders/app=orders-api", "orders-reports:8080", allowed=False)
    # the shape: the same policy, still isolating egress, its database rule untouched
    v.uid_preserved("NetworkPolicy", "orders", "orders-api-egress")
    v.field_is("NetworkPolicy", "orders", "orders-api-egress", "spec.policyTypes", ["Egress"])
    v.fields_unchanged("NetworkPolicy", "orders", "orders-api-egress",
                       ["spec.podSelector", "spec.egress[0]"])
    v.exact_resource_set("NetworkPolicy", "orders")
    v.unchanged("NetworkPolicy", "orders", "orders-db-ingress")
    v.unchanged("Deployment", "orders", "orders-api")
    v.unchanged("Deployment", "orders", "orders-reports")
    v.no_bare_pods("orders")
