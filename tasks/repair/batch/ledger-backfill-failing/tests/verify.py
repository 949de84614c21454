CONTAINER = "spec.template.spec.containers[0]"


def verify(v):
    v.job_complete("ledger", "ledger-backfill")
    # the export itself, as the nightly runs it
    v.field_is("Job", "ledger", "ledger-backfill", f"{CONTAINER}.image", "acme/ledger-export:1.4")
    v.field_is("Job", "ledger", "ledger-backfill", f"{CONTAINER}.env",
               [{"name": "EXPORT_REGION", "value": "eu-west-1"},
                {"name": "EXPORT_BUCKET", "value": "s3://acme-ledger-exports"}])
    v.exact_resource_set("Job", "ledger")
    v.unchanged("CronJob", "ledger", "ledger-export")
    v.no_bare_pods("ledger")
