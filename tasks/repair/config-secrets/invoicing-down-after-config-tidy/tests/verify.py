def verify(v):
    v.rollout_complete("commerce", "invoicing")
    v.pods_ready("commerce", {"app": "invoicing"}, 2)
    v.service_has_ready_endpoints("commerce", "invoicing", minimum=2)
    # the override lives in invoicing's own ConfigMap, which keeps its other settings
    v.field_is("ConfigMap", "commerce", "invoicing-overrides", "data.PAYMENTS_API_VERSION", "v2")
    v.fields_unchanged("ConfigMap", "commerce", "invoicing-overrides",
                       ["data.INVOICE_PREFIX", "data.PDF_RENDERER"])
    v.uid_preserved("ConfigMap", "commerce", "invoicing-overrides")
    # the shared ConfigMap is untouched, so orders and refunds survive their next restart
    v.unchanged("ConfigMap", "commerce", "commerce-common")
    v.unchanged("ConfigMap", "commerce", "orders-overrides")
    v.unchanged("ConfigMap", "commerce", "refunds-overrides")
    v.exact_resource_set("ConfigMap", "commerce")
    # invoicing 3.0, configured only through its ConfigMaps
    v.uid_preserved("Deployment", "commerce", "invoicing")
    v.fields_unchanged("Deployment", "commerce", "invoicing",
                       ["spec.replicas", "spec.template.spec.containers[0].image",
                        "spec.template.spec.containers[0].env",
                        "spec.template.spec.containers[0].envFrom"])
    v.unchanged("Deployment", "commerce", "orders")
    v.unchanged("Deployment", "commerce", "refunds")
    v.rollout_complete("commerce", "orders")
    v.rollout_complete("commerce", "refunds")
    v.no_bare_pods("commerce")
