"""The embedded cluster: the real control plane as local processes on its own loopback
address, with its own PKI, state directory and audit log.

Start order: etcd, then kube-apiserver, then controller manager and scheduler; ready when
every health endpoint answers `ok` and the bootstrap objects exist (see bootstrap.py).
"""

import atexit
import fcntl
import os
import re
import shutil
import time
import weakref
from collections.abc import Callable
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Self

import yaml
from lightkube.codecs import from_dict

from kubeproof.agents.limits import cgroup_parents, sweep_stale
from kubeproof.cluster import addons, kubeadmconfig, snapshot, staticpods
from kubeproof.cluster.addresses import release, reserve, taken_over, wait_ports_released
from kubeproof.cluster.audit import write_policy
from kubeproof.cluster.base import Cluster
from kubeproof.cluster.binaries import Binaries, require_binaries
from kubeproof.cluster.bootstrap import missing_bootstrap, publish_root_ca
from kubeproof.cluster.components import Component, Context, all_components
from kubeproof.cluster.components.nodesim import rbac as nodesim_rbac
from kubeproof.cluster.health import ComponentStatus, component_status, probe, tail
from kubeproof.cluster.kubeconfig import write_cert_kubeconfig
from kubeproof.cluster.layout import Layout
from kubeproof.cluster.pki import write_pki
from kubeproof.cluster.process import spawn, stop_group
from kubeproof.cluster.record import ClusterRecord, ComponentRecord, cluster_dir, load
from kubeproof.cluster.versions import versions
from kubeproof.errors import KubeproofError
from kubeproof.nodesim.profile import NodeProfile
from kubeproof.nodesim.timing import profile as timing_profile
from kubeproof.paths import clusters_root

NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$")
_live: "weakref.WeakSet[EmbeddedCluster]" = weakref.WeakSet()


