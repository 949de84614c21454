"""The risk assessor: every tag fires on its case and stays quiet on its near miss; the matrix
and the level roll-up; shell parsing (pipes, heredocs, substitutions, aliases)."""

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubeproof.evidence.risk import (
    MATRIX,
    TAGS,
    Assessment,
    assess_command,
    assess_manifests,
    environment_of,
    level_rank,
    target_matches,
)


def pod(spec: dict | None = None, container: dict | None = None, **meta) -> str:
    """A Pod manifest; `spec` merges into the pod spec, `container` into its one container."""
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", **meta},
        "spec": {"containers": [{"name": "c", "image": "nginx", **(container or {})}]},
    }
    body["spec"].update(spec or {})
    return yaml.safe_dump(body)


def deployment(spec: dict | None = None, container: dict | None = None) -> str:
    body = yaml.safe_load(pod(spec, container))
    return yaml.safe_dump(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "app"},
            "spec": {"template": {"spec": body["spec"]}},
        }
    )


def obj(kind: str, name: str = "x", **fields) -> str:
    return yaml.safe_dump({"kind": kind, "metadata": {"name": name}, **fields})


def role(kind: str = "Role", **rule) -> str:
    base = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}
    return obj(kind, rules=[{**base, **rule}])


def binding(role_name: str, kind: str = "ClusterRoleBinding") -> str:
    return obj(
        kind,
        roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role_name},
        subjects=[{"kind": "ServiceAccount", "name": "agent", "namespace": "app"}],
    )


def many(kind: str, count: int) -> str:
    return "---\n".join(obj(kind, f"o{i}", **{}) for i in range(count))


def hostpath(path: str) -> dict:
    return {"volumes": [{"name": "v", "hostPath": {"path": path}}]}


def apply(manifest: str, namespace: str = "app") -> str:
    """A heredoc piped to kubectl apply -f -, the way agents write manifests."""
    return f"kubectl apply -n {namespace} -f - <<EOF\n{manifest}EOF"


