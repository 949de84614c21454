"""Service routing as kube-proxy does it: service port -> targetPort on each endpoint, from
EndpointSlices when there are any, else from the pods the selector picks."""

from dataclasses import dataclass

from kubeproof.netsim.objects import Objects, Pod, key


@dataclass
class Endpoint:
    pod: Pod
    port: int | None  # the target port for the service port asked about (None: unresolved)
    ready: bool
    serving: bool
    terminating: bool


def service_port(svc: dict, port: int, protocol: str) -> dict | None:
    for entry in (svc.get("spec") or {}).get("ports") or []:
        if entry.get("port") == port and entry.get("protocol", "TCP") == protocol:
            return entry
    return None


def endpoints(objects: Objects, svc: dict, port: dict | None) -> list[Endpoint]:
    slices = objects.slices.get(key(svc))
    return _from_slices(objects, slices, port) if slices else _from_pods(objects, svc, port)


def _from_slices(objects: Objects, slices: list[dict], port: dict | None) -> list[Endpoint]:
    out = []
    for slice_ in slices:
        number = None
        if port is not None:
            for entry in slice_.get("ports") or []:
                if (entry.get("name") or "") == (port.get("name") or "") and (
                    entry.get("protocol", "TCP") == port.get("protocol", "TCP")
                ):
                    number = entry.get("port")
        for endpoint in slice_.get("endpoints") or []:
            ref = endpoint.get("targetRef") or {}
            pod = objects.pods.get(f"{ref.get('namespace')}/{ref.get('name')}")
            if pod is None:
                address = (endpoint.get("addresses") or [None])[0]
                pod = objects.pod_by_ip(address) if address else None
            if pod is None:
                continue
            conditions = endpoint.get("conditions") or {}
            ready = conditions.get("ready") is not False  # nil means ready
            out.append(
                Endpoint(
                    pod,
                    number,
                    ready,
                    conditions.get("serving", ready) is not False,
                    bool(conditions.get("terminating")),
                )
            )
    return out


def _from_pods(objects: Objects, svc: dict, port: dict | None) -> list[Endpoint]:
    spec = svc.get("spec") or {}
    selector = spec.get("selector")
    if not selector:
        return []  # a selector-less Service has only the endpoints someone wrote
    ns = svc["metadata"].get("namespace", "default")
    out = []
    for pod in objects.pods.values():
        if pod.namespace != ns or not pod.ip:
            continue
        if any(pod.labels.get(k) != v for k, v in selector.items()):
            continue
        number = None
        if port is not None:
            target = port.get("targetPort", port.get("port"))
            if isinstance(target, str) and not target.isdigit():
                number = pod.named_port(target, port.get("protocol", "TCP"))
                if number is None:
                    continue  # the endpoint controller leaves such pods out
            else:
                number = int(target)
        out.append(
            Endpoint(pod, number, pod.ready and not pod.terminating, pod.ready, pod.terminating)
        )
    return out


def routable(eps: list[Endpoint]) -> list[Endpoint]:
    """Ready endpoints; if none, serving-but-terminating ones (kube-proxy's fallback)."""
    ready = [e for e in eps if e.ready and e.port is not None]
    return ready or [e for e in eps if e.serving and e.terminating and e.port is not None]
