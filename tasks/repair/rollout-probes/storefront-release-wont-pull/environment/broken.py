def broken(v):
    # the new pods cannot pull their image; the old ones still serve
    v.pods_in_state("web", {"app": "storefront"}, "ImagePullBackOff")
    v.pods_ready("web", {"app": "storefront"}, 2)
    v.not_(v.rollout_complete("web", "storefront"))
    v.service_has_ready_endpoints("web", "storefront", minimum=2)
