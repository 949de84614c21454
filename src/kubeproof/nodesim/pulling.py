"""A container's image stage: EnsureImageExists as the kubelet runs it at each pod sync
(pkg/kubelet/images/image_manager.go, "IM" below) — pull policy, default tag, invalid
references, the pull and its duration, the pull back-off and its messages."""

from kubeproof.nodesim import images
from kubeproof.nodesim.catalog import canonical
from kubeproof.nodesim.kubeevent import Event
from kubeproof.nodesim.timing import (
    PULL_BYTES_PER_SECOND,
    PULL_START,
    SYNC_ERROR_REQUEUE,
    go_duration,
    truncate_ms,
)


class ImagePulling:
    """The pull stages of `Container` (stages `pull`, `pull-failed`, `pull-backoff`,
    `invalid`); the container's fields are declared there."""

    def _on_pull(self, now, pod, world, catalog) -> list[Event]:
        """EnsureImageExists (IM:169-382) at one pod sync."""
        policy = self.spec.get("imagePullPolicy") or images.default_pull_policy(self.image)
        try:
            image = images.apply_default_tag(self.image)
        except images.InvalidReference as exc:  # IM:176-180; waiting InvalidImageName
            self.reason = "InvalidImageName"
            self.message = f'Failed to apply default image tag "{self.image}": {exc}'
            self.stage, self.next_at = "invalid", now + self.timing(SYNC_ERROR_REQUEUE)
            return [
                self._event("Warning", "InspectFailed", self.message),
                self._event("Warning", "Failed", "Error: InvalidImageName"),
            ]
        _repo, tag, model = catalog.resolve(self.image)
        ref = canonical(self.image)
        present = pod.node_images is not None and ref in pod.node_images
        if policy == "Never" and not present:  # IM:157, then KRC:218 "Error: %v"
            self.reason = "ErrImageNeverPull"
            self.message = (
                f'Container image "{self.image}" is not present with pull policy of Never'
            )
            self.stage, self.next_at = "invalid", now + self.timing(SYNC_ERROR_REQUEUE)
            return [
                self._event("Warning", "ErrImageNeverPull", self.message),
                self._event("Warning", "Failed", "Error: ErrImageNeverPull"),
            ]
        if present and policy != "Always":
            # KubeletEnsureSecretPulledImages (beta, on since 1.35): IM:257
            self.stage, self.next_at = "create", now
            return [self._already_present()]
        if self.pull_backoff.in_backoff_since(self.pull_backoff.last_update or now, now):
            # IM:337-349: the previous pull's error, kept for the back-off message
            previous = self.message if self.reason == "ErrImagePull" else self._pull_error
            self.reason = "ImagePullBackOff"
            self.message = f'Back-off pulling image "{image}": ErrImagePull: {previous}'
            self._pull_error = previous
            retry_at = self.pull_backoff.last_update + self.pull_backoff.delay
            self.stage, self.next_at = "pull-backoff", retry_at
            return [
                self._event("Normal", "BackOff", f'Back-off pulling image "{image}"'),
                self._event("Warning", "Failed", "Error: ImagePullBackOff"),
            ]
        events = [self._event("Normal", "Pulling", f'Pulling image "{image}"')]
        if model is None or tag not in model.tags:
            self.pull_backoff.next(now)
            # IM:363-368; the CRI client drops `rpc error: code = Unknown desc = ` (k8s.io/
            # cri-client/pkg/remote_image.go:252-260), a NotFound keeps its code
            resolve = (
                f'failed to pull and unpack image "{ref}": failed to resolve reference "{ref}"'
            )
            if model is None:
                error = (
                    f"{resolve}: pull access denied, repository does not exist or may require "
                    "authorization: server message: insufficient_scope: authorization failed"
                )
            else:
                error = f"rpc error: code = NotFound desc = {resolve}: {ref}: not found"
            self.reason, self.message, self._pull_error = "ErrImagePull", error, error
            events += [
                self._event("Warning", "Failed", f'Failed to pull image "{image}": {error}'),
                self._event("Warning", "Failed", "Error: ErrImagePull"),
            ]
            # the pod worker retries the sync after backOffPeriod (kubelet.go:225)
            self.stage, self.next_at = "pull-failed", now + self.timing(SYNC_ERROR_REQUEUE)
            return events
        if pod.node_images is not None:
            pod.node_images.add(ref)
        seconds = truncate_ms(self.timing(PULL_START + model.size_bytes / PULL_BYTES_PER_SECOND))
        took = go_duration(seconds)
        events.append(
            self._event(
                "Normal",
                "Pulled",
                f'Successfully pulled image "{image}" in {took} ({took} including '
                f"waiting). Image size: {model.size_bytes} bytes.",
            )
        )
        self.stage, self.next_at = "create", now + seconds
        return events

    def _on_pull_failed(self, now, pod, world, catalog) -> list[Event]:
        self.stage = "pull"  # the next sync: back-off still running, or a new pull
        return self._on_pull(now, pod, world, catalog)

    def _on_pull_backoff(self, now, pod, world, catalog) -> list[Event]:
        self.stage = "pull"
        return []

    def _on_invalid(self, now, pod, world, catalog) -> list[Event]:
        self.stage = "pull"  # retried at each sync, with the same events
        return self._on_pull(now, pod, world, catalog)

    def _already_present(self) -> Event:
        """IM:257 (with KubeletEnsureSecretPulledImages, beta and on since 1.35): the image
        is on the node and this pod may use it."""
        return self._event(
            "Normal",
            "Pulled",
            f'Container image "{self.image}" already present on machine and can be accessed '
            "by the pod",
        )
