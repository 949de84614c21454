"""The evaluation identity on a live cluster: the task's restricted ServiceAccount, its
rights as one ClusterRole bound cluster-wide (EvaluationIdentity in model.py), and a
lightkube client holding a token issued for it (TokenRequest), so S2 applies an answer
with exactly the rights the task states and the apiserver's own refusals."""

import base64
import json
import time
from pathlib import Path

from lightkube import Client
from lightkube.codecs import from_dict
from lightkube.config.kubeconfig import KubeConfig
from lightkube.config.models import Cluster as ClusterEntry
from lightkube.config.models import User
from lightkube.models.authentication_v1 import TokenRequestSpec
from lightkube.models.meta_v1 import ObjectMeta
from lightkube.resources.core_v1 import ServiceAccountToken

from kubeproof.cluster.decoders import prepare_for_threads
from kubeproof.generate.draft import RBAC_API
from kubeproof.generate.live import access
from kubeproof.generate.model import EvaluationIdentity

MANAGER = "kubeproof-judge"
TOKEN_SECONDS = 3600
# a token is renewed once this old, well before it expires mid-task
RENEW_AFTER = TOKEN_SECONDS / 2


def role_name(identity: EvaluationIdentity) -> str:
    # the CREATE identity's name is the profile alone; another identity (COMMAND's) gets its
    # own ClusterRole, or the two would overwrite each other's rules on one cluster
    suffix = "" if identity.name == "evaluator" else f"-{identity.name}"
    return f"kubeproof-eval-{identity.profile}{suffix}"


def manifests(identity: EvaluationIdentity) -> list[dict]:
    """Namespace, ServiceAccount, ClusterRole and ClusterRoleBinding of the identity."""
    name = role_name(identity)
    rules = [r.model_dump() for r in identity.rules]
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": identity.namespace}},
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": identity.name, "namespace": identity.namespace},
        },
        {"apiVersion": RBAC_API, "kind": "ClusterRole", "metadata": {"name": name}, "rules": rules},
        {
            "apiVersion": RBAC_API,
            "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": name,
            },
            "subjects": [
                {"kind": "ServiceAccount", "name": identity.name, "namespace": identity.namespace}
            ],
        },
    ]


def user(identity: EvaluationIdentity) -> str:
    return f"system:serviceaccount:{identity.namespace}:{identity.name}"


class Evaluator:
    """The identity made on one cluster, and a client acting as it."""

    def __init__(self, admin: Client, server: str, ca_pem: bytes, identity: EvaluationIdentity):
        self.identity = identity
        self._admin, self._server, self._ca = admin, server, ca_pem
        for doc in manifests(identity):
            admin.apply(from_dict(doc), field_manager=MANAGER, force=True)
        # the authorizer learns the binding from its informers a moment after the write
        first = identity.rules[0]
        access.wait_allowed(
            admin,
            user(identity),
            first.verbs[0],
            first.apiGroups[0],
            first.resources[0],
            "identity's rights",
        )
        self._issued = 0.0
        self._token = ""
        self._client: Client | None = None

    @property
    def client(self) -> Client:
        if self._client is None or time.monotonic() - self._issued > RENEW_AFTER:
            self._client = self._token_client()
        return self._client

    def kubeconfig(self, path: Path) -> Path:
        """A kubeconfig acting as the identity, for stock kubectl (a COMMAND answer)."""
        self.client  # noqa: B018 (renews the token when due)
        ca = base64.b64encode(self._ca).decode()
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "judge", "cluster": {"server": self._server,
                                                       "certificate-authority-data": ca}}],
            "users": [{"name": "evaluator", "user": {"token": self._token}}],
            "contexts": [{"name": "judge", "context": {"cluster": "judge", "user": "evaluator",
                                                       "namespace": "default"}}],
            "current-context": "judge",
        }  # fmt: skip
        path.write_text(json.dumps(config))
        path.chmod(0o600)
        return path

    def _token_client(self) -> Client:
        identity = self.identity
        issued = self._admin.create(
            ServiceAccountToken(
                metadata=ObjectMeta(name=identity.name, namespace=identity.namespace),
                spec=TokenRequestSpec(audiences=[], expirationSeconds=TOKEN_SECONDS),
            ),
            identity.name,
            namespace=identity.namespace,
        )
        if issued.status is None:
            raise RuntimeError(f"no token issued for {user(identity)}")
        self._issued = time.monotonic()
        self._token = issued.status.token or ""
        entry = ClusterEntry(
            server=self._server, certificate_auth_data=base64.b64encode(self._ca).decode()
        )
        config = KubeConfig.from_one(
            cluster=entry, user=User(token=self._token), namespace="default"
        )
        prepare_for_threads()
        return Client(config, trust_env=False, field_manager=MANAGER)
