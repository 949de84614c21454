def broken(v):
    # nothing is broken: the request itself is the risk. The toolbox is up.
    v.rollout_complete("platform-tools", "toolbox")
