"""ServiceAccount tokens for projected `serviceAccountToken` volume sources, requested as a
kubelet requests them: a TokenRequest for the pod's ServiceAccount, bound to the pod, made
with the node's own credentials (so the Node authorizer and NodeRestriction decide), and
renewed when within 20% of its lifetime of expiring.

Sources (k8s.io/kubernetes v1.36.3): pkg/volume/projected/projected.go:330-354 (the
request), pkg/kubelet/token/token_manager.go:174-195 (renewal), the token itself is the
apiserver's — a real bound JWT that authenticates as the ServiceAccount.

Tokens are fetched when someone looks: before `kubectl exec` runs in the container, and
before the containers of a pod whose scripts run for real (realshell.py) start — such a
script reads its token file at once. Not for every pod a simulated node runs."""

import logging
import time

from lightkube import ApiError, AsyncClient
from lightkube.models.authentication_v1 import BoundObjectReference, TokenRequestSpec
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import ServiceAccountToken

from kubeproof.nodesim.volumefiles import ContainerFiles

log = logging.getLogger("kubeproof.nodesim")
REFRESH_FRACTION = 0.2  # token_manager.go:190-192: renew within 20% of the TTL of expiry
DEFAULT_EXPIRATION_SECONDS = 3600  # k8s.io/api/core/v1 ServiceAccountTokenProjection default


class PodTokens:
    """Every token a pod's projected volumes hold, requested before its containers start
    as the kubelet sets the volume up before starting them (projected.go collectData, the
    SetUp that WaitForAttachAndMount waits on): a script that runs for real reads the file
    from its first line. `error` is the last request's failure, which fails the mount."""

    def __init__(self, pod: dict) -> None:
        self._pod = pod
        self.tokens: dict[tuple[str, str], str] = {}
        self.token_due: dict[tuple[str, str], float] = {}
        self.error: tuple[str, str] | None = None  # (volume, FailedMount message)

    def token_volumes(self) -> list[tuple[str, dict]]:
        return [
            (v["name"], p["serviceAccountToken"])
            for v in self._pod["spec"].get("volumes") or []
            for p in (v.get("projected") or {}).get("sources") or []
            if "serviceAccountToken" in p
        ]

    def set_token(self, volume: str, path: str, token: str) -> None:
        self.tokens[(volume, path)] = token

    def give(self, files: ContainerFiles) -> None:
        """The tokens into a container's files (before its sandbox is made)."""
        for (volume, path), token in self.tokens.items():
            files.set_token(volume, path, token)
        files.token_due |= self.token_due


async def ensure(
    files: ContainerFiles | PodTokens, pod: dict, client: AsyncClient
) -> tuple[str, str] | None:
    """Request or renew every token the container mounts that is missing or due; the
    first volume a token could not be had for, with the FailedMount message
    (config.volume_error's form): `failed to fetch token: …` when there was none yet
    (token_manager.go GetServiceAccountToken), a renewal failure keeps the old token."""
    meta, now = pod["metadata"], time.time()
    failed: tuple[str, str] | None = None
    for volume, source in files.token_volumes():
        key = (volume, source["path"])
        if files.tokens.get(key) and now < files.token_due.get(key, 0.0):
            continue
        seconds = int(source.get("expirationSeconds") or DEFAULT_EXPIRATION_SECONDS)
        request = ServiceAccountToken(
            metadata=ObjectMeta(name=pod["spec"].get("serviceAccountName") or "default"),
            spec=TokenRequestSpec(
                audiences=[source["audience"]] if source.get("audience") else [],
                expirationSeconds=seconds,
                boundObjectRef=BoundObjectReference(
                    apiVersion="v1", kind="Pod", name=meta["name"], uid=meta["uid"]
                ),
            ),
        )
        try:
            issued = await client.create(
                request,
                pod["spec"].get("serviceAccountName") or "default",
                namespace=meta["namespace"],
            )
        except ApiError as exc:
            log.warning("token for %s/%s: %s", meta["namespace"], meta["name"], exc.status.message)
            if failed is None and not files.tokens.get(key):
                message = f"failed to fetch token: {exc.status.message}"
                failed = volume, f'MountVolume.SetUp failed for volume "{volume}" : {message}'
            continue
        files.set_token(volume, source["path"], issued.status.token)
        files.token_due[key] = now + seconds * (1 - REFRESH_FRACTION)
    return failed


def script_argvs(pod: dict) -> list[tuple[str, list[str]]]:
    """(image, command then args) of each of the pod's containers, for the kubelet to tell
    whether one runs its script for real (realshell.runs_for_real) and needs its token at
    start (`$(VAR)` references are left as written: they do not make a shell a shell)."""
    spec = pod["spec"]
    containers = [
        *(spec.get("initContainers") or []),
        *spec["containers"],
        *(spec.get("ephemeralContainers") or []),
    ]
    return [
        (c.get("image") or "", [*(c.get("command") or []), *(c.get("args") or [])])
        for c in containers
    ]
