"""The netpol track (NetArena's network-policy benchmark, reproducible and exact):
topologies as data, seeded faults, the mismatch report netsim computes from the objects,
and the scores. docs/netpol.md describes it."""
