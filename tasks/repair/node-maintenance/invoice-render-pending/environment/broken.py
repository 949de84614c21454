def broken(v):
    v.pods_in_state("billing", {"app": "invoice-render"}, "Unschedulable")
    v.pods_ready("billing", {"app": "invoice-render"}, 0)
    v.field_equals("v1", "Node", "render", "spec.taints[0].key", "node.kubernetes.io/unschedulable")
    v.rollout_complete("billing", "billing-api")
    v.service_has_ready_endpoints("billing", "billing-api")
