"""The generated task: what a generator writes for one (type, tier, operation, seed) and what
the staged evaluation reads. The format is specified in docs/generate.md."""

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION: Literal[1] = 1
# in every task file, so a model trained on published tasks can be caught reciting it
CANARY = "kubeproof-generate canary ddf661d8-d895-416c-9da4-e164a866d075"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Tier(StrEnum):
    easy = "easy"
    intermediate = "intermediate"
    advanced = "advanced"


class Operation(StrEnum):
    """CREATE writes new objects, UPDATE changes a live one, DELETE removes some (manifests);
    COMMAND answers with one kubectl command that makes a change or answers a question."""

    create = "create"
    update = "update"
    delete = "delete"
    command = "command"


class Stage(StrEnum):
    """The stages an answer passes in order; a mutant names the first it must fail."""

    s0_extract = "S0"
    s1_schema = "S1"
    s2_apply = "S2"
    s3_objects = "S3"
    s4_checks = "S4"


class ObjectRef(_Strict):
    """One object by identity (`namespace` None for cluster-scoped kinds)."""

    api_version: str = Field(description="apiVersion, e.g. rbac.authorization.k8s.io/v1.")
    kind: str = Field(description="Kind, e.g. Role.")
    name: str = Field(description="metadata.name.")
    namespace: str | None = Field(
        default=None, description="metadata.namespace; None if cluster-scoped."
    )


class Prompts(_Strict):
    """The three wordings of one task (CloudEval-YAML's original/simplified practice plus the
    terse form operators type into chat)."""

    full: str = Field(description="The full description with the scenario's context.")
    simplified: str = Field(description="The same request, shorter and plainer.")
    terse: str = Field(description="Operator shorthand (ns, sa, cm, rb), one or two lines.")


class Rule(_Strict):
    """A PolicyRule of the evaluation identity, in the API's own field names."""

    apiGroups: list[str] = Field(description="API groups; '' is the core group.")
    resources: list[str] = Field(description="Resources (plural, lower case).")
    verbs: list[str] = Field(description="Verbs granted.")


class EvaluationIdentity(_Strict):
    """The restricted ServiceAccount the answer is applied as (S2). Kubernetes refuses a Role
    that grants what its creator lacks unless the creator holds `escalate`, and a binding to
    such a role unless it holds `bind`; so whether it holds them decides what S2 accepts."""

    profile: Literal["escalate-allowed", "restricted"] = Field(
        description="escalate-allowed: may write any well-formed RBAC; restricted: may not "
        "grant beyond its own rules."
    )
    namespace: str = Field(description="Namespace of the ServiceAccount.")
    name: str = Field(description="Name of the ServiceAccount.")
    rules: list[Rule] = Field(description="Its rights, granted cluster-wide by one ClusterRole.")
    escalate: bool = Field(description="Holds `escalate` on roles and clusterroles.")
    bind: bool = Field(description="Holds `bind` on roles and clusterroles.")


class Subject(_Strict):
    """Who a permission matrix asks about; a SubjectAccessReview's user and groups follow."""

    kind: Literal["ServiceAccount", "User", "Group"]
    name: str
    namespace: str | None = Field(default=None, description="For a ServiceAccount only.")


class Cell(_Strict):
    """One question of a permission matrix: may the subject do this? Later a
    SubjectAccessReview's resourceAttributes (or nonResourceAttributes when `path` is set)."""

    verb: str
    group: str = Field(default="", description="API group; '' is the core group.")
    resource: str = ""
    subresource: str = ""
    namespace: str = Field(
        default="", description="'' for a cluster-scoped or cluster-wide question."
    )
    name: str = Field(default="", description="A resource name, '' for any.")
    path: str = Field(default="", description="A non-resource URL such as /metrics.")
    allowed: bool = Field(description="The answer the task asks for.")


class _Check(_Strict):
    target: ObjectRef = Field(description="The object the check reads.")


