"""The apiserver audit log: ground truth of every request an agent made.

Reads are logged at Metadata, writes at RequestResponse. The control plane's own
housekeeping (lease renewals, controller and scheduler traffic) is left out so the log
holds what users and agents did, and stays small.
"""

import json
from collections.abc import Iterator
from pathlib import Path

import yaml

POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived"],
    "rules": [
        {
            "level": "None",
            "users": [
                "system:kube-controller-manager",
                "system:kube-scheduler",
                "system:apiserver",
                "kubeproof:nodesim",
            ],
        },
        {"level": "None", "userGroups": ["system:serviceaccounts:kube-system"]},
        {"level": "None", "nonResourceURLs": ["/healthz*", "/readyz*", "/livez*", "/version"]},
        # kubelet heartbeats and kubelet events
        {
            "level": "None",
            "userGroups": ["system:nodes"],
            "verbs": ["get", "create", "update", "patch"],
            "namespaces": ["kube-node-lease"],
            "resources": [{"group": "coordination.k8s.io", "resources": ["leases"]}],
        },
        {
            "level": "None",
            "userGroups": ["system:nodes"],
            "verbs": ["create", "patch", "update"],
            "resources": [{"group": "", "resources": ["events"]}],
        },
        # pod and node status as the (simulated) kubelet reports it
        {
            "level": "None",
            "userGroups": ["system:nodes"],
            "verbs": ["get", "patch", "update"],
            "resources": [{"group": "", "resources": ["pods/status", "nodes/status"]}],
        },
        {"level": "Metadata", "verbs": ["get", "list", "watch"]},
        # Writes keep the stored object, Secrets' included: the verifier judges every state
        # an object went through (verify/history.py). The log stays in the cluster's state
        # directory, out of the sandbox's reach; evidence copies only its metadata.
        {"level": "RequestResponse"},
    ],
}


def write_policy(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(POLICY, sort_keys=False))


def read_events(path: Path, offset: int = 0) -> Iterator[dict]:
    """Audit events in the order the apiserver wrote them, from byte `offset`; a torn last
    line is skipped."""
    if not path.exists():
        return
    with path.open("rb") as fh:
        fh.seek(offset)
        for line in fh:
            try:
                yield json.loads(line)
            except ValueError:
                continue
