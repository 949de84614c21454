"""local-path-provisioner's decisions without a cluster, on a fixed clock: which claims it
provisions, the PersistentVolume and helper pod it makes, the events' and log lines'
wording (rancher/local-path-provisioner 9fa2a62e; nodesim/localpathplan.py)."""

import pytest
import yaml

from kubeproof.cluster import localpath as addon
from kubeproof.nodesim import localpathplan as plan

AT = 1_795_000_000.0  # 2026-11-18T11:06:40Z
UID = "0c5a6a8e-3f49-4f7e-9d83-5b1de3e4b0aa"


def _addon_objects() -> dict:
    return {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(addon.MANIFEST)}


def _config() -> plan.Config:
    cm = _addon_objects()[("ConfigMap", addon.CONFIGMAP)]
    return plan.parse_config(cm["data"]["config.json"])


def _class() -> dict:
    return _addon_objects()[("StorageClass", addon.CLASS)]


def _claim(**annotations: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "name": "data",
            "namespace": "shop",
            "uid": UID,
            "resourceVersion": "812",
            "annotations": annotations,
        },
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "1Gi"}},
            "storageClassName": "local-path",
            "volumeMode": "Filesystem",
        },
    }


NODE = {"metadata": {"name": "worker-1", "labels": {"kubernetes.io/hostname": "worker-1"}}}
HANDED = {
    plan.ANN_STORAGE_PROVISIONER: "rancher.io/local-path",
    plan.ANN_SELECTED_NODE: "worker-1",
}


def test_the_addon_class_is_the_default_and_waits_for_the_first_consumer():
    cls = _class()
    assert cls["metadata"]["annotations"] == {"storageclass.kubernetes.io/is-default-class": "true"}
    assert cls["provisioner"] == "rancher.io/local-path"
    assert cls["volumeBindingMode"] == "WaitForFirstConsumer"
    assert cls["reclaimPolicy"] == "Delete"


def test_a_claim_is_provisioned_only_once_handed_over_with_a_selected_node():
    classes = {"local-path": _class()}
    # not yet handed over by the kube-controller-manager
    assert not plan.should_provision(_claim(), classes)
    # handed over, but the scheduler has not picked a node (WaitForFirstConsumer)
    handed = {plan.ANN_STORAGE_PROVISIONER: "rancher.io/local-path"}
    assert not plan.should_provision(_claim(**handed), classes)
    assert plan.should_provision(_claim(**HANDED), classes)
    # another provisioner's claim, and a bound claim, are left alone
    other = {**HANDED, plan.ANN_STORAGE_PROVISIONER: "ebs.csi.aws.com"}
    assert not plan.should_provision(_claim(**other), classes)
    bound = _claim(**HANDED)
    bound["spec"]["volumeName"] = "pv-1"
    assert not plan.should_provision(bound, classes)
    # Immediate binding needs no node
    immediate = {"local-path": {**_class(), "volumeBindingMode": "Immediate"}}
    assert plan.should_provision(_claim(**handed), immediate)


def test_the_persistent_volume_is_the_one_upstream_creates():
    volume = plan.provision(_claim(**HANDED), _class(), NODE, _config())
    path = f"/opt/local-path-provisioner/pvc-{UID}_shop_data"
    assert volume.name == f"pvc-{UID}"
    assert volume.path == path
    assert volume.size_bytes == 1073741824
    assert volume.pv == {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {
            "name": f"pvc-{UID}",
            "annotations": {
                "local.path.provisioner/selected-node": "worker-1",
                "pv.kubernetes.io/provisioned-by": "rancher.io/local-path",
            },
        },
        "spec": {
            "persistentVolumeReclaimPolicy": "Delete",
            "accessModes": ["ReadWriteOnce"],
            "volumeMode": "Filesystem",
            "capacity": {"storage": "1Gi"},
            "hostPath": {"path": path, "type": "DirectoryOrCreate"},
            "claimRef": {
                "kind": "PersistentVolumeClaim",
                "namespace": "shop",
                "name": "data",
                "uid": UID,
                "apiVersion": "v1",
                "resourceVersion": "812",
            },
            "storageClassName": "local-path",
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "kubernetes.io/hostname",
                                    "operator": "In",
                                    "values": ["worker-1"],
                                }
                            ]
                        }
                    ]
                }
            },
        },
    }


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"accessModes": ["ReadWriteMany"]},
         "NodePath only supports ReadWriteOnce and ReadWriteOncePod (1.22+) access modes"),
        ({"selector": {"matchLabels": {"a": "b"}}}, "claim.Spec.Selector is not supported"),
    ],
)  # fmt: skip
def test_claims_it_cannot_serve_fail_with_upstream_wording(change, error):
    claim = _claim(**HANDED)
    claim["spec"].update(change)
    with pytest.raises(plan.ProvisionError) as caught:
        plan.provision(claim, _class(), NODE, _config())
    assert str(caught.value) == error
    assert plan.failed_message(claim, str(caught.value)) == (
        f'failed to provision volume with StorageClass "local-path": {error}'
    )


