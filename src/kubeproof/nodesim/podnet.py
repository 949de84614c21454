"""A pod's own network namespace, for pods that run `kubectl` (an image such as alpine/k8s or
bitnami/kubectl: a model with `kubectl: PATH`), so that stock kubectl runs in the container
with its in-cluster config, as infra-bench's operators and restore jobs do.

On a real node every pod has a network namespace (its sandbox's) in which the apiserver is
reached at the `default/kubernetes` Service's ClusterIP: the kubelet passes it as
$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT (pkg/kubelet/envvars/envvars.go), and
client-go's rest.InClusterConfig dials it with the projected token and ca.crt
(staging/src/k8s.io/client-go/rest/config.go InClusterConfig). Here the namespace is the
agent sandbox's (agents/netns.py ApiForwarder): loopback, the ClusterIP on it, and one
listener there whose connections the node simulator relays to the embedded apiserver —
nothing else is reachable (no other Service, no host port, no other cluster). Relayed
connections leave from the pod network's address (audit.WORKLOAD_SOURCE), so the audit log
tells a pod's requests from the agent's, as a pod IP does on a node. The
apiserver's certificate names the ClusterIP (cluster/pki.py), so TLS verifies against the
pod's ca.crt and the request carries only the pod's own token: RBAC answers as it would.

Each connection is admitted by netsim first: the pod's egress NetworkPolicy towards the
apiserver's endpoint (apiwget.reachable); a dropped one is held unanswered, as a CNI drops
the SYN, and the client times out. The cluster DNS address answers there too, from netsim's
resolver for that pod (poddns.py), so `https://kubernetes.default.svc` resolves. The
containers of such a pod that run for real (runbox.py) share the namespace, as a pod's
containers share theirs; an exec into one joins it too. A pod without kubectl keeps a
loopback of its own per run (its `wget` is netsim's, netbridge.py)."""

import logging
import threading
from collections.abc import Callable

from kubeproof.agents.netns import ApiForwarder, relay
from kubeproof.cluster.audit import WORKLOAD_SOURCE
from kubeproof.cluster.pki import FIRST_SERVICE_IP
from kubeproof.netsim.objects import DNS_SERVICE_IP
from kubeproof.nodesim import poddns
from kubeproof.paths import cache_root

log = logging.getLogger("kubeproof.nodesim")

Address = tuple[str, int]
# the `default/kubernetes` Service as pods dial it: the service range's first address and
# port 443 (pkg/controlplane/controller/kubernetesservice; cluster/pki.py puts the address
# in the apiserver's certificate)
SERVICE: Address = (FIRST_SERVICE_IP, 443)


def stock_kubectl(version: str) -> str | None:
    """The cluster's own kubectl (the cache the build fills), None if it is not there."""
    path = cache_root() / version / "bin" / "kubectl"
    return str(path) if path.is_file() else None


class PodNetworks:
    """The network namespaces of one node simulator's pods, by pod uid. `service`: the
    apiserver's ClusterIP and port as pods see it; `apiserver`: where it really listens;
    `admit(pod)`: whether that pod's connection gets there now (asked from a relay thread)."""

    def __init__(
        self,
        service: Address,
        apiserver: Address,
        admit: Callable[[object], bool] | None = None,
        lookup: Callable[[object, str], tuple[str, list[str]]] | None = None,
        dns_address: str = DNS_SERVICE_IP,
    ) -> None:
        self.service = service
        self.apiserver = apiserver
        self.admit = admit
        self.lookup = lookup  # (pod, absolute name) -> netsim's answer (poddns.py)
        self.dns_address = dns_address
        self._nets: dict[str, ApiForwarder] = {}
        self._dns: dict[str, poddns.Server] = {}
        self._lock = threading.Lock()

    def of(self, pod) -> ApiForwarder:
        """The pod's namespace, made the first time one of its containers starts."""
        with self._lock:
            net = self._nets.get(pod.uid)
            if net is None:
                admit = self.admit
                check = (lambda: admit(pod)) if admit is not None else None
                route = relay(self.service, self.apiserver, source=WORKLOAD_SOURCE)
                net = ApiForwarder(None, relays=[route], admit=check)
                self._nets[pod.uid] = net
                self._serve_dns(pod, net)
            return net

    def _serve_dns(self, pod, net: ApiForwarder) -> None:
        """The cluster DNS address answering in the namespace (as root only: the holder's
        namespace of an unprivileged run has no server; names then do not resolve)."""
        lookup = self.lookup
        if lookup is None or net.fd is None:
            return
        try:
            server = poddns.Server(net.fd, self.dns_address, lambda name: lookup(pod, name))
        except OSError as exc:
            log.warning("no DNS in the network namespace of pod %s: %s", pod.uid, exc)
            return
        self._dns[pod.uid] = server

    def forget(self, pod_uid: str) -> None:
        """The pod is gone: its namespace goes (after its processes, which hold it)."""
        with self._lock:
            net = self._nets.pop(pod_uid, None)
            dns = self._dns.pop(pod_uid, None)
        if dns is not None:
            dns.close()
        if net is not None:
            net.close()

    def close(self) -> None:
        for uid in list(self._nets):
            self.forget(uid)
