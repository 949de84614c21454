"""A task that asks for `addons = ["local-path"]`: the runner installs the provisioner and
its default StorageClass before the task's setup manifests, so a claim the setup makes
without storageClassName is provisioned and Bound on an embedded cluster."""

import json

import pytest

from tests.conftest import wait_for
from tests.tasks.test_lint import TASK_TOML, make_task

CLAIM = """
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: shop}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 64Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: shop}
spec:
  containers:
    - {name: app, image: "busybox:1.36", command: [sleep, "3600"],
       volumeMounts: [{name: data, mountPath: /data}]}
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
"""


@pytest.fixture(scope="module")
def cluster(binaries_built):
    from kubeproof.cluster import EmbeddedCluster

    with EmbeddedCluster(nodes=1) as c:
        yield c


def test_the_runner_installs_the_task_s_addons_before_its_setup(cluster, tmp_path):
    from kubeproof.runner.environment import apply_environment
    from kubeproof.tasks.loader import load

    toml = TASK_TOML.replace("[kubeproof]\n", '[kubeproof]\naddons = ["local-path"]\n', 1)
    assert 'addons = ["local-path"]' in toml
    root = make_task(tmp_path, toml)
    (root / "environment" / "setup" / "20-claim.yaml").write_text(CLAIM)
    task = load(root)
    assert task.spec.kubeproof.addons == ["local-path"]

    apply_environment(cluster, task)
    classes = json.loads(cluster.kubectl("get", "storageclass", "-o", "json").stdout)["items"]
    assert [c["metadata"]["name"] for c in classes] == ["local-path"]
    claim = wait_for(
        lambda: (
            (
                c := json.loads(
                    cluster.kubectl("get", "pvc", "data", "-n", "shop", "-o", "json").stdout
                )
            )["status"].get("phase")
            == "Bound"
            and c
        ),
        90,
        what="claim Bound",
    )
    assert claim["spec"]["volumeName"] == f"pvc-{claim['metadata']['uid']}"
