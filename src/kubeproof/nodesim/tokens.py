"""ServiceAccount tokens for projected `serviceAccountToken` volume sources, requested as a
kubelet requests them: a TokenRequest for the pod's ServiceAccount, bound to the pod, made
with the node's own credentials (so the Node authorizer and NodeRestriction decide), and
renewed when within 20% of its lifetime of expiring.

Sources (k8s.io/kubernetes v1.36.3): pkg/volume/projected/projected.go:330-354 (the
request), pkg/kubelet/token/token_manager.go:174-195 (renewal), the token itself is the
apiserver's — a real bound JWT that authenticates as the ServiceAccount.

Tokens are fetched when someone looks: before `kubectl exec` runs in the container (the
only way to read a file), not for every pod a simulated node runs."""

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


async def ensure(files: ContainerFiles, pod: dict, client: AsyncClient) -> None:
    """Request or renew every token the container mounts that is missing or due."""
    meta, now = pod["metadata"], time.time()
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
            continue
        files.set_token(volume, source["path"], issued.status.token)
        files.token_due[key] = now + seconds * (1 - REFRESH_FRACTION)
