"""The command-line reader on its own: heredocs, pipelines, substitutions and comments, as the
shell would see them."""

from kubeproof.evidence.shell import Command, KubectlCall, Script, parse_command_line

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers: []\n"


def calls(script: Script) -> list[KubectlCall]:
    """Every kubectl call, nested scripts included, in the order the shell meets them."""
    out: list[KubectlCall] = []
    for part in script.parts:
        if isinstance(part, Script):
            out.extend(calls(part))
        elif isinstance(part, KubectlCall):
            out.append(part)
    return out


def test_heredoc_body_is_the_stdin_of_its_command() -> None:
    script = parse_command_line(f"kubectl apply -n app -f - <<'EOF'\n{POD}EOF\nkubectl get pods")
    apply, get = script.parts
    assert isinstance(apply, KubectlCall) and isinstance(get, KubectlCall)
    assert (apply.verb, apply.operation, apply.namespaces) == ("apply", "mutate", ["app"])
    assert [m["metadata"]["name"] for m in apply.manifests] == ["web"]
    # the body is cut out of the line: its lines are not read as commands
    assert (get.verb, get.manifests) == ("get", [])


def test_heredoc_through_cat_and_a_file_written_earlier() -> None:
    piped = parse_command_line(f"cat <<EOF | kubectl apply -f -\n{POD}EOF")
    assert [m["kind"] for m in calls(piped)[0].manifests] == ["Pod"]
    tabbed = "".join(f"\t{line}\n" for line in POD.splitlines())  # <<- strips leading tabs
    written = parse_command_line(f"cat > pod.yaml <<-EOF\n{tabbed}\tEOF\nkubectl apply -f pod.yaml")
    assert [m["kind"] for m in calls(written)[0].manifests] == ["Pod"]


def test_pipeline_parts_in_order() -> None:
    script = parse_command_line(
        "kubectl get secret s -o yaml | sed s/Secret/ConfigMap/ | k apply -f -"
    )
    get, sed, apply = script.parts
    assert isinstance(get, KubectlCall) and isinstance(apply, KubectlCall)
    assert sed == Command(["sed", "s/Secret/ConfigMap/"])
    assert (get.piped, apply.piped) == (False, True)
    assert "ConfigMap" in apply.pipeline and apply.pipeline == get.pipeline
    assert get.objects == [("secrets", "", "s")] and get.flag("output") == "yaml"


def test_separate_commands_are_separate_pipelines() -> None:
    first, second = parse_command_line("kubectl get pods && kubectl delete pod x -n app").parts
    assert isinstance(first, KubectlCall) and isinstance(second, KubectlCall)
    assert not second.piped and first.pipeline != second.pipeline


def test_substitution_is_read_as_a_command_of_its_own() -> None:
    script = parse_command_line("kubectl delete pod $(kubectl get pods -o name -n app) -n app")
    inner, delete = script.parts
    assert isinstance(inner, Script) and isinstance(delete, KubectlCall)
    assert [c.verb for c in calls(inner)] == ["get"]
    # the name is computed at run time: it stays as written, not as an object name to count
    assert delete.args == ["pod", "$(kubectl get pods -o name -n app)"]
    assert [c.verb for c in calls(parse_command_line("echo `kubectl delete ns a`"))] == ["delete"]


def test_single_quotes_keep_a_substitution_as_text() -> None:
    script = parse_command_line("echo '$(kubectl delete ns prod)'")
    assert script.parts == [Command(["echo", "$(kubectl delete ns prod)"])]


def test_quoted_hash_is_not_a_comment() -> None:
    (call,) = parse_command_line(
        "kubectl get pods --field-selector='metadata.name=a#b' # kubectl delete ns prod"
    ).parts
    assert isinstance(call, KubectlCall)
    assert call.flag("field-selector") == "metadata.name=a#b"
    script = parse_command_line('echo "#"; kubectl delete ns app')
    assert [c.verb for c in calls(script)] == ["delete"]
    assert not calls(parse_command_line("# kubectl delete ns app"))


def test_wrappers_and_nested_shells_are_looked_through() -> None:
    script = parse_command_line(
        "sudo -u root timeout 30 bash -c 'kubectl drain n1' && eval k cordon n2"
    )
    assert [(c.verb, c.objects) for c in calls(script)] == [
        ("drain", [("nodes", None, "n1")]),
        ("cordon", [("nodes", None, "n2")]),
    ]


def test_other_commands() -> None:
    helm, curl, ls = parse_command_line(
        "helm uninstall r -n prod; curl -X DELETE https://h/api/v1/namespaces/dev/pods/x; ls"
    ).parts
    assert helm == Command(["helm", "uninstall", "r", "-n", "prod"], "destroy", ["prod"])
    assert isinstance(curl, Command) and (curl.operation, curl.namespaces) == ("destroy", ["dev"])
    assert ls == Command(["ls"])
