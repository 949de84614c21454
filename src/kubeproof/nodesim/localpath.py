"""rancher/local-path-provisioner, acted out by the node simulator while a provisioner pod
runs on one of its nodes: volumes for the claims of StorageClasses whose provisioner is
`rancher.io/local-path`, made and removed as the real one does (the decisions are
localpathplan.py's).

With the provisioner's own identity: a token of its ServiceAccount, requested as its
kubelet requests one (a TokenRequest bound to the pod, by the node: nodesim/tokens.py), so
every read and write — claims, classes, nodes, the helper pods, PersistentVolumes, Events —
is authorized by the addon's ClusterRole and Role and audited as the ServiceAccount's.

The flow (rancher/local-path-provisioner 9fa2a62e): the kube-controller-manager hands the
claim over (its storage-provisioner annotation, and ExternalProvisioning events) once the
scheduler has picked a node under WaitForFirstConsumer; the library records Provisioning
(controller.go:1486); provisionFor logs `Creating volume` (provisioner.go:444-447) and runs a
helper pod on the node (`create the helper pod`, :802) polled every second until it
succeeds (:819-831), logs its output (:1005-1013), deletes it (:813) and logs `Volume … has
been created` (:833-837); the library creates the PV and records ProvisioningSucceeded
(volume_store.go:157-180). A Released volume with reclaim policy Delete gets the teardown
helper pod (`Deleting volume`, provisioner.go:590-616) and is deleted (controller.go:1577).

Not modelled: leader election is off upstream (main.go:314), so every replica acts; here
only the provisioner pod that started first does. Changes to config.json after start are
not re-read (upstream re-reads every 30 s, provisioner.go:66, :204-223). A missing selected
node is a ProvisioningFailed, not a reschedule (controller.go:1467-1471)."""

import asyncio
import contextlib
import logging
import time
import uuid
from dataclasses import dataclass, field

import yaml
from lightkube import ALL_NS, ApiError, AsyncClient
from lightkube.codecs import from_dict
from lightkube.config.kubeconfig import KubeConfig
from lightkube.models.authentication_v1 import BoundObjectReference, TokenRequestSpec
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import (
    ConfigMap,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    ServiceAccountToken,
)
from lightkube.resources.storage_v1 import StorageClass

from kubeproof.nodesim import localpathplan as plan
from kubeproof.nodesim import timing
from kubeproof.nodesim.catalog import split_image
from kubeproof.nodesim.events import Recorder
from kubeproof.nodesim.kubeevent import Event

log = logging.getLogger("kubeproof.nodesim.localpath")
IMAGE_REPOS = ("rancher/local-path-provisioner", "docker.io/rancher/local-path-provisioner")
CONFIGMAP = "local-path-config"  # main.go:42 DefaultConfigMapName
TOKEN_SECONDS = 3600


@dataclass
class Instance:
    """One running provisioner process: its pod, identity, config and work in flight."""

    uid: str
    pod: dict
    container: object
    client: AsyncClient
    config: plan.Config
    template: dict
    recorder: Recorder
    token_due: float
    started_at: float = 0.0  # when its container (this run of it) started
    busy: set[str] = field(default_factory=set)
    # claims provisioned and volumes deleted: a listing taken while the work finished must
    # not start it again (upstream's queue drops a key once its work succeeds)
    done: set[str] = field(default_factory=set)
    failures: dict[str, int] = field(default_factory=dict)
    retry_at: dict[str, float] = field(default_factory=dict)
    tasks: set = field(default_factory=set)  # the operations in flight, kept from the GC

    def log(self, level: str, message: str) -> None:
        """A line of the provisioner container's own log (kubectl logs)."""
        now = time.time()
        self.container.logs.append((now, plan.logrus(now, level, message)))  # type: ignore[attr-defined]


def _is_provisioner(image: str) -> bool:
    return split_image(image)[0] in IMAGE_REPOS


