"""The container's world as a v1.36.3 kubelet builds it: resolv.conf, hosts, ServiceAccount
files, downward API, service links, `$(VAR)` expansion, volume updates — golden cases that
need no cluster (input pod and objects -> exact file contents and env), plus a few live
checks through stock kubectl. Expected values are read from the upstream sources cited
(paths in k8s.io/kubernetes v1.36.3)."""

import base64
import json

import pytest

from kubeproof.nodesim import dependencies
from kubeproof.nodesim.catalog import Dependency
from kubeproof.nodesim.config import ConfigError, resolve_env, volume_error
from kubeproof.nodesim.container import Container
from kubeproof.nodesim.etcfiles import etc_files, hosts, pod_dns
from kubeproof.nodesim.expansion import command_and_args, expand
from kubeproof.nodesim.server import _waiting_message
from kubeproof.nodesim.volumefiles import ContainerFiles
from kubeproof.nodesim.world import WorldCache
from tests.conftest import wait_for
from tests.nodesim.conftest import apply, get

SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def make_pod(name="web-0", namespace="shop", containers=None, **spec) -> dict:
    return {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": "6d3c1a2e-0000-4000-8000-000000000001",
            "labels": {"app": "web", "tier": "front"},
            "annotations": {"team": 'a "quoted"\nvalue'},
        },
        "spec": {
            "nodeName": "node-1",
            "serviceAccountName": "default",
            "containers": containers or [{"name": "app", "image": "busybox"}],
            **spec,
        },
    }


def service(name, namespace, ip, *ports) -> dict:
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterIP": ip, "ports": list(ports)},
    }


def world_with(*objects: tuple[str, dict], at: float = 0.0) -> WorldCache:
    world = WorldCache()
    node = {
        "metadata": {"name": "node-1"},
        "status": {
            "addresses": [
                {"type": "InternalIP", "address": "172.18.0.3"},
                {"type": "Hostname", "address": "node-1"},
            ],
            "allocatable": {"cpu": "4", "memory": "8055036Ki", "ephemeral-storage": "95Gi"},
        },
    }
    world.store("ADDED", "Node", node, at=at)
    kubernetes = service(
        "kubernetes", "default", "10.96.0.1", {"name": "https", "port": 443, "protocol": "TCP"}
    )
    world.store("ADDED", "Service", kubernetes, at=at)
    for kind, obj in objects:
        world.store("ADDED", kind, obj, at=at)
    return world


# -- /etc/resolv.conf: dns.go GetPodDNS (386-441) + containerd parseDNSOptions -----------------


def test_resolv_conf_cluster_first():
    # generateSearchesForDNSClusterFirst (dns.go:165-175), defaultDNSOptions (dns.go:44)
    assert pod_dns(make_pod()).resolv_conf() == (
        "search shop.svc.cluster.local svc.cluster.local cluster.local\n"
        "nameserver 10.96.0.10\n"
        "options ndots:5\n"
    )


def test_resolv_conf_default_and_host_network_use_the_node_resolver():
    # getPodDNSType (dns.go:304-323): ClusterFirst on the host network falls back to Default
    for spec in ({"dnsPolicy": "Default"}, {"dnsPolicy": "ClusterFirst", "hostNetwork": True}):
        assert pod_dns(make_pod(**spec)).resolv_conf() == "nameserver 10.0.0.2\n"
    with_host_net = make_pod(dnsPolicy="ClusterFirstWithHostNet", hostNetwork=True)
    assert pod_dns(with_host_net).servers == ["10.96.0.10"]


def test_resolv_conf_none_and_dns_config_merge():
    none = make_pod(
        dnsPolicy="None",
        dnsConfig={"nameservers": ["1.1.1.1"], "searches": ["corp.example"]},
    )
    assert pod_dns(none).resolv_conf() == "search corp.example\nnameserver 1.1.1.1\n"
    # appendDNSConfig (dns.go:378-383): appended, duplicates omitted; mergeDNSOptions
    # (dns.go:327-353): the pod's ndots replaces the default one
    merged = make_pod(
        dnsConfig={
            "nameservers": ["10.96.0.10", "8.8.8.8"],
            "searches": ["cluster.local", "corp.example"],
            "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}],
        }
    )
    assert pod_dns(merged).resolv_conf() == (
        "search shop.svc.cluster.local svc.cluster.local cluster.local corp.example\n"
        "nameserver 10.96.0.10\nnameserver 8.8.8.8\n"
        "options ndots:2 edns0\n"
    )