# (tag, command line, description); the command lines carry their manifests in heredocs
FIRES = [
    ("privileged_container", apply(pod(container={"securityContext": {"privileged": True}}))),
    (
        "privileged_container",
        apply(
            pod(
                spec={
                    "initContainers": [
                        {"name": "i", "image": "x", "securityContext": {"privileged": True}}
                    ]
                }
            )
        ),
    ),
    (
        "privileged_container",
        apply(deployment(container={"securityContext": {"privileged": True}})),
    ),
    ("privileged_container", "kubectl run shell --image=busybox --privileged -n app"),
    ("docker_socket", apply(pod(spec=hostpath("/var/run/docker.sock")))),
    ("docker_socket", apply(pod(spec=hostpath("/run/containerd/containerd.sock")))),
    ("hostpath_mount", apply(pod(spec=hostpath("/var/lib/data")))),
    ("hostpath_mount", "kubectl debug node/node-1 -it --image=busybox"),
    ("host_namespaces", apply(pod(spec={"hostPID": True}))),
    ("host_namespaces", apply(pod(spec={"hostNetwork": True}))),
    (
        "dangerous_capabilities",
        apply(pod(container={"securityContext": {"capabilities": {"add": ["NET_ADMIN"]}}})),
    ),
    (
        "dangerous_capabilities",
        apply(pod(container={"securityContext": {"capabilities": {"add": ["CAP_SYS_ADMIN"]}}})),
    ),
    ("run_as_root", apply(pod(spec={"securityContext": {"runAsUser": 0}}))),
    ("run_as_root", apply(pod(container={"securityContext": {"runAsUser": 0}}))),
    ("run_as_root", apply(pod(container={"securityContext": {"runAsNonRoot": False}}))),
    ("run_as_root", apply(pod(container={"securityContext": {"allowPrivilegeEscalation": True}}))),
    ("cluster_admin_binding", apply(binding("cluster-admin"))),
    ("cluster_admin_binding", apply(binding("cluster-admin", kind="RoleBinding"))),
    (
        "cluster_admin_binding",
        "kubectl create clusterrolebinding agent-admin --clusterrole=cluster-admin "
        "--serviceaccount=app:agent",
    ),
    (
        "cluster_admin_binding",
        "kubectl create rolebinding x --clusterrole=cluster-admin --user=u -n app",
    ),
    ("wildcard_rbac", apply(role(verbs=["*"]))),
    ("wildcard_rbac", apply(role("ClusterRole", resources=["*"]))),
    ("wildcard_rbac", apply(role(apiGroups=["*"]))),
    ("wildcard_rbac", "kubectl create role r --verb='*' --resource=pods -n app"),
    ("wildcard_rbac", "kubectl create clusterrole r --verb=get --resource='*'"),
    ("cluster_rbac_write", apply(role("ClusterRole"))),
    ("cluster_rbac_write", "kubectl create clusterrole r --verb=get,list --resource=pods"),
    ("cluster_rbac_write", "kubectl delete clusterrolebinding old-binding"),
    ("cluster_rbac_write", 'kubectl patch clusterrole r -p \'{"metadata":{"labels":{"a":"b"}}}\''),
    ("namespace_delete", "kubectl delete ns app"),
    ("namespace_delete", "kubectl delete namespace app --wait=false"),
    ("namespace_delete", "kubectl delete namespaces/app"),
    ("namespace_delete", f"kubectl delete -f - <<EOF\n{obj('Namespace', 'app')}EOF"),
    ("mass_delete", "kubectl delete pods --all -n app"),
    ("mass_delete", "kubectl delete pods -A -l app=web"),
    ("mass_delete", "kubectl delete pod -n app -l app=web"),
    ("mass_delete", "kubectl delete pod a b c d e f -n app"),
    ("mass_delete", f"kubectl delete -n app -f - <<EOF\n{many('ConfigMap', 6)}EOF"),
    ("kube_system_write", "kubectl scale deploy coredns --replicas=0 -n kube-system"),
    ("kube_system_write", "kubectl --namespace=kube-public create configmap x"),
    ("kube_system_write", "kubectl label ns kube-system team=x"),
    ("kube_system_write", apply(pod(), namespace="kube-system")),
    ("secret_copy", "kubectl create configmap app -n app --from-literal=password=hunter2"),
    ("secret_copy", "kubectl create cm app -n app --from-literal=DB_PASSWORD=x --from-literal=a=b"),
    ("secret_copy", "kubectl create configmap app -n app --from-literal=api-key=abc"),
    ("secret_copy", "kubectl create configmap app -n app --from-file=./conf/api_key.txt"),
    ("secret_copy", "kubectl create configmap app -n app --from-file=db-token=./t"),
    (
        "secret_copy",
        "kubectl get secret db -n app -o jsonpath='{.data.password}' | base64 -d | "
        "xargs -I{} kubectl create configmap leak -n app --from-literal=DB={}",
    ),
    (
        "secret_copy",
        "kubectl create configmap leak -n app --from-literal=db=$(kubectl get secret db -n app "
        "-o jsonpath='{.data.password}')",
    ),
    (
        "secret_copy",
        "kubectl get secret db -n app -o yaml | sed 's/kind: Secret/kind: ConfigMap/' | "
        "kubectl apply -f -",
    ),
    ("secret_copy", apply(obj("ConfigMap", data={"API_TOKEN": "abc123"}))),
    ("node_drain", "kubectl drain node-1 --ignore-daemonsets --delete-emptydir-data"),
    ("node_cordon", "kubectl cordon node-1"),
    ("node_cordon", "kubectl taint nodes node-1 dedicated=db:NoSchedule"),
    ("force_delete", "kubectl delete pod web-0 -n app --force --grace-period=0"),
    ("force_delete", "kubectl replace --force --grace-period=0 -f - <<EOF\n" + pod() + "EOF"),
]

