def broken(v):
    # the 5.1 pods still serve; the 5.2 ones never become ready
    v.pods_ready("quotes", {"app": "quote-engine"}, 2)
    v.pods_in_state("quotes", {"app": "quote-engine"}, "NotReady")
    v.not_(v.rollout_complete("quotes", "quote-engine"))
    v.service_has_ready_endpoints("quotes", "quote-engine", minimum=2)
    v.healthy("quotes", "quote-engine-batch")
    v.healthy("quotes", "rates-cache")
