"""Whether a workload reaches the upstreams its model depends on, decided by netsim over
the live objects, and the line a client library would log when it does not."""

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from kubeproof.netsim import Network
from kubeproof.netsim.objects import DNS_SERVICE_IP, Pod
from kubeproof.nodesim.catalog import Dependency
from kubeproof.nodesim.volumefiles import ContainerFiles

DEFAULT_PORTS = {
    "http": 80,
    "https": 443,
    "postgres": 5432,
    "postgresql": 5432,
    "mysql": 3306,
    "redis": 6379,
    "amqp": 5672,
    "mongodb": 27017,
}


def target(dep: Dependency, env: dict[str, str], files: Mapping[str, str]) -> str | None:
    """host:port the dependency points at, or None when the setting is absent. A process
    reads its configuration files when it starts: a later volume update (volumefiles.py)
    reaches it only through a restart."""
    if isinstance(files, ContainerFiles):
        files = files.at_start
    raw = env.get(dep.env) if dep.env else files.get(dep.file or "")
    if not raw:
        return None
    raw = raw.strip()
    if "://" in raw:
        parts = urlsplit(raw)
        if not parts.hostname:
            return None
        return f"{parts.hostname}:{parts.port or DEFAULT_PORTS.get(parts.scheme, dep.port)}"
    host, _, port = raw.partition(":")
    return f"{host}:{port.split('/')[0] or dep.port}"


def failure(net: Network, pod: Pod, where: str) -> str | None:
    """None if `pod` reaches `where`, else the client error line."""
    verdict = net.connect(pod, where)
    if verdict.allowed:
        return None
    host = where.rsplit(":", 1)[0]
    if verdict.code == "nxdomain":
        return f"dial tcp: lookup {host} on {DNS_SERVICE_IP}:53: no such host"
    if verdict.code == "dns-blocked":
        return (
            f"dial tcp: lookup {host} on {DNS_SERVICE_IP}:53: read udp "
            f"{pod.ip}:41234->{DNS_SERVICE_IP}:53: i/o timeout"
        )
    if verdict.code in ("no-endpoints", "not-listening"):
        return f"dial tcp {where}: connect: connection refused"
    return f"dial tcp {where}: i/o timeout"


def wording(dep: Dependency, where: str, error: str) -> str:
    """The model's error line for a failed attempt on `where`."""
    return dep.log.replace("{target}", where).replace("{error}", error)


@dataclass
class Attempts:
    """A `log`-mode dependency of one container run: the process keeps serving, logs each
    failed attempt (every check, or every `retrySeconds`) and a line once it answers."""

    failing: bool = False
    next_at: float = 0.0

    def attempt(self, dep: Dependency, where: str, error: str | None, now: float) -> list[str]:
        if error is None:
            was, self.failing = self.failing, False
            if was and dep.recovered:
                return [dep.recovered.replace("{target}", where)]
            return []
        if self.failing and now < self.next_at:
            return []  # between the process's own retries
        self.failing = True
        self.next_at = now + (dep.retry_seconds or 0.0)
        return [wording(dep, where, error)]