class FieldEquals(_Check):
    type: Literal["field_equals"] = "field_equals"
    path: str = Field(description="Field path as kubeproof.verify.fields reads it.")
    value: Any = Field(description="The expected value.")
    quantity: bool = Field(
        default=False, description="Compare as Kubernetes quantities (1Gi == 1024Mi)."
    )
    unordered: bool = Field(
        default=False, description="Compare lists in any order (policyTypes, accessModes)."
    )


class MapIncludes(_Check):
    """Labels or annotations (or any string map): these pairs are present."""

    type: Literal["map_includes"] = "map_includes"
    path: str = Field(description="metadata.labels, metadata.annotations, ...")
    entries: dict[str, str]


class KeysPresent(_Check):
    type: Literal["keys"] = "keys"
    path: str = Field(description="A map such as data or binaryData.")
    keys: list[str]
    exact: bool = Field(default=False, description="No other keys either.")


class SecretData(_Check):
    """Decoded Secret values (`stringData` merged into `data` as the apiserver does)."""

    type: Literal["secret_data"] = "secret_data"
    values: dict[str, str] = Field(description="Key -> decoded value.")
    json_fields: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="Key -> {field path in the decoded JSON: value} (.dockerconfigjson).",
    )


class SecretType(_Check):
    type: Literal["secret_type"] = "secret_type"
    secret_type: str
    required_keys: list[str] = Field(description="Keys the type requires (tls.crt, ...).")


class ListContains(_Check):
    """Some item of the list at `path` has all of `item`'s fields (subjects, imagePullSecrets)."""

    type: Literal["list_contains"] = "list_contains"
    path: str
    item: dict[str, Any]


class Permissions(_Check):
    """An allow/deny matrix for one subject. With `probe_binding`, the evaluator first binds
    the subject to the target role (a Role or ClusterRole answer has no subject of its own)."""

    type: Literal["permissions"] = "permissions"
    subject: Subject
    probe_binding: Literal["RoleBinding", "ClusterRoleBinding"] | None = None
    probe_namespace: str | None = Field(
        default=None, description="Namespace of a probe RoleBinding."
    )
    cells: list[Cell]


class Unchanged(_Check):
    """What an UPDATE or a command was not asked to change is as the fixture had it: every
    leaf at `fields`, the key set of every map at `keys` (labels, data, quota) and the length
    of every list of objects at `lengths` (an item added to a keyed list is a change too)."""

    type: Literal["unchanged"] = "unchanged"
    fields: dict[str, Any] = Field(description="Path -> the fixture's value (quantities equal).")
    keys: dict[str, list[str]] = Field(
        default_factory=dict, description="Map path -> its keys, exactly (none added or removed)."
    )
    lengths: dict[str, int] = Field(
        default_factory=dict, description="List path -> its number of items."
    )
    ignore_keys: list[str] = Field(
        default_factory=list,
        description="Keys the apiserver adds itself (kubernetes.io/metadata.name on a Namespace).",
    )


class CommandOutput(_Strict):
    """A question's answer: what the command prints (COMMAND tasks that ask a question)."""

    type: Literal["output"] = "output"
    expected: str = Field(description="The output a correct command prints.")
    compare: Literal["exact", "words"] = Field(
        default="exact",
        description="exact: equal but for surrounding whitespace; words: the same "
        "whitespace-separated words in any order (a list of names).",
    )


class _RuntimeCheck(_Check):
    """Runtime truth (S4, live only): what the controllers, the scheduler and the simulated
    nodes make of the objects, awaited for at most `timeout_seconds`. The offline judge
    cannot run them and reports them as not run (docs/generate.md, Runtime truth)."""

    timeout_seconds: float = Field(
        default=90.0, gt=0, le=600, description="The longest the judge waits for it to hold."
    )


class PodsReady(_RuntimeCheck):
    """The workload's pods run on the simulated nodes: `count` of them Ready (a Deployment,
    StatefulSet or DaemonSet), or `count` Succeeded (a Job's completions)."""

    type: Literal["pods_ready"] = "pods_ready"
    count: int = Field(ge=1, description="Pods that must be Ready, or a Job's completions.")


