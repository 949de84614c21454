CONTAINER = "spec.template.spec.containers[0]"


def verify(v):
    # it runs again from tonight on
    v.field_absent("batch/v1", "CronJob", "nightly-report", "spec.suspend", namespace="reporting")
    # and the missing report was produced, by the report itself
    v.job_complete("reporting", "nightly-report-catchup")
    v.field_is("Job", "reporting", "nightly-report-catchup", f"{CONTAINER}.image",
               "acme/report-builder:2.7")
    v.field_is("Job", "reporting", "nightly-report-catchup", f"{CONTAINER}.env",
               [{"name": "REPORT_KIND", "value": "nightly"},
                {"name": "REPORT_RECIPIENTS", "value": "finance@acme.example"}])
    # when and how it runs is unchanged, on the same object
    v.uid_preserved("CronJob", "reporting", "nightly-report")
    v.fields_unchanged("CronJob", "reporting", "nightly-report",
                       ["spec.schedule", "spec.concurrencyPolicy", "spec.jobTemplate"])
    v.unchanged("CronJob", "reporting", "history-purge")
    v.unchanged("CronJob", "reporting", "weekly-report")
    v.exact_resource_set("CronJob", "reporting")
    v.no_bare_pods("reporting")
