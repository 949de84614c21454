READER = "system:serviceaccount:ledger:reporter"


def broken(v):
    v.permission(READER, "list", "pods", "ledger", allowed=False)
