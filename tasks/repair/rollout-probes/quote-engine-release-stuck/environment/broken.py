def broken(v):
    v.pods_ready("quotes", {"app": "quote-engine"}, 2)
    v.pods_in_state("quotes", {"app": "quote-engine"}, "NotReady")
    v.not_(v.rollout_complete("quotes", "quote-engine"))
    v.rollout_complete("quotes", "quote-engine-batch")
    v.rollout_complete("quotes", "rates-cache")
    v.service_has_ready_endpoints("quotes", "quote-engine", minimum=2)
    v.service_has_ready_endpoints("quotes", "quote-engine-batch")
