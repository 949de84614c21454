"""The simulator's view of the objects pods depend on (Secrets, ConfigMaps), kept current by
watches; every change wakes the pods that wait on configuration."""

import asyncio

from lightkube import ALL_NS, AsyncClient
from lightkube.resources.core_v1 import ConfigMap, Secret
from lightkube.types import on_error_retry


class WorldCache:
    def __init__(self) -> None:
        self._objects: dict[tuple[str, str, str], dict] = {}
        self.changed = asyncio.Event()
        self.synced = asyncio.Event()
        self._pending = 2

    def secret(self, namespace: str, name: str) -> dict | None:
        return self._objects.get(("Secret", namespace, name))

    def configmap(self, namespace: str, name: str) -> dict | None:
        return self._objects.get(("ConfigMap", namespace, name))

    async def run(self, client: AsyncClient) -> None:
        await asyncio.gather(
            self._watch(client, Secret, "Secret"), self._watch(client, ConfigMap, "ConfigMap")
        )

    async def _watch(self, client: AsyncClient, resource, kind: str) -> None:
        # list first so pods never see a Secret as missing that merely was not read yet
        async for obj in client.list(resource, namespace=ALL_NS):
            self._store("ADDED", kind, obj.to_dict())
        self._pending -= 1
        if self._pending == 0:
            self.synced.set()
        async for op, obj in client.watch(resource, namespace=ALL_NS, on_error=on_error_retry):
            self._store(op, kind, obj.to_dict())
            # wake everyone waiting now; later waiters wait for the next change
            woken, self.changed = self.changed, asyncio.Event()
            woken.set()

    def _store(self, op: str, kind: str, obj: dict) -> None:
        key = (kind, obj["metadata"]["namespace"], obj["metadata"]["name"])
        if op == "DELETED":
            self._objects.pop(key, None)
        else:
            self._objects[key] = obj