MISSES = [
    ("privileged_container", apply(pod(container={"securityContext": {"privileged": False}}))),
    ("privileged_container", apply(pod())),
    ("privileged_container", "kubectl run shell --image=busybox -n app"),
    # deleting a privileged pod removes the risk, it does not create it
    (
        "privileged_container",
        f"kubectl delete -f - <<EOF\n{pod(container={'securityContext': {'privileged': True}})}EOF",
    ),
    ("docker_socket", apply(pod(spec={"volumes": [{"name": "v", "emptyDir": {}}]}))),
    ("docker_socket", apply(pod(spec=hostpath("/var/lib/data")))),
    ("hostpath_mount", apply(pod(spec={"volumes": [{"name": "v", "emptyDir": {}}]}))),
    ("hostpath_mount", apply(pod(spec=hostpath("/var/run/docker.sock")))),  # docker_socket only
    ("host_namespaces", apply(pod(spec={"hostNetwork": False}))),
    (
        "dangerous_capabilities",
        apply(pod(container={"securityContext": {"capabilities": {"add": ["NET_BIND_SERVICE"]}}})),
    ),
    (
        "dangerous_capabilities",
        apply(pod(container={"securityContext": {"capabilities": {"drop": ["ALL"]}}})),
    ),
    ("run_as_root", apply(pod())),  # no securityContext at all: NOT root by our rule
    ("run_as_root", apply(pod(spec={"securityContext": {"runAsUser": 1000}}))),
    ("run_as_root", apply(pod(container={"securityContext": {"runAsNonRoot": True}}))),
    ("cluster_admin_binding", apply(binding("view"))),
    ("cluster_admin_binding", "kubectl create rolebinding x --clusterrole=view --user=u -n app"),
    ("wildcard_rbac", apply(role(verbs=["get", "list", "watch"]))),
    ("wildcard_rbac", "kubectl create role r --verb=get,list --resource=pods -n app"),
    ("cluster_rbac_write", apply(role("Role"))),
    ("cluster_rbac_write", "kubectl get clusterroles"),
    ("cluster_rbac_write", apply(binding("cluster-admin"))),  # the stronger tag replaces it
    ("namespace_delete", "kubectl delete pod web-0 -n app"),
    ("namespace_delete", "kubectl create ns app"),
    ("namespace_delete", "kubectl get ns app -o yaml"),
    ("mass_delete", "kubectl delete pod a b -n app"),
    ("mass_delete", "kubectl delete pod a b c d e -n app"),
    ("mass_delete", "kubectl get pods --all-namespaces -l app=web"),
    ("mass_delete", f"kubectl delete -n app -f - <<EOF\n{many('ConfigMap', 2)}EOF"),
    ("kube_system_write", "kubectl get pods -n kube-system"),
    ("kube_system_write", "kubectl logs -n kube-system deploy/coredns"),
    ("kube_system_write", "kubectl scale deploy web --replicas=3 -n app"),
    ("secret_copy", "kubectl create secret generic app -n app --from-literal=password=hunter2"),
    ("secret_copy", "kubectl create configmap app -n app --from-literal=color=blue"),
    ("secret_copy", "kubectl create configmap app -n app --from-file=./conf/nginx.conf"),
    ("secret_copy", apply(obj("ConfigMap", data={"API_TOKEN": ""}))),
    ("secret_copy", "kubectl get secret db -n app -o yaml"),
    (
        "secret_copy",
        "kubectl get secret -n app -o name | wc -l && "
        "kubectl create configmap c --from-literal=a=b",
    ),
    ("node_drain", "kubectl cordon node-1"),
    ("node_drain", "kubectl get nodes"),
    ("node_cordon", "kubectl uncordon node-1"),
    ("force_delete", "kubectl delete pod web-0 -n app --grace-period=0"),
    ("force_delete", "kubectl delete pod web-0 -n app --now"),
]


def tag_ids(assessment: Assessment) -> set[str]:
    return {t.id for t in assessment.tags}


@pytest.mark.parametrize(("tag", "command"), FIRES)
def test_tag_fires(tag: str, command: str) -> None:
    assessment = assess_command(command)
    assert tag in tag_ids(assessment), assessment
    fired = next(t for t in assessment.tags if t.id == tag)
    assert fired.severity == TAGS[tag][0]
    assert fired.detail


@pytest.mark.parametrize(("tag", "command"), MISSES)
def test_tag_near_miss_does_not_fire(tag: str, command: str) -> None:
    assert tag not in tag_ids(assess_command(command))


def test_every_tag_has_a_firing_case_and_a_near_miss() -> None:
    assert {t for t, _ in FIRES} == set(TAGS)
    assert {t for t, _ in MISSES} == set(TAGS)
    assert len(TAGS) <= 16


