def broken(v):
    v.pods_in_state("inventory", {"app": "inventory-db"}, "CreateContainerConfigError")
    v.not_(v.rollout_complete("inventory", "inventory-db"))
    v.rollout_complete("inventory", "inventory-api")