@contextmanager
def _registry_lock():
    clusters_root().mkdir(parents=True, exist_ok=True)
    with open(clusters_root() / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def _check(component: Component, name: str) -> Component:
    """The same component probed on one named readiness check, e.g. /readyz/informer-sync."""
    return replace(component, health_url=f"{component.health_url}/{name}")


def _next_name() -> str:
    n = 1
    while cluster_dir(f"kp-{n}").exists():
        n += 1
    return f"kp-{n}"


class EmbeddedCluster(Cluster):
    """A real control plane run as local processes.

    `attached=True` (the default, for the runner and tests) ties the processes to this
    Python process: they die with it even if it is SIGKILLed. The CLI's `cluster up`
    starts detached clusters that live until `cluster down`.
    """

    def __init__(
        self,
        name: str | None = None,
        *,
        address: str | None = None,
        warm: bool = True,
        attached: bool = True,
        timeout: float = 120.0,
        nodes: "int | NodeProfile" = 1,
        images: Path | None = None,
        progress: Callable[[str], None] | None = None,
        timing: str = "real",
    ):
        if name is not None and not NAME_RE.match(name):
            raise KubeproofError(
                f"invalid cluster name {name!r}: use lowercase letters, digits and '-' "
                "(at most 40, starting and ending with a letter or digit)"
            )
        self.name = name or ""
        self.requested_address = address
        self.warm = warm
        self.attached = attached
        self.timeout = timeout
        profile = nodes if isinstance(nodes, NodeProfile) else NodeProfile.workers(nodes)
        if profile.nodes and profile.control_plane is None:
            # a kubeadm cluster's nodes include the control plane's (profile.py)
            profile = profile.model_copy(update={"control_plane": True})
        self.profile = profile
        self.node_specs = self.profile.expand()
        self.images = images
        self.timing = timing_profile(timing).name  # the simulated kubelet's timing profile
        self._progress = progress or (lambda _msg: None)
        self.record: ClusterRecord | None = None

    # -- lookups ---------------------------------------------------------------------

    @classmethod
    def existing(cls, name: str) -> "EmbeddedCluster":
        record = load(name)
        cluster = cls(name, attached=record.attached)
        cluster.record = record
        return cluster

    @property
    def layout(self) -> Layout:
        return Layout(cluster_dir(self.name))

    @property
    def admin_kubeconfig(self) -> Path:
        return self.layout.admin_kubeconfig

    @property
    def server(self) -> str:
        assert self.record, "cluster not started"
        return self.record.server

    @property
    def address(self) -> str:
        assert self.record, "cluster not started"
        return self.record.address

    @property
    def audit_log(self) -> Path:
        return self.layout.audit_log

    def components(self, binaries: Binaries | None = None) -> list[Component]:
        assert self.record
        ctx = Context(
            self.layout,
            self.record.address,
            binaries or require_binaries(),
            tuple(self.record.nodes),
        )
        return all_components(ctx)

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> Self:
        binaries = require_binaries()
        started = time.monotonic()
        with _registry_lock():
            self.name = self.name or _next_name()
            if cluster_dir(self.name).exists():
                raise KubeproofError(
                    f'cluster "{self.name}" already exists',
                    hint=f"choose another name or run `kubeproof cluster down {self.name}`",
                )
            layout = self.layout
            address = reserve(layout.root, self.requested_address)
            layout.root.mkdir(parents=True)
            v = versions()
            self.record = ClusterRecord(
                name=self.name,
                address=address,
                server=f"https://{address}:6443",
                kubernetes_version=v.kubernetes,
                etcd_version=v.etcd,
                state_dir=layout.root,
                start_mode="warm" if self.warm and snapshot.usable() else "cold",
                attached=self.attached,
                owner_pid=os.getpid(),
                nodes=[spec.name for spec in self.node_specs],
                timing=self.timing,
            )
            self.record.save()
        if self.attached:
            _live.add(self)
        try:
            with self._phase("files"):
                self._prepare_files()
                if self.record.start_mode == "warm":
                    snapshot.restore(layout.etcd_data)
            self._launch(binaries)
            if self.record.start_mode == "cold":
                with self._phase("addons"):
                    self._install_addons()
            if self.record.start_mode == "cold" and not snapshot.usable():
                # before any node registers: the snapshot must hold no node of this cluster
                self._progress("saving the golden snapshot for warm starts")
                snapshot.save(f"https://{self.record.address}:2379", layout, binaries)
            self._start_nodes(binaries)
            self.record.startup_seconds = round(time.monotonic() - started, 3)
            self.record.save()
        except BaseException:
            # the state directory stays for its logs; the address is free again
            self._stop_processes()
            release(self.record.address, self.record.state_dir)
            raise
        return self

    def _prepare_files(self) -> None:
        assert self.record
        layout, record = self.layout, self.record
        write_pki(layout.pki, record.address, record.name, record.nodes)
        stems = ["admin", "controller-manager", "scheduler"]
        if record.nodes:
            stems += ["nodesim", *(f"node-{n}" for n in record.nodes)]
            layout.node_profile.write_text(yaml.safe_dump(self.profile.model_dump(mode="json")))
            if self.profile.control_plane:
                pods = staticpods.manifests(
                    self.components(), layout, record.address, record.kubernetes_version
                )
                staticpods.write(layout.static_pods, pods)
            if self.images:
                shutil.copyfile(self.images, layout.images)
        for stem in stems:
            write_cert_kubeconfig(
                layout.kubeconfig(stem),
                cluster=record.name,
                server=record.server,
                ca=layout.cert("ca"),
                cert=layout.cert(stem),
                key=layout.key(stem),
                user=f"{record.name}-{stem}",
                embed=stem == "admin",
            )
        write_policy(layout.audit_policy, record.nodes)
        layout.logs.mkdir(exist_ok=True)

    def _launch(self, binaries: Binaries) -> None:
        assert self.record
        etcd, apiserver, *controllers = [
            c for c in self.components(binaries) if c.name != "nodesim"
        ]
        # etcd and the apiserver start together (the apiserver retries its etcd connection).
        # The controllers start as soon as the apiserver can authorize them: on a warm start
        # the RBAC objects are in etcd and the authorizer's informers have synced; on a cold
        # start only once RBAC bootstrap is done (else they are forbidden and exit).
        with self._phase("etcd"):
            self._spawn(etcd)
            self._spawn(apiserver)
            self._wait_healthy([etcd], "etcd")
        with self._phase("kube-apiserver"):
            warm = self.record.start_mode == "warm"
            self._wait_healthy(
                [apiserver if not warm else _check(apiserver, "informer-sync")], "kube-apiserver"
            )
            for component in controllers:
                self._spawn(component)
            self._wait_healthy([apiserver], "kube-apiserver")
        with self._phase("controllers"):
            if self.record.start_mode == "warm":
                with self.client(timeout=5) as client:
                    publish_root_ca(client, self.layout.cert("ca"))
                    kubeadmconfig.publish(client, *self._kubeadm_values(binaries))
            self._wait_healthy(controllers, "controller manager and scheduler")
        with self._phase("bootstrap"):
            self._wait_bootstrap()

    def _kubeadm_values(self, binaries: Binaries | None) -> tuple:
        assert self.record
        record = self.record
        return self.components(binaries), self.layout, record.address, record.kubernetes_version

    def _install_addons(self) -> None:
        """kubeadm's ConfigMaps and RBAC (kubeadmconfig.py), then CoreDNS and kube-proxy as
        kubeadm installs them (addons.py); CoreDNS's pods are awaited so the snapshot holds
        them, not whatever the ReplicaSet controller had made by then."""
        deadline = time.monotonic() + self.timeout
        with self.client(timeout=5) as client:
            addons.create_missing(client, kubeadmconfig.objects(*self._kubeadm_values(None)))
            addons.install(client, self.record.kubernetes_version)
            while not addons.pods_created(client):
                self._deadline_check(deadline, "the CoreDNS pods")
                time.sleep(0.05)

    def _start_nodes(self, binaries: Binaries) -> None:
        assert self.record
        if not self.record.nodes:
            return
        simulator = next(c for c in self.components(binaries) if c.name == "nodesim")
        with self._phase("nodes"):
            with self.client(timeout=5) as client:
                for doc in nodesim_rbac():
                    client.apply(from_dict(doc), field_manager="kubeproof", force=True)
            self._spawn(simulator)
            self._wait_healthy([simulator], "the node simulator")
            self._wait_bootstrap(tuple(self.record.nodes))

    @contextmanager
    def _phase(self, name: str):
        assert self.record
        started = time.monotonic()
        yield
        self.record.phases[name] = round(time.monotonic() - started, 3)

    def _spawn(self, component: Component) -> None:
        assert self.record
        self._progress(f"starting {component.name}")
        group = self.record.pgid or None
        _, ref = spawn(
            component.argv,
            self.layout.log(component.name),
            group=group,
            attached=self.attached,
            env=component.env,
        )
        if not self.record.pgid:
            self.record.pgid = ref.pid
        self.record.components[component.name] = ComponentRecord(pid=ref.pid, started=ref.started)
        self.record.save()

    def _deadline_check(self, deadline: float, waiting_for: str) -> None:
        assert self.record
        for name, entry in self.record.components.items():
            if not entry.ref().alive():
                log = self.layout.log(name)
                raise KubeproofError(
                    f"{name} of cluster {self.name} exited while starting:\n{tail(log, 12)}",
                    log=str(log),
                )
        if time.monotonic() > deadline:
            raise KubeproofError(
                f"cluster {self.name}: timed out after {self.timeout:.0f}s waiting for "
                f"{waiting_for}",
                log=str(self.layout.logs),
            )

    def _wait_healthy(self, components: list[Component], what: str) -> None:
        deadline = time.monotonic() + self.timeout
        pending = list(components)
        ca = self.layout.cert("ca")
        while pending:
            self._deadline_check(deadline, what)
            pending = [c for c in pending if not probe(c, ca)[0]]
            if pending:
                time.sleep(0.02)

    def _wait_bootstrap(self, nodes: tuple[str, ...] = ()) -> None:
        deadline = time.monotonic() + self.timeout
        missing = ["bootstrap"]
        with self.client(timeout=5) as client:
            while missing:
                self._deadline_check(deadline, "bootstrap objects: " + ", ".join(missing))
                missing = missing_bootstrap(client, self.layout.cert("ca"), nodes)
                if missing:
                    time.sleep(0.05)

    def status(self) -> list[ComponentStatus]:
        assert self.record
        return [component_status(self.record, c) for c in self.components()]

    def _stop_processes(self, graceful: bool = True) -> None:
        if self.record and self.record.pgid:
            refs = [c.ref() for c in self.record.components.values()]
            # A graceful apiserver shutdown takes over 10 s (etcd waits for it); a cluster
            # whose state is thrown away has nothing to save, so it is killed at once.
            stop_group(self.record.pgid, refs, timeout=10.0 if graceful else 0.0)
            if not taken_over(self.record.address, self.record.state_dir):
                wait_ports_released(self.record.address)

    def stop(self, remove: bool = True) -> None:
        """Stop every process of the cluster; remove its state directory unless asked not to."""
        self._stop_processes(graceful=not remove)
        # what its node simulator left in sandboxes it was starting as it died (limits.py)
        with suppress(Exception):
            sweep_stale(cgroup_parents())
        if self.record:
            release(self.record.address, self.record.state_dir)
        if remove and self.record:
            shutil.rmtree(self.record.state_dir, ignore_errors=True)
        _live.discard(self)


def _stop_attached() -> None:
    for cluster in list(_live):
        with suppress(Exception):
            cluster.stop()


atexit.register(_stop_attached)