class ServiceEndpoints(_RuntimeCheck):
    """The Service selects ready pods: its EndpointSlices hold at least `count` ready
    endpoints for its port `port`, on the pods' port `target_port`."""

    type: Literal["service_endpoints"] = "service_endpoints"
    port: int = Field(description="The Service's port (spec.ports[].port).")
    target_port: int = Field(description="The port the endpoints must carry (the pods').")
    count: int = Field(ge=1, description="Ready endpoints at least.")
    backing: ObjectRef | None = Field(
        default=None,
        description="The workload whose pods should back it; awaited Ready before the "
        "endpoints are judged, so a wrong selector fails soon, not at the timeout.",
    )


class PodGroup(_Strict):
    """The pods of one workload, by the labels its pod template carries."""

    namespace: str
    labels: dict[str, str] = Field(description="Labels the pods carry (all of them).")


class NetworkPath(_Strict):
    """One intended path: may a pod of `source` open `port`/`protocol` on every pod of
    `destination`?"""

    source: PodGroup
    destination: PodGroup
    port: int
    protocol: Literal["TCP", "UDP", "SCTP"] = "TCP"
    allowed: bool = Field(description="What the task intends: open or closed.")


class PolicyPaths(_RuntimeCheck):
    """The NetworkPolicies let through exactly the intended paths between the running pods,
    as netsim computes them from the live objects (the evaluator the simulated nodes route
    with and the netpol track's mismatch report uses): exact, not probed."""

    type: Literal["policy_paths"] = "policy_paths"
    paths: list[NetworkPath] = Field(min_length=1)


RUNTIME_CHECKS = (PodsReady, ServiceEndpoints, PolicyPaths)


Check = Annotated[
    FieldEquals
    | MapIncludes
    | KeysPresent
    | SecretData
    | SecretType
    | ListContains
    | Permissions
    | Unchanged
    | CommandOutput
    | PodsReady
    | ServiceEndpoints
    | PolicyPaths,
    Field(discriminator="type"),
]


class Mutant(_Strict):
    """A wrong answer made from the reference; the validity proof expects it to fail at
    `fails_at` (and pass every stage before)."""

    operator: str = Field(description="The mutation: drop_verb, wrong_namespace, ...")
    fails_at: Stage
    target: ObjectRef = Field(description="The reference's object changed, or the one added.")
    document: int = Field(description="Index of that object among the answer's documents.")
    path: str = Field(description="Field the mutation changed ('' for a whole object).")
    answer: str = Field(description="The mutated answer (YAML).")


class GeneratedTask(_Strict):
    schema_version: Literal[1] = SCHEMA_VERSION
    id: str = Field(description="generate-v<gen>-<type>-<tier>-<op>-<seed>: reproducible alone.")
    generator_version: int
    seed: int
    resource_type: str = Field(description="clusterrole, configmap, ... (lower case kind).")
    tier: Tier
    operation: Operation
    prompts: Prompts
    scenario: str = Field(description="Who asks and why: the context a full prompt tells.")
    fixtures: list[dict] = Field(description="Manifests an admin creates before the answer.")
    identity: EvaluationIdentity
    answer_kinds: list[str] = Field(description="Kinds the answer may contain (S0 wrong kind).")
    answer_format: Literal["manifest", "command"] = Field(
        default="manifest", description="YAML manifests, or one kubectl command (COMMAND)."
    )
    expected: list[ObjectRef] = Field(description="Objects the answer must create (S3).")
    absent: list[ObjectRef] = Field(
        default_factory=list,
        description="Objects that must not exist afterwards (what a DELETE task removes).",
    )
    extra_objects: Literal["forbid", "warn"] = Field(
        default="forbid", description="Whether creating objects beyond `expected` fails S3."
    )
    checks: list[Check] = Field(description="Typed checks on the created objects (S4).")
    reference: str = Field(description="A correct answer (YAML, or the command).")
    mutants: list[Mutant] = Field(description="Wrong answers made from the reference.")
    canary: str = Field(default=CANARY, description="Do not train on this: a fixed canary string.")
