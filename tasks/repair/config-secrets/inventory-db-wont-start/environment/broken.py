def broken(v):
    # the database is down: its only pod waits for a Secret, no old pod serves
    v.pods_in_state("inventory", {"app": "inventory-db"}, "CreateContainerConfigError")
    v.pods_ready("inventory", {"app": "inventory-db"}, 0)
    v.not_(v.service_has_ready_endpoints("inventory", "inventory-db"))
    v.rollout_complete("inventory", "inventory-api")