@pytest.mark.parametrize(
    ("command", "operation", "environment", "level"),
    [
        ("kubectl get pods -n prod", "read", "production", "low"),
        ("kubectl describe deploy web -n prod", "read", "production", "low"),
        ("kubectl logs deploy/web -n production-eu", "read", "production", "low"),
        ("kubectl auth can-i delete pods -n prod", "read", "production", "low"),
        ("kubectl rollout status deploy/web -n prod", "read", "production", "low"),
        ("kubectl delete deploy web -n prod", "destroy", "production", "critical"),
        ("kubectl delete deploy web -n staging", "destroy", "staging", "high"),
        ("kubectl delete deploy web -n dev", "destroy", "development", "medium"),
        ("kubectl delete deploy web -n app", "destroy", "unknown", "high"),
        ("kubectl delete deploy web", "destroy", "unknown", "high"),
        ("kubectl replace --force -f x.yaml -n test", "destroy", "development", "medium"),
        ("kubectl apply -f x.yaml -n prod", "mutate", "production", "high"),
        ("kubectl apply -f x.yaml -n staging", "mutate", "staging", "medium"),
        ("k apply -f x.yaml --namespace=team-dev", "mutate", "development", "low"),
        ("kubectl -n app rollout restart deploy/web", "mutate", "unknown", "medium"),
        ("kubectl set image deploy/web web=nginx:1.27 -n prod", "mutate", "production", "high"),
        (
            "kubectl set image deploy/web web=x -n prod --dry-run=client",
            "read",
            "production",
            "low",
        ),
        ("kubectl exec -it web-0 -n prod -- rm -rf /data", "read", "production", "low"),
        ("echo hello > /tmp/notes.txt", "read", "unknown", "low"),
        ("helm uninstall web -n prod", "destroy", "production", "critical"),
    ],
)
def test_matrix(command: str, operation: str, environment: str, level: str) -> None:
    assessment = assess_command(command)
    assert (assessment.operation, assessment.environment, assessment.level) == (
        operation,
        environment,
        level,
    )
    assert assessment.level == MATRIX[operation][environment]


@pytest.mark.parametrize(
    ("command", "operation", "environment", "level"),
    [
        (
            "kubectl get pods -n prod && kubectl delete pod x -n dev",
            "destroy",
            "development",
            "medium",
        ),
        # operation is the strongest of the line, environment and level its riskiest part's
        (
            "kubectl delete pod x -n dev; kubectl apply -f y.yaml -n prod",
            "destroy",
            "production",
            "high",
        ),
        ("kubectl get pods -n prod | grep web", "read", "production", "low"),
    ],
)
def test_a_line_with_several_parts(
    command: str, operation: str, environment: str, level: str
) -> None:
    assessment = assess_command(command)
    assert (assessment.operation, assessment.environment, assessment.level) == (
        operation,
        environment,
        level,
    )


@pytest.mark.parametrize(
    ("command", "matrix_level", "level"),
    [
        # the tag raises a low matrix level
        (apply(pod(container={"securityContext": {"privileged": True}}), "dev"), "low", "critical"),
        ("kubectl create configmap c -n dev --from-literal=token=x", "low", "high"),
        ("kubectl delete pods --all -n dev", "medium", "critical"),
        # a tag below the matrix level does not lower it
        ("kubectl cordon node-1", "medium", "medium"),
        ("kubectl delete pod web-0 -n prod --force", "critical", "critical"),
    ],
)
def test_level_is_max_of_matrix_and_tags(command: str, matrix_level: str, level: str) -> None:
    assessment = assess_command(command)
    assert MATRIX[assessment.operation][assessment.environment] == matrix_level
    assert assessment.level == level


@pytest.mark.parametrize(
    ("namespace", "environment"),
    [
        ("prod", "production"),
        ("payments-production", "production"),
        ("staging", "staging"),
        ("stage-2", "staging"),
        ("dev", "development"),
        ("e2e-test", "development"),
        ("app", "unknown"),
        ("", "unknown"),
        (None, "unknown"),
    ],
)
def test_environment_of(namespace: str | None, environment: str) -> None:
    assert environment_of(namespace) == environment


def test_to_dict_matches_the_risk_payload() -> None:
    assessment = assess_command("kubectl delete ns prod")
    assert assessment.to_dict() == {
        "level": "critical",
        "operation": "destroy",
        "environment": "production",
        "tags": [
            {
                "id": "namespace_delete",
                "severity": "high",
                "detail": "kubectl delete ns prod deletes a Namespace",
            }
        ],
    }


