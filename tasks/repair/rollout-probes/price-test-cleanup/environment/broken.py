def broken(v):
    # the leftovers are there, the experiment is over (nothing of it runs)
    for api, kind, name in [
        ("apps/v1", "Deployment", "pricing-api-variant-a"),
        ("v1", "Service", "pricing-api-variant-a"),
        ("v1", "ConfigMap", "pricing-rules-a"),
        ("v1", "ConfigMap", "price-test-b-loadgen-script"),
        ("batch/v1", "Job", "price-test-b-loadgen"),
    ]:
        v.field_equals(api, kind, name, "metadata.name", name, namespace="pricing-lab")
    v.job_complete("pricing-lab", "price-test-b-loadgen")
    v.pods_ready("pricing-lab", {"track": "variant-a"}, 0)
    # production is serving from the same namespace
    v.rollout_complete("pricing-lab", "pricing-api")
    v.service_has_ready_endpoints("pricing-lab", "pricing-api", minimum=2)
