def broken(v):
    # the renderer cannot be placed: its only node is still cordoned after maintenance
    v.pods_in_state("billing", {"app": "invoice-render"}, "Unschedulable")
    v.pods_ready("billing", {"app": "invoice-render"}, 0)
    v.field_equals("Node", None, "render", "spec.unschedulable", True)
    # the rest of billing is healthy
    v.healthy("billing", "billing-api")
