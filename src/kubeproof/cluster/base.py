"""The interface every cluster backend offers the runner and the tests."""

import shutil
import subprocess
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Self

from lightkube import Client
from lightkube.config.kubeconfig import KubeConfig

from kubeproof.cluster.binaries import bin_dir
from kubeproof.cluster.decoders import prepare_for_threads


def kubectl_binary() -> str:
    """The version-matched kubectl we build, else whatever kubectl is on PATH."""
    built = bin_dir() / "kubectl"
    if built.is_file():
        return str(built)
    return shutil.which("kubectl") or "kubectl"


class Cluster(ABC):
    """A Kubernetes API reachable with admin credentials. Use as a context manager."""

    name: str

    @property
    @abstractmethod
    def admin_kubeconfig(self) -> Path: ...

    @property
    @abstractmethod
    def server(self) -> str: ...

    @abstractmethod
    def start(self) -> Self: ...

    @abstractmethod
    def stop(self) -> None: ...

    def ca_pem(self) -> bytes:
        """The CA that signed the API server's certificate, from the admin kubeconfig."""
        import base64

        import yaml

        config = yaml.safe_load(self.admin_kubeconfig.read_text())
        current = config.get("current-context")
        context = next(c["context"] for c in config["contexts"] if c["name"] == current)
        entry = next(c["cluster"] for c in config["clusters"] if c["name"] == context["cluster"])
        if "certificate-authority-data" in entry:
            return base64.b64decode(entry["certificate-authority-data"])
        return Path(entry["certificate-authority"]).expanduser().read_bytes()

    def client(self, **kwargs) -> Client:
        """A lightkube client with admin credentials; safe to use from any thread."""
        prepare_for_threads()
        config = KubeConfig.from_file(self.admin_kubeconfig)
        return Client(config, trust_env=False, **kwargs)

    def kubectl(
        self, *args: str, check: bool = True, input: str | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run stock kubectl as admin against this cluster."""
        cmd = [kubectl_binary(), f"--kubeconfig={self.admin_kubeconfig}", *args]
        return subprocess.run(
            cmd, capture_output=True, text=True, check=check, input=input, timeout=timeout
        )

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
