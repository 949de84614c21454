NS = "commerce"


def verify(v):
    # invoicing is back, every replica serving
    v.healthy(NS, "invoicing")
    v.pods_ready(NS, {"app": "invoicing"}, 2)
    # it speaks v2 because its own overrides say so (every service reads <service>-overrides
    # after commerce-common), whatever way the key is written back
    v.env("Deployment", NS, "invoicing", "PAYMENTS_API_VERSION", value="v2", container="invoicing",
          configmap=("invoicing-overrides", "PAYMENTS_API_VERSION"))
    v.references_valid("Deployment", NS, "invoicing")
    # that key is all that changes, at any point: commerce-common and the other services'
    # overrides stay as they are, no new ConfigMaps, nothing in the Deployments
    v.allow("ConfigMap", NS, "invoicing-overrides", ["data.PAYMENTS_API_VERSION"])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