def test_event_messages():
    claim = _claim(**HANDED)
    assert plan.provisioning_message(claim) == (
        'External provisioner is provisioning volume for claim "shop/data"'
    )
    assert plan.succeeded_message(f"pvc-{UID}") == f"Successfully provisioned volume pvc-{UID}"


def test_the_helper_pod_is_the_template_with_the_volume_and_the_script():
    template = yaml.safe_load(
        _addon_objects()[("ConfigMap", addon.CONFIGMAP)]["data"]["helperPod.yaml"]
    )
    path = f"/opt/local-path-provisioner/pvc-{UID}_shop_data"
    pod = plan.helper_pod(
        template, "create", f"pvc-{UID}", path, "worker-1", 1073741824, _config(),
        "local-path-storage", "local-path-provisioner-service-account", "local-path-config",
    )  # fmt: skip
    assert pod["metadata"] == {
        "name": f"helper-pod-create-pvc-{UID}",
        "namespace": "local-path-storage",
    }
    spec = pod["spec"]
    assert spec["nodeName"] == "worker-1"
    assert spec["restartPolicy"] == "Never"
    assert spec["priorityClassName"] == "system-node-critical"
    assert spec["serviceAccountName"] == "local-path-provisioner-service-account"
    assert spec["volumes"] == [
        {
            "name": "data",
            "hostPath": {"path": "/opt/local-path-provisioner/", "type": "DirectoryOrCreate"},
        },
        {
            "name": "script",
            "configMap": {
                "name": "local-path-config",
                "items": [
                    {"key": "setup", "path": "setup"},
                    {"key": "teardown", "path": "teardown"},
                ],
            },
        },
    ]
    (container,) = spec["containers"]
    assert container["image"] == "docker.io/library/busybox"
    assert container["command"] == ["/bin/sh", "/script/setup"]
    assert container["args"] == [
        "-p", path, "-s", "1073741824", "-m", "Filesystem", "-a", "create",
    ]  # fmt: skip
    assert container["env"][0] == {"name": "VOL_DIR", "value": path}
    assert container["volumeMounts"] == [
        {"name": "script", "mountPath": "/script"},
        {"name": "data", "mountPath": "/opt/local-path-provisioner/"},
    ]


def test_only_a_released_volume_of_ours_with_delete_is_deleted():
    pv = plan.provision(_claim(**HANDED), _class(), NODE, _config()).pv
    assert not plan.should_delete(pv)  # not Released yet
    pv["status"] = {"phase": "Released"}
    assert plan.should_delete(pv)
    assert plan.delete_target(pv) == (pv["spec"]["hostPath"]["path"], "worker-1")
    assert plan.size_of(pv) == 1073741824
    retained = {**pv, "spec": {**pv["spec"], "persistentVolumeReclaimPolicy": "Retain"}}
    assert not plan.should_delete(retained)
    static = {**pv, "metadata": {"name": "static", "annotations": {}}}
    assert not plan.should_delete(static)


def test_log_lines_are_logrus_and_klog_text():
    volume = plan.provision(_claim(**HANDED), _class(), NODE, _config())
    line = plan.logrus(AT, "info", f"Creating volume {volume.name} at worker-1:{volume.path}")
    assert line == (
        'time="2026-11-18T11:06:40Z" level=info msg="Creating volume '
        f'pvc-{UID} at worker-1:/opt/local-path-provisioner/pvc-{UID}_shop_data"'
    )
    assert plan.logrus(AT, "info", "OK") == 'time="2026-11-18T11:06:40Z" level=info msg=OK'
    start = plan.start_lines(AT, _config(), "rancher.io/local-path_lpp-1_x")
    assert start[0] == 'time="2026-11-18T11:06:40Z" level=info msg="Health server started on :8080"'
    assert start[1] == (
        'time="2026-11-18T11:06:40Z" level=debug msg="Applied config: '
        '{\\"nodePathMap\\":[{\\"node\\":\\"DEFAULT_PATH_FOR_NON_LISTED_NODES\\",'
        '\\"paths\\":[\\"/opt/local-path-provisioner\\"]}],\\"storageClassConfigs\\":null}"'
    )
    assert start[3] == (
        'I1118 11:06:40.000000       1 controller.go:838] "Starting provisioner controller" '
        'component="rancher.io/local-path_lpp-1_x"'
    )


def test_retries_back_off_as_the_library_s_rate_limiter():
    assert [plan.retry_delay(n) for n in (1, 2, 3, 7, 8)] == [15, 30, 60, 960, 1000]