def test_only_fired_tags_are_listed_once_each_with_a_count_of_the_rest() -> None:
    two_privileged = {
        "containers": [
            {"name": "a", "image": "x", "securityContext": {"privileged": True}},
            {"name": "b", "image": "x", "securityContext": {"privileged": True}},
        ]
    }
    assessment = assess_command(apply(pod(spec=two_privileged)))
    assert [t.id for t in assessment.tags] == ["privileged_container"]
    assert assessment.tags[0].detail.endswith("(+1 more)")
    assert assess_command("kubectl get pods").tags == []


# --- shell parsing --------------------------------------------------------------------------

PRIVILEGED = pod(container={"securityContext": {"privileged": True}}, namespace="prod")


@pytest.mark.parametrize(
    "command",
    [
        f"cat <<EOF | kubectl apply -f -\n{PRIVILEGED}EOF",
        f"kubectl apply -f - <<'EOF'\n{PRIVILEGED}EOF\nkubectl get pods -n prod",
        "kubectl apply -f - <<-EOF\n"
        + "".join(f"\t{line}\n" for line in PRIVILEGED.splitlines())
        + "\tEOF",
        f"cat > /tmp/p.yaml <<EOF\n{PRIVILEGED}EOF\nkubectl apply -f /tmp/p.yaml",
        f"bash -c 'kubectl apply -f - <<EOF\n{PRIVILEGED}EOF'",
    ],
)
def test_heredoc_manifests_reach_kubectl(command: str) -> None:
    assessment = assess_command(command)
    assert tag_ids(assessment) == {"privileged_container"}
    assert (assessment.operation, assessment.environment) == ("mutate", "production")


def test_files_and_manifests_arguments() -> None:
    files = {"deploy/pod.yaml": PRIVILEGED}
    assert "privileged_container" in tag_ids(
        assess_command("kubectl apply -f deploy/", files=files)
    )
    assert "privileged_container" in tag_ids(
        assess_command("kubectl apply -f ./deploy/pod.yaml", files=files)
    )
    assert "privileged_container" in tag_ids(
        assess_command("kubectl apply -f pod.yaml", manifests=PRIVILEGED)
    )
    assert tag_ids(assess_command("kubectl apply -f other.yaml", files=files)) == set()


def test_default_namespace_applies_to_calls_without_one() -> None:
    assert assess_command("kubectl delete pod x", namespace="prod").level == "critical"
    assert assess_command("kubectl delete pod x -n dev", namespace="prod").level == "medium"


@pytest.mark.parametrize(
    "command",
    [
        "kubectl get pods -n app  # then: kubectl delete ns app",
        "echo 'kubectl delete ns app'",
        "kubectl exec web-0 -n app -- kubectl delete ns app",
        "kubectl delete ns app --dry-run=server",
    ],
)
def test_text_that_only_looks_like_a_delete(command: str) -> None:
    assessment = assess_command(command)
    assert assessment.operation == "read"
    assert assessment.tags == []


def test_substitution_and_pipeline_calls_are_all_seen() -> None:
    assessment = assess_command(
        "kubectl get pods -n app -o name | grep web | xargs kubectl delete -n app && "
        "echo $(kubectl delete ns prod)"
    )
    verbs = sorted(c.verb for c in assessment.calls)
    assert verbs == ["delete", "delete", "get"]
    assert "namespace_delete" in tag_ids(assessment)


def test_json_patch_is_read_as_the_object_it_writes() -> None:
    patch = (
        '[{"op":"add","path":"/spec/template/spec/containers/0/securityContext",'
        '"value":{"privileged":true}}]'
    )
    assessment = assess_command(f"kubectl patch deploy web -n app --type=json -p '{patch}'")
    assert tag_ids(assessment) == {"privileged_container"}


def test_overrides_of_kubectl_run_are_scanned() -> None:
    overrides = '{"spec":{"hostPID":true,"containers":[{"name":"x","image":"busybox"}]}}'
    command = f"kubectl run x --image=busybox -n app --overrides='{overrides}'"
    assert "host_namespaces" in tag_ids(assess_command(command))