def test_dns_search_line_limits():
    # formDNSSearchFitsLimits (dns.go:102-147): at most 32 paths (validation.go:4131)
    extra = [f"d{i}.example" for i in range(40)]
    config = pod_dns(make_pod(dnsConfig={"searches": extra}))
    assert len(config.searches) == 32
    assert config.warnings == [
        "Search Line limits were exceeded, some search paths have been omitted, the applied "
        "search line is: " + " ".join(config.searches)
    ]


# -- /etc/hosts: managedHostsFileContent (kubelet_pods.go:515-538) ---------------------------

HOSTS_HEAD = (
    "# Kubernetes-managed hosts file.\n"
    "127.0.0.1\tlocalhost\n"
    "::1\tlocalhost ip6-localhost ip6-loopback\n"
    "fe00::0\tip6-localnet\n"
    "fe00::0\tip6-mcastprefix\n"
    "fe00::1\tip6-allnodes\n"
    "fe00::2\tip6-allrouters\n"
)


def test_hosts_file():
    assert hosts(make_pod(), ["10.244.1.7"], "172.18.0.3") == HOSTS_HEAD + "10.244.1.7\tweb-0\n"


def test_hosts_file_with_hostname_subdomain_and_aliases():
    pod = make_pod(
        hostname="db",
        subdomain="peers",
        hostAliases=[{"ip": "10.1.2.3", "hostnames": ["foo.local", "bar.local"]}],
    )
    # GeneratePodHostNameAndDomain (kubelet_pods.go:580-620),
    # hostsEntriesFromHostAliases (kubelet_pods.go:540-553)
    assert hosts(pod, ["10.244.1.7"], "172.18.0.3") == (
        HOSTS_HEAD + "10.244.1.7\tdb.peers.shop.svc.cluster.local\tdb\n"
        "\n# Entries added by HostAliases.\n10.1.2.3\tfoo.local\tbar.local\n"
    )


def test_hosts_file_host_network_and_own_mount():
    # nodeHostsFileContent (kubelet_pods.go:501-512)
    text = hosts(make_pod(hostNetwork=True), ["172.18.0.3"], "172.18.0.3")
    assert text.startswith("# Kubernetes-managed hosts file (host network).\n")
    # makeMounts (kubelet_pods.go:279-285): a container mounting /etc/hosts keeps its own
    container = {"name": "app", "volumeMounts": [{"name": "h", "mountPath": "/etc/hosts"}]}
    assert "/etc/hosts" not in etc_files(make_pod(), container, ["10.244.1.7"], "")


# -- ServiceAccount files: the projected volume the admission plugin adds -------------------


def api_access_pod() -> dict:
    """As plugin/pkg/admission/serviceaccount/admission.go:480-510 makes it."""
    volume = {
        "name": "kube-api-access-x2k9p",
        "projected": {
            "defaultMode": 420,
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {
                    "configMap": {
                        "name": "kube-root-ca.crt",
                        "items": [{"key": "ca.crt", "path": "ca.crt"}],
                    }
                },
                {
                    "downwardAPI": {
                        "items": [
                            {
                                "path": "namespace",
                                "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                            }
                        ]
                    }
                },
            ],
        },
    }
    mount = {"name": volume["name"], "mountPath": SA_DIR, "readOnly": True}
    containers = [{"name": "app", "image": "busybox", "volumeMounts": [mount]}]
    return make_pod(containers=containers, volumes=[volume])


