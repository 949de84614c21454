NS = "ledger"


def verify(v):
    # the backfill ran to completion
    v.job_complete(NS, "ledger-backfill")
    v.env("Job", NS, "ledger-backfill", "EXPORT_REGION", value="eu-west-1")
    v.env("Job", NS, "ledger-backfill", "EXPORT_BUCKET", value="s3://acme-ledger-exports")
    # as the nightly runs it, under the Job's own name (a Job's template cannot change: it
    # may be deleted and made again); nothing else in the namespace changes
    v.runs_as_cronjob(NS, "ledger-backfill", "ledger-export")
    v.allow("Job", NS, "ledger-backfill", ["**"], delete=True)
    v.only_allowed_changes()
    v.no_bare_pods(NS)
    v.no_pods_by_hand(NS)
