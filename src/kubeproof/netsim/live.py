"""Reading the objects netsim needs from a live cluster with the admin client."""

from lightkube import ALL_NS, Client
from lightkube.resources.core_v1 import Namespace, Pod, Service
from lightkube.resources.discovery_v1 import EndpointSlice
from lightkube.resources.networking_v1 import Ingress, IngressClass, NetworkPolicy

KINDS = {
    Pod: ("v1", "Pod"),
    Service: ("v1", "Service"),
    EndpointSlice: ("discovery.k8s.io/v1", "EndpointSlice"),
    NetworkPolicy: ("networking.k8s.io/v1", "NetworkPolicy"),
    Ingress: ("networking.k8s.io/v1", "Ingress"),
}


def read(client: Client) -> list[dict]:
    objects = []
    for ns in client.list(Namespace):
        objects.append({"kind": "Namespace", **ns.to_dict()})
    for ic in client.list(IngressClass):  # cluster-scoped: which controller serves an Ingress
        objects.append(
            {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass", **ic.to_dict()}
        )
    for resource, (api_version, kind) in KINDS.items():
        for obj in client.list(resource, namespace=ALL_NS):
            objects.append({"apiVersion": api_version, "kind": kind, **obj.to_dict()})
    return objects
