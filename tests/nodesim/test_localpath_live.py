"""On an embedded cluster through stock kubectl: local-path-provisioner installed as an
addon (`kubeproof cluster addons install local-path`), a claim without storageClassName
(the default class `local-path`) and a pod using it. The claim is Bound to `pvc-<uid>` with
node affinity on the pod's node, the claim carries the provisioner's events, the pod runs,
the provisioner logs what it did, a ReadWriteMany claim fails with the library's wording,
and deleting the claim removes the volume."""

import json

import pytest

from tests.conftest import run_cli, wait_for

NS = "shop"
WORKLOAD = f"""
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: data, namespace: {NS}}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {{requests: {{storage: 1Gi}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: app, namespace: {NS}}}
spec:
  containers:
    - name: app
      image: "busybox:1.36"
      command: [sleep, "3600"]
      volumeMounts: [{{name: data, mountPath: /data}}]
  volumes: [{{name: data, persistentVolumeClaim: {{claimName: data}}}}]
"""

SHARED = f"""
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {{name: shared, namespace: {NS}}}
spec:
  accessModes: [ReadWriteMany]
  resources: {{requests: {{storage: 1Gi}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: reader, namespace: {NS}}}
spec:
  containers:
    - name: app
      image: "busybox:1.36"
      command: [sleep, "3600"]
      volumeMounts: [{{name: data, mountPath: /data}}]
  volumes: [{{name: data, persistentVolumeClaim: {{claimName: shared}}}}]
"""


@pytest.fixture(scope="module")
def cluster(binaries_built):
    from kubeproof.cluster import EmbeddedCluster

    with EmbeddedCluster(nodes=1) as c:
        yield c


def _json(c, *args: str) -> dict:
    return json.loads(c.kubectl(*args, "-o", "json").stdout)


def _pv_exists(c, name: str) -> bool:
    return c.kubectl("get", "pv", name, check=False).returncode == 0


def test_a_default_class_claim_is_provisioned_bound_and_reclaimed(cluster):
    installed = run_cli("cluster", "addons", "install", "local-path", "-c", cluster.name)
    assert installed.returncode == 0, installed.stderr
    assert "StorageClass/local-path created" in installed.stdout
    cluster.kubectl(
        "wait", "deploy/local-path-provisioner", "-n", "local-path-storage",
        "--for=condition=Available", "--timeout=90s",
    )  # fmt: skip
    cluster.kubectl("create", "namespace", NS)
    cluster.kubectl("apply", "-f", "-", input=WORKLOAD)

    claim = wait_for(
        lambda: (
            (c := _json(cluster, "get", "pvc", "data", "-n", NS))["status"].get("phase") == "Bound"
            and c
        ),
        90,
        what="claim Bound",
    )
    uid = claim["metadata"]["uid"]
    name = f"pvc-{uid}"
    assert claim["spec"]["storageClassName"] == "local-path"  # the default class
    assert claim["spec"]["volumeName"] == name
    cluster.kubectl("wait", "pod/app", "-n", NS, "--for=condition=Ready", "--timeout=90s")
    node = _json(cluster, "get", "pod", "app", "-n", NS)["spec"]["nodeName"]

    pv = _json(cluster, "get", "pv", name)
    assert pv["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"] == (
        "rancher.io/local-path"
    )
    assert pv["metadata"]["annotations"]["local.path.provisioner/selected-node"] == node
    assert pv["spec"]["hostPath"] == {
        "path": f"/opt/local-path-provisioner/{name}_{NS}_data",
        "type": "DirectoryOrCreate",
    }
    assert pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] == [
        {
            "matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}
            ]
        }
    ]
    assert pv["spec"]["capacity"] == {"storage": "1Gi"}
    assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
    assert pv["spec"]["claimRef"]["uid"] == uid

    events = _json(
        cluster, "get", "events", "-n", NS, "--field-selector", "involvedObject.name=data"
    )["items"]
    by_reason = {e["reason"]: e for e in events}
    assert by_reason["Provisioning"]["message"] == (
        f'External provisioner is provisioning volume for claim "{NS}/data"'
    )
    assert (
        by_reason["ProvisioningSucceeded"]["message"] == f"Successfully provisioned volume {name}"
    )
    assert by_reason["Provisioning"]["source"]["component"].startswith(
        "rancher.io/local-path_local-path-provisioner-"
    )
    assert "WaitForFirstConsumer" in by_reason  # the kube-controller-manager's own
    logs = cluster.kubectl(
        "logs", "-n", "local-path-storage", "deploy/local-path-provisioner"
    ).stdout
    path = f"{node}:/opt/local-path-provisioner/{name}_{NS}_data"
    assert f'msg="Creating volume {name} at {path}"' in logs
    assert f'msg="create the helper pod helper-pod-create-{name} into local-path-storage"' in logs
    assert f'msg="Volume {name} has been created on {path}"' in logs

    # a claim it cannot serve: ProvisioningFailed with the library's wording, no volume
    cluster.kubectl("apply", "-f", "-", input=SHARED)
    failed = wait_for(
        lambda: [
            e
            for e in _json(
                cluster, "get", "events", "-n", NS, "--field-selector",
                "involvedObject.name=shared,reason=ProvisioningFailed",
            )["items"]
        ],
        60,
        what="ProvisioningFailed",
    )  # fmt: skip
    assert failed[0]["type"] == "Warning"
    assert failed[0]["message"] == (
        'failed to provision volume with StorageClass "local-path": NodePath only supports '
        "ReadWriteOnce and ReadWriteOncePod (1.22+) access modes"
    )
    assert _json(cluster, "get", "pvc", "shared", "-n", NS)["status"]["phase"] == "Pending"

    # the claim goes: the volume is Released, torn down by a helper pod, and deleted
    cluster.kubectl("delete", "pod", "app", "-n", NS, "--grace-period=0", "--force")
    cluster.kubectl("delete", "pvc", "data", "-n", NS, "--wait=false")
    wait_for(lambda: not _pv_exists(cluster, name), 90, what="volume deleted")
    logs = cluster.kubectl(
        "logs", "-n", "local-path-storage", "deploy/local-path-provisioner"
    ).stdout
    assert f'msg="Deleting volume {name} at {path}"' in logs
    assert f'msg="Volume {name} has been deleted on {path}"' in logs
    helpers = _json(cluster, "get", "pods", "-n", "local-path-storage")["items"]
    assert [p["metadata"]["name"] for p in helpers if "helper" in p["metadata"]["name"]] == []