def test_service_account_files():
    pod = api_access_pod()
    root_ca = {
        "metadata": {"name": "kube-root-ca.crt", "namespace": "shop"},
        "data": {"ca.crt": CA},
    }
    world = world_with(("ConfigMap", root_ca))
    files = ContainerFiles(lambda: pod, pod["spec"]["containers"][0], world, ["10.244.1.7"], 0.0)
    assert files[f"{SA_DIR}/namespace"] == "shop"  # no trailing newline (downwardapi.go:259)
    assert files[f"{SA_DIR}/ca.crt"] == CA
    assert files.token_volumes() == [
        ("kube-api-access-x2k9p", {"expirationSeconds": 3607, "path": "token"})
    ]
    files.set_token("kube-api-access-x2k9p", "token", "eyJhbGciOiJSUzI1NiJ9.e30.sig")
    assert files[f"{SA_DIR}/token"] == "eyJhbGciOiJSUzI1NiJ9.e30.sig"


# -- env: makeEnvironmentVariables (kubelet_pods.go:734-985) ---------------------------------


def field_env(*paths: str) -> list[dict]:
    return [
        {"name": f"V{i}", "valueFrom": {"fieldRef": {"fieldPath": p}}} for i, p in enumerate(paths)
    ]


def test_downward_api_field_ref_env():
    paths = [
        "metadata.name",
        "metadata.namespace",
        "metadata.uid",
        "metadata.labels['app']",
        "metadata.annotations['team']",
        "metadata.labels",
        "spec.nodeName",
        "spec.serviceAccountName",
        "status.hostIP",
        "status.hostIPs",
        "status.podIP",
        "status.podIPs",
    ]
    container = {"name": "app", "env": field_env(*paths)}
    env = resolve_env(make_pod(), container, world_with(), ["10.244.1.7"])
    # podFieldSelectorRuntimeValue (kubelet_pods.go:989-1028), FormatMap (fieldpath.go:30-51)
    assert [env[f"V{i}"] for i in range(len(paths))] == [
        "web-0",
        "shop",
        "6d3c1a2e-0000-4000-8000-000000000001",
        "web",
        'a "quoted"\nvalue',
        'app="web"\ntier="front"',
        "node-1",
        "default",
        "172.18.0.3",
        "172.18.0.3",
        "10.244.1.7",
        "10.244.1.7",
    ]


def test_downward_api_resource_field_ref_env():
    def ref(resource, divisor=None, name=None):
        r = {"resource": resource} | ({"divisor": divisor} if divisor else {})
        return {"name": name or resource, "valueFrom": {"resourceFieldRef": r}}

    container = {
        "name": "app",
        "resources": {"limits": {"cpu": "250m", "memory": "100Mi"}, "requests": {"cpu": "100m"}},
        "env": [
            ref("limits.cpu"),  # 250m rounded up to 1 core (helpers.go:146-149)
            ref("limits.cpu", "1m", "CPU_MILLI"),
            ref("limits.memory"),  # bytes
            ref("limits.memory", "1Mi", "MEM_MI"),
            ref("limits.memory", "1G", "MEM_G"),  # 104857600 / 1e9 rounded up
            ref("requests.cpu", "1m", "REQ_MILLI"),
            ref("limits.ephemeral-storage", "1Gi", "STORAGE"),  # no limit: allocatable 95Gi
            ref("requests.memory", None, "REQ_MEM"),  # no request: 0
        ],
    }
    env = resolve_env(make_pod(), container, world_with(), ["10.244.1.7"])
    assert {k: env[k] for k in (e["name"] for e in container["env"])} == {
        "limits.cpu": "1",
        "CPU_MILLI": "250",
        "limits.memory": "104857600",
        "MEM_MI": "100",
        "MEM_G": "1",
        "REQ_MILLI": "100",
        "STORAGE": "95",
        "REQ_MEM": "0",
    }
    # no limit at all: the node's allocatable (kubelet_resources.go:39-76)
    bare = {"name": "app", "env": [ref("limits.cpu"), ref("limits.memory", "1Ki", "MEM")]}
    env = resolve_env(make_pod(), bare, world_with(), ["10.244.1.7"])
    assert (env["limits.cpu"], env["MEM"]) == ("4", "8055036")