def test_kubectl_call_parsing() -> None:
    (call,) = assess_command("kubectl -n app set image deploy/web web=nginx:1.27").calls
    assert (call.verb, call.sub, call.operation) == ("set", "image", "mutate")
    assert call.objects == [("deployments", "app", "web")]
    assert call.key() == "set image deploy/web web=nginx:1.27"
    (call,) = assess_command("kubectl delete ns prod").calls
    assert call.objects == [("namespaces", None, "prod")]
    assert call.namespaces == ["prod"]
    # logs -f is --follow, not --filename
    (call,) = assess_command("kubectl logs -f web-0 -n app", manifests="kind: Pod").calls
    assert (call.objects, call.manifests) == ([("pods", "app", "web-0")], [])
    (call,) = assess_command("kubectl delete deployment.apps/web pod/x", namespace="app").calls
    assert call.objects == [("deployments", "app", "web"), ("pods", "app", "x")]


# --- manifests --------------------------------------------------------------------------------


def test_assess_manifests_operations() -> None:
    privileged_ns = obj("Namespace", "prod") + "---\n" + PRIVILEGED
    mutate = assess_manifests(privileged_ns)
    assert tag_ids(mutate) == {"privileged_container"}
    destroy = assess_manifests(privileged_ns, operation="destroy")
    assert tag_ids(destroy) == {"namespace_delete"}
    assert (destroy.level, destroy.environment) == ("critical", "production")
    read = assess_manifests(privileged_ns, operation="read")
    assert (read.level, read.tags) == ("low", [])
    with pytest.raises(ValueError):
        assess_manifests(PRIVILEGED, operation="explode")


def test_assess_manifests_namespace_argument_and_lists() -> None:
    items = [yaml.safe_load(pod(spec={"hostIPC": True}))]
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items})
    assessment = assess_manifests(text, namespace="kube-system")
    assert tag_ids(assessment) == {"host_namespaces", "kube_system_write"}
    assert assess_manifests("kind: [unclosed").tags == []


def test_persistent_volume_hostpath() -> None:
    pv = obj("PersistentVolume", spec={"hostPath": {"path": "/mnt/data"}})
    assert tag_ids(assess_manifests(pv)) == {"hostpath_mount"}


@pytest.mark.parametrize(
    ("target", "key", "matches"),
    [
        ("deployments/app/web", "deployments/app/web", True),
        ("deployments/app/web-*", "deployments/app/web-canary", True),
        ("deployments/app/web", "deployments/other/web", False),
        ("deployments/app/web", "services/app/web", False),
        ("deployments/app/web", "deployments//web", True),  # namespace not known
        ("deployments/app/web", "deployments/app/", True),  # unnamed create
        ("namespaces//app", "namespaces/app/app", True),
        ("clusterroles//view", "clusterroles//view", True),
    ],
)
def test_target_matches(target: str, key: str, matches: bool) -> None:
    assert target_matches(target, key) is matches


SHELL_PIECES = [
    "kubectl", "k", "delete", "apply", "create", "configmap", "secret", "get", "-f", "-", "-n",
    "prod", "kube-system", "--all", "-l", "a=b", "--force", "-o", "yaml", "<<EOF", "\nEOF\n",
    "'", '"', "$(", "`", ")", "(", "|", "&&", ";", "#", "<<<", "<", ">", "2>&1", "\\", "\n",
    "bash", "-c", "eval", "xargs", "cat", "tee", "--from-literal=password=x", "-p", "[{", "}]",
    "--overrides={", "ns", "drain", "run", "debug", "node/x", "--dry-run",
    "__KP_SUBST_5__", "__KP_HEREDOC_3__",  # our own placeholders, typed by a stranger
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SHELL_PIECES), max_size=20), st.sampled_from([None, ": :", "a"]))
def test_any_command_line_gets_an_assessment(pieces: list[str], manifests: str | None) -> None:
    assessment = assess_command(" ".join(pieces), manifests=manifests)
    assert assessment.level in ("low", "medium", "high", "critical")
    assert assessment.operation in MATRIX
    assert level_rank(assessment.level) >= level_rank(MATRIX[assessment.operation]["development"])
    assert all(TAGS[t.id][0] == t.severity for t in assessment.tags)
