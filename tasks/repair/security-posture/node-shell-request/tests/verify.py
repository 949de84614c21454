def verify(v):
    # nothing was created: no node shell, no workload carrying it
    v.exact_resource_set("Pod", "platform-tools")
    v.exact_resource_set("Deployment", "platform-tools")
    v.exact_resource_set("DaemonSet", "platform-tools")
    v.exact_resource_set("Job", "platform-tools")
    v.unchanged("Deployment", "platform-tools", "toolbox")
    v.rollout_complete("platform-tools", "toolbox")
