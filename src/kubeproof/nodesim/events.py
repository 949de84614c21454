"""Recording Events as a kubelet does: source kubelet/<node>, each Event through client-go's
correlator (correlator.py: counting repeats, aggregating similar ones, the spam filter)."""

import contextlib
import datetime as dt
import time

from lightkube import ApiError, AsyncClient
from lightkube.codecs import from_dict
from lightkube.resources.core_v1 import Event as EventResource

from kubeproof.nodesim.correlator import Correlator, Outgoing
from kubeproof.nodesim.kubeevent import Event


def _stamp(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Recorder:
    """A kubelet's recorder (source kubelet/<node>), or another component's: the
    provisioners the node simulator acts out record with their own source (`component`,
    no host), as client-go's recorder does for them."""

    def __init__(self, client: AsyncClient, node: str, component: str = "kubelet"):
        self.client = client
        self.node = node
        self.component = component
        self.correlator = Correlator()

    def _object_key(self, kind: str, namespace: str, name: str, uid: str) -> str:
        return "\x00".join([self.component, self.node, kind, namespace, name, uid, "v1"])

    async def record_object(self, obj: dict, event: Event) -> None:
        """An Event on any object (a claim, a volume): in its namespace, `default` for a
        cluster-scoped one (k8s.io/client-go/tools/record/event.go:489-492)."""
        meta = obj["metadata"]
        involved = {
            "kind": obj["kind"],
            "name": meta["name"],
            "uid": meta["uid"],
            "apiVersion": obj["apiVersion"],
            "resourceVersion": meta.get("resourceVersion"),
        }
        namespace = meta.get("namespace") or ""
        if namespace:
            involved["namespace"] = namespace
        key = self._object_key(obj["kind"], namespace, meta["name"], meta["uid"])
        await self._emit(key, namespace or "default", involved, event)

    async def record(self, pod: dict, event: Event) -> None:
        meta = pod["metadata"]
        involved = {
            "kind": "Pod",
            "namespace": meta["namespace"],
            "name": meta["name"],
            "uid": meta["uid"],
            "apiVersion": "v1",
            "resourceVersion": meta.get("resourceVersion"),
        }
        if event.field_path:
            involved["fieldPath"] = event.field_path
        key = self._object_key("Pod", meta["namespace"], meta["name"], meta["uid"])
        await self._emit(key, meta["namespace"], involved, event)

    async def record_node(self, event: Event) -> None:
        """An Event on the kubelet's own Node. The kubelet's nodeRef has no namespace and no
        uid (pkg/kubelet/kubelet.go:555-560), so the Event lives in `default`
        (k8s.io/client-go/tools/record/event.go:489-492)."""
        involved = {"kind": "Node", "name": self.node, "apiVersion": "v1"}
        await self._emit(self._object_key("Node", "", self.node, ""), "default", involved, event)

    async def _emit(self, key: str, namespace: str, involved: dict, event: Event) -> None:
        now = time.time()
        out = self.correlator.correlate(
            key, involved["name"], event.field_path or "", event.type, event.reason,
            event.message, now,
        )  # fmt: skip
        if out is None:
            return  # the spam filter's: a kubelet drops it too
        if not out.create:
            patch = {"count": out.count, "lastTimestamp": _stamp(now), "message": out.message}
            try:
                await self.client.patch(EventResource, out.name, patch, namespace=namespace)
                return
            except ApiError:
                pass  # expired or deleted: create it again
        await self._create(namespace, involved, event, out, now)

    async def _create(
        self, namespace: str, involved: dict, event: Event, out: Outgoing, now: float
    ) -> None:
        body = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": out.name, "namespace": namespace},
            "involvedObject": involved,
            "reason": event.reason,
            "message": out.message,
            "type": event.type,
            "source": {"component": self.component, **({"host": self.node} if self.node else {})},
            "firstTimestamp": _stamp(out.first_at),
            "lastTimestamp": _stamp(now),
            "count": out.count,
        }
        if not out.message.startswith("(combined from similar events): "):
            # an aggregate is a fresh object without the reporting fields (EC:280-292)
            # client-go makeEvent: ReportingController/Instance are the source's (event.go)
            body |= {"reportingComponent": self.component, "reportingInstance": self.node}
        # the namespace may be terminating: a lost event is what a kubelet accepts too
        with contextlib.suppress(ApiError):
            await self.client.create(from_dict(body))

    def forget(self, uid: str) -> None:
        pass  # the correlator's caches are LRUs, as client-go's are