def test_service_link_env():
    api = service(
        "orders-api",
        "shop",
        "10.96.12.4",
        {"port": 80, "protocol": "TCP"},
        {"name": "grpc-port", "port": 9090},
    )
    headless = service("peers", "shop", "None", {"port": 5432})
    other_ns = service("billing", "finance", "10.96.30.1", {"port": 80})
    world = world_with(("Service", api), ("Service", headless), ("Service", other_ns))
    env = resolve_env(make_pod(), {"name": "app"}, world, ["10.244.1.7"])
    # FromServices / makeLinkVariables (envvars.go:32-113)
    assert env == {
        "KUBERNETES_SERVICE_HOST": "10.96.0.1",
        "KUBERNETES_SERVICE_PORT": "443",
        "KUBERNETES_SERVICE_PORT_HTTPS": "443",
        "KUBERNETES_PORT": "tcp://10.96.0.1:443",
        "KUBERNETES_PORT_443_TCP": "tcp://10.96.0.1:443",
        "KUBERNETES_PORT_443_TCP_PROTO": "tcp",
        "KUBERNETES_PORT_443_TCP_PORT": "443",
        "KUBERNETES_PORT_443_TCP_ADDR": "10.96.0.1",
        "ORDERS_API_SERVICE_HOST": "10.96.12.4",
        "ORDERS_API_SERVICE_PORT": "80",
        "ORDERS_API_SERVICE_PORT_GRPC_PORT": "9090",
        "ORDERS_API_PORT": "tcp://10.96.12.4:80",
        "ORDERS_API_PORT_80_TCP": "tcp://10.96.12.4:80",
        "ORDERS_API_PORT_80_TCP_PROTO": "tcp",
        "ORDERS_API_PORT_80_TCP_PORT": "80",
        "ORDERS_API_PORT_80_TCP_ADDR": "10.96.12.4",
        "ORDERS_API_PORT_9090_TCP": "tcp://10.96.12.4:9090",
        "ORDERS_API_PORT_9090_TCP_PROTO": "tcp",
        "ORDERS_API_PORT_9090_TCP_PORT": "9090",
        "ORDERS_API_PORT_9090_TCP_ADDR": "10.96.12.4",
    }
    # enableServiceLinks: false keeps only the master service (kubelet_pods.go:712-723)
    off = resolve_env(make_pod(enableServiceLinks=False), {"name": "app"}, world, [])
    assert sorted(off) == sorted(k for k in env if k.startswith("KUBERNETES_"))


def test_expansion():
    # expand.go: earlier vars and service vars expand, `$$` escapes, unknown stays
    context = {"A": "1", "B": "x"}
    assert expand("$(A)-$(B)", context) == "1-x"
    assert expand("$$(A) $(C) $A $( $", context) == "$(A) $(C) $A $( $"
    assert expand("$()", context) == "$()"
    container = {
        "name": "app",
        "env": [
            {"name": "HOST", "value": "db"},
            {"name": "URL", "value": "postgres://$(HOST):$(KUBERNETES_SERVICE_PORT)/$(LATER)"},
            {"name": "LATER", "value": "x"},
            {"name": "COST", "value": "$$5"},
        ],
        "command": ["sh", "-c", "echo $(URL) $$(HOST) $(NOPE)"],
    }
    env = resolve_env(make_pod(), container, world_with(), ["10.244.1.7"])
    assert env["URL"] == "postgres://db:443/$(LATER)"  # LATER is declared after URL
    assert env["COST"] == "$5"
    # ExpandContainerCommandAndArgs (pkg/kubelet/container/helpers.go:265-281)
    assert command_and_args(container, env)["command"][2] == (
        "echo postgres://db:443/$(LATER) $(HOST) $(NOPE)"
    )


