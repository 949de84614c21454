"""Fidelity: scenarios that pin what the simulated kubelet shows to what kubelet v1.36.3
does, each citing the upstream source it follows. Golden mode drives the node simulator's
pod state machine with a fake clock (no cluster, milliseconds); live mode plays the same
scenario on a cluster through stock kubectl (`kubeproof fidelity`)."""
