LEFTOVERS = [
    ("apps/v1", "Deployment", "pricing-api-variant-a"),
    ("v1", "Service", "pricing-api-variant-a"),
    ("v1", "ConfigMap", "pricing-rules-a"),
    ("v1", "ConfigMap", "price-test-b-loadgen-script"),
    ("batch/v1", "Job", "price-test-b-loadgen"),
]


def verify(v):
    # the leftovers are gone (an object that is not there has no name to compare)
    for api, kind, name in LEFTOVERS:
        v.not_(v.field_equals(api, kind, name, "metadata.name", name, namespace="pricing-lab"))
    # production kept serving, from the same objects, with what it reads
    v.rollout_complete("pricing-lab", "pricing-api")
    v.pods_ready("pricing-lab", {"app": "pricing-api", "track": "stable"}, 2)
    v.service_has_ready_endpoints("pricing-lab", "pricing-api", minimum=2)
    # the namespace itself stays (and is not left terminating)
    v.uid_preserved("Namespace", None, "pricing-lab")
    v.fields_unchanged("Namespace", None, "pricing-lab", ["metadata.deletionTimestamp"])
    v.unchanged("Deployment", "pricing-lab", "pricing-api")
    v.unchanged("Service", "pricing-lab", "pricing-api")
    v.unchanged("ConfigMap", "pricing-lab", "pricing-api-config")
    v.unchanged("ConfigMap", "pricing-lab", "pricing-rules-b")
    v.no_bare_pods("pricing-lab")