class LocalPathProvisioner:
    def __init__(self, kubelet) -> None:
        self.kubelet = kubelet
        self.current: Instance | None = None

    def _running(self):
        """The provisioner container that started first, running, and its pod runtime."""
        best = None
        for rt in self.kubelet.pods_on(None):
            for c in rt.app:
                if c.stage != "running" or not _is_provisioner(c.image):
                    continue
                if best is None or c.started_at < best[0]:
                    best = (c.started_at, rt, c)
        return (best[1], best[2]) if best else None

    async def run(self) -> None:
        while True:
            await asyncio.sleep(timing.PLEG_RELIST)  # our list period; upstream watches
            try:
                await self.tick()
            except ApiError as exc:
                log.warning("local-path: %s", exc.status.message)
            except Exception:  # never take the node simulator down with it
                log.exception("local-path provisioner")

    async def tick(self) -> None:
        found = self._running()
        if found is None:
            self.current = None
            return
        rt, container = found
        if (
            self.current is None
            or self.current.uid != rt.uid
            or self.current.container is not container
            or self.current.started_at != container.started_at  # restarted: a new process
        ):
            self.current = await self._start(rt, container)
            if self.current is None:
                return
        inst = self.current
        if time.time() >= inst.token_due:
            inst.client = await self._client(rt.obj)
            inst.token_due = time.time() + TOKEN_SECONDS * 0.8
        classes = {
            c.metadata.name: c.to_dict()
            async for c in inst.client.list(StorageClass)
            if c.provisioner == plan.PROVISIONER
        }
        volumes = {v.metadata.name: v.to_dict() async for v in inst.client.list(PersistentVolume)}
        now = time.time()
        async for obj in inst.client.list(PersistentVolumeClaim, namespace=ALL_NS):
            claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", **obj.to_dict()}
            key = "claim/" + claim["metadata"]["uid"]
            if key in inst.busy or key in inst.done or now < inst.retry_at.get(key, 0.0):
                continue
            if plan.pv_name(claim) in volumes or not plan.should_provision(claim, classes):
                continue
            inst.busy.add(key)
            work = self._provision(inst, claim, classes)
            inst.tasks.add(asyncio.create_task(self._guard(inst, key, work)))
        for name, pv in volumes.items():
            key = "volume/" + name
            if key in inst.busy or key in inst.done or now < inst.retry_at.get(key, 0.0):
                continue
            if plan.should_delete(pv):
                inst.busy.add(key)
                pv = {"apiVersion": "v1", "kind": "PersistentVolume", **pv}
                inst.tasks.add(asyncio.create_task(self._guard(inst, key, self._delete(inst, pv))))

    async def _client(self, pod: dict) -> AsyncClient:
        """A client authenticated as the pod's ServiceAccount with a bound token that its
        node requested (projected.go's TokenRequest, as nodesim/tokens.py makes it)."""
        meta, spec = pod["metadata"], pod["spec"]
        sa = spec.get("serviceAccountName") or "default"
        request = ServiceAccountToken(
            metadata=ObjectMeta(name=sa),
            spec=TokenRequestSpec(
                audiences=[],
                expirationSeconds=TOKEN_SECONDS,
                boundObjectRef=BoundObjectReference(
                    apiVersion="v1", kind="Pod", name=meta["name"], uid=meta["uid"]
                ),
            ),
        )
        node_client = self.kubelet.clients[spec["nodeName"]]
        issued = await node_client.create(request, sa, namespace=meta["namespace"])
        path = self.kubelet.state_dir / "kubeconfigs" / "nodesim.kubeconfig"
        conf = yaml.safe_load(path.read_text())
        cluster = conf["clusters"][0]
        return AsyncClient(
            KubeConfig.from_dict(
                {
                    "clusters": [cluster],
                    "users": [{"name": "sa", "user": {"token": issued.status.token}}],
                    "contexts": [
                        {"name": "sa", "context": {"cluster": cluster["name"], "user": "sa"}}
                    ],
                    "current-context": "sa",
                },
                fname=path,
            ),
            trust_env=False,
            field_manager="local-path-provisioner",
        )

    async def _start(self, rt, container) -> Instance | None:
        """The process starts: its identity, its ConfigMap (main.go:249-271) and the
        lines it logs. A ConfigMap it cannot read is retried at the next tick."""
        try:
            client = await self._client(rt.obj)
            cm = await client.get(ConfigMap, CONFIGMAP, namespace=rt.namespace)
            data = cm.data or {}
            config = plan.parse_config(data.get("config.json", ""))
            template = yaml.safe_load(data.get("helperPod.yaml", "")) or {}
        except (ApiError, ValueError, yaml.YAMLError) as exc:
            log.warning("local-path provisioner %s/%s: %s", rt.namespace, rt.name, exc)
            return None
        component = f"{plan.PROVISIONER}_{rt.name}_{uuid.uuid4()}"  # controller.go:630-637
        inst = Instance(
            uid=rt.uid,
            pod=rt.obj,
            container=container,
            client=client,
            config=config,
            template=template,
            recorder=Recorder(client, "", component=component),
            token_due=time.time() + TOKEN_SECONDS * 0.8,
            started_at=container.started_at,
        )
        now = time.time()
        container.logs += [(now, line) for line in plan.start_lines(now, config, component)]
        return inst

    async def _guard(self, inst: Instance, key: str, work) -> None:
        """Run one claim's or volume's operation; a failure is retried after the rate
        limiter's back-off, until the library gives up (controller.go:960-975)."""
        try:
            ok = await work
        except ApiError as exc:
            log.warning("local-path %s: %s", key, exc.status.message)
            ok = False
        except Exception:
            log.exception("local-path %s", key)
            ok = False
        finally:
            inst.busy.discard(key)
            inst.tasks.discard(asyncio.current_task())
        if ok:
            inst.failures.pop(key, None)
            inst.retry_at.pop(key, None)
            inst.done.add(key)
            return
        failures = inst.failures.get(key, 0) + 1
        inst.failures[key] = failures
        delay = self.kubelet.timing(plan.retry_delay(failures))
        give_up = failures >= plan.FAILURE_THRESHOLD
        inst.retry_at[key] = float("inf") if give_up else time.time() + delay

    async def _provision(self, inst: Instance, claim: dict, classes: dict[str, dict]) -> bool:
        annotations = claim["metadata"].get("annotations") or {}
        node = None
        if name := annotations.get(plan.ANN_SELECTED_NODE):
            try:
                node = (await inst.client.get(Node, name)).to_dict()
            except ApiError as exc:  # controller.go:1473-1475
                message = f"failed to get target node: {exc.status.message}"
                await inst.recorder.record_object(
                    claim, Event("Warning", "ProvisioningFailed", message)
                )
                return False
        await inst.recorder.record_object(
            claim, Event("Normal", "Provisioning", plan.provisioning_message(claim))
        )
        try:
            volume = plan.provision(claim, classes[plan.claim_class(claim)], node, inst.config)
            inst.log(
                "info", f"Creating volume {volume.name} at {plan.where(volume.node, volume.path)}"
            )
            await self._helper(
                inst, "create", volume.name, volume.path, volume.node, volume.size_bytes
            )
        except plan.ProvisionError as exc:
            message = plan.failed_message(claim, str(exc))
            await inst.recorder.record_object(
                claim, Event("Warning", "ProvisioningFailed", message)
            )
            return False
        try:
            await inst.client.create(from_dict(volume.pv))
        except ApiError as exc:
            if exc.status.code != 409:  # AlreadyExists counts as saved (volume_store.go:158)
                raise
        message = plan.succeeded_message(volume.name)
        await inst.recorder.record_object(claim, Event("Normal", "ProvisioningSucceeded", message))
        return True

    async def _delete(self, inst: Instance, pv: dict) -> bool:
        name = pv["metadata"]["name"]
        try:
            path, node = plan.delete_target(pv)
            if node:
                try:
                    await inst.client.get(Node, node)
                except ApiError as exc:
                    if exc.status.code != 404:
                        raise
                    inst.log(
                        "info", f"Node {node} does not exist, skipping cleanup of volume {name}"
                    )
                    node = None
            if node is not None:
                inst.log("info", f"Deleting volume {name} at {plan.where(node, path)}")
                size = plan.size_of(pv)
                try:
                    await self._helper(inst, "delete", name, path, node, size)
                except plan.ProvisionError as exc:
                    inst.log("info", f"clean up volume {name} failed: {exc}")
                    raise plan.ProvisionError(f"failed to delete volume {name}: {exc}") from exc
        except plan.ProvisionError as exc:  # controller.go:1569-1571
            await inst.recorder.record_object(pv, Event("Warning", "VolumeFailedDelete", str(exc)))
            return False
        with contextlib.suppress(ApiError):
            await inst.client.delete(PersistentVolume, name)
        return True

    async def _helper(
        self, inst: Instance, action: str, volume: str, path: str, node: str, size: int
    ) -> None:
        """createHelperPod (provisioner.go:690-839): create, poll every second until it
        succeeds, log its output, delete it."""
        ns = inst.pod["metadata"]["namespace"]
        sa = inst.pod["spec"].get("serviceAccountName") or "default"
        body = plan.helper_pod(
            inst.template, action, volume, path, node, size, inst.config, ns, sa, CONFIGMAP
        )
        name = body["metadata"]["name"]
        inst.log("info", f"create the helper pod {name} into {ns}")
        try:
            await inst.client.create(from_dict(body))
        except ApiError as exc:
            if exc.status.code != 409:
                raise plan.ProvisionError(
                    f"failed to {action} volume {volume}: {exc.status.message}"
                ) from exc
        completed = False
        try:
            for _ in range(inst.config.cmd_timeout):
                pod = await inst.client.get(Pod, name, namespace=ns)
                if pod.status and pod.status.phase == "Succeeded":
                    completed = True
                    break
                await asyncio.sleep(self.kubelet.timing(timing.LOCAL_PATH_HELPER_POLL))
        finally:
            await self._helper_logs(inst, name, ns)
            with contextlib.suppress(ApiError):
                await inst.client.delete(Pod, name, namespace=ns)
        if not completed:
            raise plan.ProvisionError(
                f"failed to {action} volume {volume}: "
                f"create process timeout after {inst.config.cmd_timeout} seconds"
            )
        verb = "created" if action == "create" else "deleted"
        inst.log("info", f"Volume {volume} has been {verb} on {plan.where(node, path)}")

    async def _helper_logs(self, inst: Instance, name: str, ns: str) -> None:
        """saveHelperPodLogs (provisioner.go:982-1015), through pods/log as upstream reads it."""
        lines: list[str] = []
        try:
            async for line in inst.client.log(name, namespace=ns, container="helper-pod"):
                lines.append(line.rstrip("\n"))
        except ApiError as exc:
            inst.log(
                "error",
                f"failed to save {name} logs: error in opening stream: {exc.status.message}",
            )
            return
        inst.log("info", f"Start of {name} logs")
        for line in lines:
            inst.log("info", line)
        inst.log("info", f"End of {name} logs")
