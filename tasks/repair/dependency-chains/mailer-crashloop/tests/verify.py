NS = "mail"
QUEUE = "mail/app=mailer -> mail/app=mail-queue:6379"


def verify(v):
    # the outcome: the workers run and reach their own queue, the relay and DNS
    v.rollout_complete(NS, "mailer")
    v.pods_ready(NS, {"app": "mailer"}, 2)
    v.healthy(NS, "mail-queue")
    v.connectivity("mail/app=mailer", "mail-queue:6379")
    v.connectivity("mail/app=mailer", "smtp-relay:587")
    v.env("Deployment", NS, "mailer", "QUEUE_URL", "redis://mail-queue:6379", container="worker")
    # least privilege by effect: nothing reachable that was not, but the mailer's queue
    # (not the bounce queue, not a whole system namespace), in any rule order, selector
    # form or policy, at any point of the turn
    v.connectivity("mail/app=mailer", "bounce-queue:6379", allowed=False)
    v.no_new_paths(allow=[QUEUE])
    # and nothing that worked is cut off: the relay still reaches out, the bounce pipeline
    # its queue (a default deny added beside the fix would stop the mail once more)
    v.no_lost_paths()
    # the shape: the queue Service's target port and the mailer's egress rules (or a policy
    # beside them) are all a fix may change; nothing deleted, recreated or otherwise touched
    v.allow("Service", NS, "mail-queue", ["spec.ports[name=redis].targetPort"])
    v.allow("NetworkPolicy", NS, "mailer-egress", ["spec.egress"])
    v.allow_new("NetworkPolicy", NS)
    v.only_allowed_changes()
    v.no_bare_pods(NS)
