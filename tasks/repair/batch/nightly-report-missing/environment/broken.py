def broken(v):
    # suspended (field_equals cannot compare booleans: bool is an int to its number path)
    v.not_(v.field_absent("batch/v1", "CronJob", "nightly-report", "spec.suspend",
                          namespace="reporting"))
    v.not_(v.field_absent("batch/v1", "CronJob", "history-purge", "spec.suspend",
                          namespace="reporting"))
    v.field_absent("batch/v1", "CronJob", "weekly-report", "spec.suspend", namespace="reporting")