# -- volume contents over time ---------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_configmap_volume_updates_at_the_next_sync_and_subpath_never():
    cm = {"metadata": {"name": "conf", "namespace": "shop"}, "data": {"level": "info"}}
    mounts = [
        {"name": "conf", "mountPath": "/etc/app"},
        {"name": "conf", "mountPath": "/etc/level", "subPath": "level"},
    ]
    container = {
        "name": "app",
        "env": [{"name": "L", "valueFrom": {"configMapKeyRef": {"name": "conf", "key": "level"}}}],
        "volumeMounts": mounts,
    }
    pod = make_pod(
        containers=[container], volumes=[{"name": "conf", "configMap": {"name": "conf"}}]
    )
    world, clock = world_with(("ConfigMap", cm)), Clock()
    env = resolve_env(pod, container, world, ["10.244.1.7"])
    files = ContainerFiles(lambda: pod, container, world, ["10.244.1.7"], 0.0, clock)
    clock.now = 10.0
    world.store("MODIFIED", "ConfigMap", cm | {"data": {"level": "debug"}}, at=10.0)
    assert files["/etc/app/level"] == "info"
    # the periodic resync: syncFrequency 60 s (v1beta1/defaults.go:78-80) plus up to 50%
    # jitter (pod_workers.go:327,1531): the change shows between 60 s and 90 s
    clock.now = 59.9
    assert files["/etc/app/level"] == "info"
    clock.now = 90.1
    assert files["/etc/app/level"] == "debug"
    assert files["/etc/level"] == "info"  # subPath: a bind mount of the file at start
    assert env["L"] == "info"  # env is fixed when the container is created


def test_downward_api_volume_follows_label_changes_at_once():
    items = [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]
    container = {"name": "app", "volumeMounts": [{"name": "info", "mountPath": "/etc/podinfo"}]}
    pod = make_pod(
        containers=[container], volumes=[{"name": "info", "downwardAPI": {"items": items}}]
    )
    current = {"pod": pod}
    clock = Clock()
    files = ContainerFiles(lambda: current["pod"], container, world_with(), [], 0.0, clock)
    assert files["/etc/podinfo/labels"] == 'app="web"\ntier="front"'
    relabelled = json.loads(json.dumps(pod))
    relabelled["metadata"]["labels"]["tier"] = "back"
    current["pod"], clock.now = relabelled, 5.0
    # a label change is a pod update: the pod syncs at once (config.go:345-354)
    assert files["/etc/podinfo/labels"] == 'app="web"\ntier="back"'


def test_a_process_keeps_the_configuration_it_started_with():
    # the file changes in the volume (test above); the modelled process read it at start
    cm = {"metadata": {"name": "conf", "namespace": "shop"}, "data": {"url": "db:5432"}}
    container = {"name": "app", "volumeMounts": [{"name": "conf", "mountPath": "/etc/app"}]}
    pod = make_pod(
        containers=[container], volumes=[{"name": "conf", "configMap": {"name": "conf"}}]
    )
    world, clock = world_with(("ConfigMap", cm)), Clock()
    files = ContainerFiles(lambda: pod, container, world, [], 0.0, clock)
    world.store("MODIFIED", "ConfigMap", cm | {"data": {"url": "db2:5432"}}, at=1.0)
    clock.now = 100.0
    assert files["/etc/app/url"] == "db2:5432"
    assert dependencies.target(Dependency(file="/etc/app/url"), {}, files) == "db:5432"


# -- error wording ---------------------------------------------------------------------------


def test_failed_mount_missing_key_wording():
    cm = {"metadata": {"name": "conf", "namespace": "shop"}, "data": {"a": "1"}}
    secret = {
        "metadata": {"name": "creds", "namespace": "shop"},
        "data": {"a": base64.b64encode(b"1").decode()},
    }
    world = world_with(("ConfigMap", cm), ("Secret", secret))
    with_cm = make_pod(
        volumes=[{"name": "v", "configMap": {"name": "conf", "items": [{"key": "K", "path": "k"}]}}]
    )
    with_secret = make_pod(
        volumes=[
            {"name": "s", "secret": {"secretName": "creds", "items": [{"key": "K", "path": "k"}]}}
        ]
    )
    # pkg/volume/configmap/configmap.go:292; pkg/volume/secret/secret.go:280
    assert volume_error(with_cm, world) == (
        "v",
        'MountVolume.SetUp failed for volume "v" : configmap references non-existent config key: K',
    )
    assert volume_error(with_secret, world) == (
        "s",
        'MountVolume.SetUp failed for volume "s" : references non-existent secret key: K',
    )


def test_unsupported_field_ref_is_a_config_error():
    container = {"name": "app", "env": field_env("metadata.generateName")}
    with pytest.raises(ConfigError, match=r"unsupported fieldPath: metadata\.generateName"):
        resolve_env(make_pod(), container, world_with(), [])


