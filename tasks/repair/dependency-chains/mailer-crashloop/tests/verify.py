def verify(v):
    v.rollout_complete("mail", "mailer")
    v.pods_ready("mail", {"app": "mailer"}, 2)
    v.connectivity("mail/app=mailer", "mail-queue:6379")
    # still least privilege: not the bounce queue
    v.connectivity("mail/app=mailer", "bounce-queue:6379", allowed=False)
    # the shape: the same policy and Service; existing rules kept, one rule for the queue
    v.uid_preserved("NetworkPolicy", "mail", "mailer-egress")
    v.uid_preserved("Service", "mail", "mail-queue")
    v.fields_unchanged("NetworkPolicy", "mail", "mailer-egress",
                       ["spec.podSelector", "spec.policyTypes", "spec.egress[0]", "spec.egress[1]"])
    v.field_is("NetworkPolicy", "mail", "mailer-egress",
               "spec.egress[2].to[0].podSelector.matchLabels.app", "mail-queue")
    v.fields_unchanged("Service", "mail", "mail-queue", ["spec.selector", "spec.ports[0].port"])
    v.exact_resource_set("NetworkPolicy", "mail")
    v.exact_resource_set("Service", "mail")
    v.unchanged("Deployment", "mail", "mailer")
    for name in ("bounce-queue", "bounce-processor", "smtp-relay", "mail-queue"):
        v.unchanged("Deployment", "mail", name)
    v.unchanged("NetworkPolicy", "mail", "bounce-egress")
    v.unchanged("Service", "mail", "bounce-queue")
    v.no_bare_pods("mail")
