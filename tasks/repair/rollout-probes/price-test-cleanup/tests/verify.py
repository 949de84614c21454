NS = "pricing-lab"
LEFTOVERS = [
    ("Deployment", "pricing-api-variant-a"),
    ("Service", "pricing-api-variant-a"),
    ("ConfigMap", "pricing-rules-a"),
    ("ConfigMap", "price-test-b-loadgen-script"),
    ("Job", "price-test-b-loadgen"),
]


def verify(v):
    # the leftovers are gone
    for kind, name in LEFTOVERS:
        v.absent(kind, NS, name)
    # production kept serving, with everything it reads
    v.healthy(NS, "pricing-api")
    v.pods_ready(NS, {"app": "pricing-api", "track": "stable"}, 2)
    v.references_valid("Deployment", NS, "pricing-api")
    v.env("Deployment", NS, "pricing-api", "DISCOUNT_MODEL", value="tiered",
          configmap=("pricing-rules-b", "DISCOUNT_MODEL"))
    v.env("Deployment", NS, "pricing-api", "CURRENCY", value="EUR",
          configmap=("pricing-api-config", "CURRENCY"))
    # only the leftovers may go; everything else (the namespace itself included) stays as
    # it is at every point
    for kind, name in LEFTOVERS:
        v.allow(kind, NS, name, delete=True)
    v.only_allowed_changes()
    v.no_bare_pods(NS)