def test_logs_of_a_waiting_container():
    # validateContainerLogStatus (kubelet_pods.go:1572-1581)
    container = Container({"name": "c", "image": "nginx:1.99"}, "spec.containers{c}")
    expected = {
        "ErrImagePull": "image can't be pulled",
        "ImagePullBackOff": "trying and failing to pull image",
        "CreateContainerConfigError": "CreateContainerConfigError",
    }
    for reason, tail in expected.items():
        container.reason = reason
        assert _waiting_message(container, "p") == (
            f'container "c" in pod "p" is waiting to start: {tail}'
        )


# -- live, through stock kubectl -------------------------------------------------------------

LIVE_POD = """
apiVersion: v1
kind: Pod
metadata:
  name: world
  labels: {app: world}
spec:
  hostname: box
  subdomain: peers
  hostAliases: [{ip: 10.1.2.3, hostnames: [foo.local]}]
  containers:
  - name: app
    image: busybox:1.36
    command: [sh, -c, "echo start $(POD) && sleep 3600"]
    resources: {limits: {memory: 64Mi}}
    env:
    - {name: POD, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
    - {name: NODE, valueFrom: {fieldRef: {fieldPath: spec.nodeName}}}
    - {name: IP, valueFrom: {fieldRef: {fieldPath: status.podIP}}}
    - {name: MEM, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}
    - {name: GREETING, value: "hi $(POD) $$(POD)"}
"""


@pytest.mark.cluster
def test_live_container_world(sim, ns):
    apply(sim, LIVE_POD, ns)
    wait_for(
        lambda: get(sim, "pod", "world", ns)["status"].get("phase") == "Running",
        60,
        what="pod world running",
    )
    pod = get(sim, "pod", "world", ns)
    ip = pod["status"]["podIP"]

    def cat(path: str) -> str:
        return sim.kubectl("exec", "world", "-n", ns, "--", "cat", path).stdout

    assert cat("/etc/resolv.conf") == (
        f"search {ns}.svc.cluster.local svc.cluster.local cluster.local\n"
        "nameserver 10.96.0.10\noptions ndots:5\n"
    )
    assert cat("/etc/hosts") == (
        HOSTS_HEAD + f"{ip}\tbox.peers.{ns}.svc.cluster.local\tbox\n"
        "\n# Entries added by HostAliases.\n10.1.2.3\tfoo.local\n"
    )
    assert cat(f"{SA_DIR}/namespace") == ns
    assert cat(f"{SA_DIR}/ca.crt").startswith("-----BEGIN CERTIFICATE-----")
    token = cat(f"{SA_DIR}/token")
    claims = json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    assert claims["sub"] == f"system:serviceaccount:{ns}:default"
    assert claims["kubernetes.io"]["pod"]["name"] == "world"
    env = sim.kubectl("exec", "world", "-n", ns, "--", "env").stdout.splitlines()
    assert "POD=world" in env
    assert f"NODE={pod['spec']['nodeName']}" in env
    assert f"IP={ip}" in env
    assert "MEM=64" in env
    assert "GREETING=hi world $(POD)" in env
    assert "KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1" in env
    assert "HOSTNAME=box" in env
    logs = sim.kubectl("logs", "world", "-n", ns).stdout
    assert "start world" in logs


@pytest.mark.cluster
def test_live_configmap_volume_update(sim, ns):
    sim.kubectl("create", "configmap", "conf", "--from-literal=level=info", "-n", ns)
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: reader}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: [sleep, "3600"]
    volumeMounts: [{name: conf, mountPath: /etc/app}]
  volumes: [{name: conf, configMap: {name: conf}}]
""",
        ns,
    )
    wait_for(
        lambda: get(sim, "pod", "reader", ns)["status"].get("phase") == "Running",
        60,
        what="pod reader running",
    )

    def level() -> str:
        return sim.kubectl("exec", "reader", "-n", ns, "--", "cat", "/etc/app/level").stdout

    assert level() == "info"
    sim.kubectl("patch", "configmap", "conf", "-n", ns, "-p", '{"data":{"level":"debug"}}')
    assert level() == "info"  # not before the pod's next sync
    wait_for(lambda: level() == "debug", 100, what="the mounted key updated")
