"""Any cluster reachable through a kubeconfig: kind, k3d, minikube, a cloud cluster."""

from pathlib import Path
from typing import Self

from lightkube import ApiError
from lightkube.config.kubeconfig import KubeConfig
from lightkube.core.exceptions import ConfigError
from lightkube.resources.core_v1 import Namespace

from kubeproof.cluster.base import Cluster
from kubeproof.cluster.decoders import prepare_for_threads
from kubeproof.errors import KubeproofError


class ExternalCluster(Cluster):
    """Wraps a kubeconfig. kubeproof neither starts nor stops such a cluster."""

    def __init__(self, kubeconfig: str | Path, context: str | None = None):
        self._kubeconfig = Path(kubeconfig).expanduser()
        self.context = context
        try:
            config = KubeConfig.from_file(self._kubeconfig)
        except (OSError, ConfigError, ValueError) as exc:
            raise KubeproofError(f"cannot read kubeconfig {self._kubeconfig}: {exc}") from exc
        try:
            single = config.get(context)
        except ConfigError:
            single = None
        if single is None:
            known = ", ".join(sorted(config.contexts)) or "none"
            raise KubeproofError(
                f"kubeconfig {self._kubeconfig} has no context {context!r} (contexts: {known})"
            )
        self.name = context or (config.current_context or "external")
        self._server = single.cluster.server

    @property
    def admin_kubeconfig(self) -> Path:
        return self._kubeconfig

    @property
    def server(self) -> str:
        return self._server

    def client(self, **kwargs):
        from lightkube import Client

        prepare_for_threads()
        config = KubeConfig.from_file(self._kubeconfig)
        return Client(config.get(self.context), trust_env=False, **kwargs)

    def start(self) -> Self:
        """Check that the API answers with these credentials."""
        try:
            self.client(timeout=10).get(Namespace, "default")
        except ApiError as exc:
            raise KubeproofError(
                f"{self._server} refused the kubeconfig's credentials: {exc.status.message}"
            ) from exc
        except Exception as exc:
            raise KubeproofError(f"cannot reach {self._server}: {exc}") from exc
        return self

    def stop(self) -> None:
        pass
