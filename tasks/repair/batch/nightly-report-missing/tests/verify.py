NS = "reporting"


def verify(v):
    # it runs again from tonight on
    v.field_absent("CronJob", NS, "nightly-report", "spec.suspend")
    # and the missing report was produced, by the nightly report itself
    v.job_complete(NS, "nightly-report-catchup")
    v.env("Job", NS, "nightly-report-catchup", "REPORT_KIND", value="nightly")
    v.runs_as_cronjob(NS, "nightly-report-catchup", "nightly-report")
    # only the suspension lifts; when and how it runs, and the other jobs, stay as they are
    v.allow("CronJob", NS, "nightly-report", ["spec.suspend"])
    v.allow_new("Job", NS, "nightly-report-catchup")
    v.only_allowed_changes()
    v.no_bare_pods(NS)
