NS = "pricing-lab"


def broken(v):
    # the leftovers are there, the experiment is over (nothing of it runs)
    for kind, name in [
        ("Deployment", "pricing-api-variant-a"),
        ("Service", "pricing-api-variant-a"),
        ("ConfigMap", "pricing-rules-a"),
        ("ConfigMap", "price-test-b-loadgen-script"),
        ("Job", "price-test-b-loadgen"),
    ]:
        v.field_equals(kind, NS, name, "metadata.name", name)
    v.job_complete(NS, "price-test-b-loadgen")
    v.pods_ready(NS, {"track": "variant-a"}, 0)
    # production is serving from the same namespace
    v.healthy(NS, "pricing-api")
