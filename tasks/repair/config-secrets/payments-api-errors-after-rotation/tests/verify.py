import base64

PROD_URL = base64.b64encode(b"postgres://payments-db:5432/payments").decode()


def verify(v):
    v.rollout_complete("payments", "payments-api")
    v.pods_ready("payments", {"app": "payments-api"}, 2)
    v.service_has_ready_endpoints("payments", "payments-api", minimum=2)
    v.connectivity("payments/app=payments-api", "payments-db:5432")
    # production's own database, through its own Secret
    v.field_is("Secret", "payments", "payments-api", "data.database-url", PROD_URL)
    v.uid_preserved("Secret", "payments", "payments-api")
    v.uid_preserved("Deployment", "payments", "payments-api")
    v.fields_unchanged("Deployment", "payments", "payments-api",
                       ["spec.replicas", "spec.template.spec.containers[0].env",
                        "spec.template.spec.containers[0].image"])
    v.unchanged("Deployment", "payments", "payments-db")
    v.unchanged("Service", "payments", "payments-db")
    v.unchanged("Secret", "payments", "payments-db")
    v.exact_resource_set("Secret", "payments")
    v.no_bare_pods("payments")
    # the look-alike was not touched at all
    v.namespace_untouched("payments-staging")
