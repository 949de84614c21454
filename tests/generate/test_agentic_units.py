"""The agentic generate agent's hostile-input parts, no cluster: which kubectl text the
harness runs (read as written, a write only as a server-side dry run, the rest refused) and
how a text-protocol reply becomes one action."""

import pytest

from kubeproof.agents.llm.tools import Action, Malformed
from kubeproof.generate.agentic import _usable, checked, parse_text, tools_for
from kubeproof.generate.model import Tier
from kubeproof.generate.task import generate

TASK = generate("configmap", Tier.easy, 3)


@pytest.mark.parametrize(
    "text",
    [
        "kubectl get configmaps -n shop -o yaml",
        "kubectl -n shop describe role reader",
        "kubectl auth can-i create roles -n shop",
        "kubectl explain deployment.spec.strategy",
        "kubectl api-resources",
        "kubectl rollout status deployment/web -n shop",
    ],
)
def test_reading_commands_run_as_written(text):
    argv, note = checked(text)
    assert argv == text.split() and note == ""


@pytest.mark.parametrize(
    ("text", "ran"),
    [
        ("kubectl create configmap x -n shop --from-literal=a=b",
         "kubectl create configmap x -n shop --from-literal=a=b --dry-run=server"),
        ("kubectl delete namespace shop", "kubectl delete namespace shop --dry-run=server"),
        ("kubectl label ns shop a=b --dry-run=server",
         "kubectl label ns shop a=b --dry-run=server"),
        ("kubectl rollout restart deployment/web -n shop",
         "kubectl rollout restart deployment/web -n shop --dry-run=server"),
    ],
)  # fmt: skip
def test_writing_commands_run_only_as_a_server_dry_run(text, ran):
    argv, note = checked(text)
    assert argv == ran.split() and "dry-run" in note


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("kubectl delete namespace shop --dry-run=none", "only with --dry-run=server"),
        ("kubectl delete ns shop --dry-run=client --dry-run=server", "only with --dry-run=server"),
        ("kubectl delete --raw /api/v1/namespaces/shop", "--raw"),
        ("kubectl auth reconcile -f rbac.yaml", "-f is not allowed"),
        ("kubectl auth reconcile", "only `can-i` and `whoami`"),
        ("kubectl get pods | sh", "shell_syntax"),
        ("kubectl get pods; rm -rf /", "shell_syntax"),
        ("kubectl get secrets --kubeconfig=/etc/admin.conf", "--kubeconfig is not allowed"),
        ("kubectl get pods --token=abc", "--token is not allowed"),
        ("kubectl exec web -- sh", "'exec' not allowed"),
        ("kubectl proxy", "'proxy' not allowed"),
        ("kubectl apply -f x.yaml", "not allowed"),
        ("curl https://127.0.0.1:6443", "not_kubectl"),
        ("kubectl get $(cat /etc/passwd)", "shell_syntax"),
    ],
)
def test_everything_else_is_refused_with_a_reason(text, why):
    argv, note = checked(text)
    assert argv is None and why in note, note


def test_a_text_reply_is_one_action():
    assert parse_text("```sh\nkubectl get ns\n```", TASK).args == {"command": "kubectl get ns"}
    dry = parse_text("DRY-RUN\n```yaml\nkind: ConfigMap\n```", TASK)
    assert (dry.name, dry.args) == ("dry_run", {"manifest": "kind: ConfigMap\n"})
    done = parse_text("SUBMIT\n```yaml\nkind: ConfigMap\n```", TASK)
    assert done.name == "submit" and "kind: ConfigMap" in done.args["answer"]
    # a reply of YAML only is the answer, as a single-shot model would give it
    assert parse_text("```yaml\nkind: ConfigMap\n```", TASK).name == "submit"
    assert parse_text("apiVersion: v1\nkind: ConfigMap", TASK).name == "submit"


@pytest.mark.parametrize(
    "reply",
    ["I think the answer is a ConfigMap.", "SUBMIT", "DRY-RUN\nno yaml here",
     "```sh\nkubectl get ns\n```\n```sh\nkubectl get pods\n```"],
)  # fmt: skip
def test_a_text_reply_without_one_action_is_malformed(reply):
    with pytest.raises(Malformed):
        parse_text(reply, TASK)


def test_a_command_task_has_nothing_to_dry_run():
    names = [t["name"] for t in tools_for(TASK)]
    assert names == ["kubectl", "dry_run", "submit"]
    command_task = TASK.model_copy(update={"answer_format": "command"})
    assert [t["name"] for t in tools_for(command_task)] == ["kubectl", "submit"]


@pytest.mark.parametrize(
    ("args", "why"),
    [({"command": "kubectl get ns\x00x"}, "NUL byte"),
     ({"answer": "kind: ConfigMap\ud800"}, "not valid UTF-8")],
)  # fmt: skip
def test_text_no_command_line_or_file_could_hold_is_the_models_fault(args, why):
    # both are valid in a JSON string; run or written as they are, the harness would fail
    with pytest.raises(Malformed, match=why):
        _usable(Action("kubectl" if "command" in args else "submit", args))
