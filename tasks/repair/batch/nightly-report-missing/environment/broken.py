def broken(v):
    v.field_equals("CronJob", "reporting", "nightly-report", "spec.suspend", True)
    v.field_equals("CronJob", "reporting", "history-purge", "spec.suspend", True)
    v.field_absent("CronJob", "reporting", "weekly-report", "spec.suspend")
