"""Golden tests, on a fake clock and without a cluster, of the opt-in dependency and API-call
behaviours of the behaviour models: a `log`-mode dependency's attempt and recovery lines,
named-object API calls, and a refusal logged as client-go v0.36.3 logs it."""

import pytest
from pydantic import ValidationError

from kubeproof.nodesim import access, clientlog
from kubeproof.nodesim.catalog import ApiCall, Dependency, ImageModel
from kubeproof.nodesim.dependencies import Attempts, wording

POD = {"metadata": {"namespace": "shop"}, "spec": {"serviceAccountName": "reader"}}
# 2026-11-25 00:12:41.123456 UTC
T0 = 1795565561.123456
USER = "system:serviceaccount:shop:reader"
REFUSED = "dial tcp: lookup db on 10.96.0.10:53: no such host"


def checks(dep: Dependency, outcomes: list[str | None], period: float = 2.0):
    """The kubelet's checks every `period` seconds: (time, line) logged at each."""
    attempts, out = Attempts(), []
    for i, error in enumerate(outcomes):
        now = T0 + i * period
        out += [(round(now - T0, 3), line) for line in attempts.attempt(dep, "db:5432", error, now)]
    return out


def test_log_mode_logs_each_failed_attempt_and_one_recovery_line():
    dep = Dependency(
        env="DATABASE_URL", onFailure="log",
        log="database {target} unreachable: {error}", recovered="connected to {target}",
    )  # fmt: skip
    lines = checks(dep, [None, REFUSED, REFUSED, REFUSED, None, None, REFUSED])
    assert lines == [
        (2.0, f"database db:5432 unreachable: {REFUSED}"),
        (4.0, f"database db:5432 unreachable: {REFUSED}"),
        (6.0, f"database db:5432 unreachable: {REFUSED}"),
        (8.0, "connected to db:5432"),  # once, not at every healthy check
        (12.0, f"database db:5432 unreachable: {REFUSED}"),
    ]


def test_log_mode_retry_seconds_spaces_the_logged_attempts():
    dep = Dependency(env="DB", onFailure="log", retrySeconds=5, recovered="ok")
    lines = checks(dep, [REFUSED] * 6 + [None])
    # checks at 0, 2, 4, 6, 8, 10: the process retries at 0, then 6 (>= 5 s later), then 12
    assert [t for t, _ in lines] == [0.0, 6.0, 12.0]
    assert lines[0][1] == REFUSED  # the default wording is the dial error itself
    assert lines[-1] == (12.0, "ok")


def test_default_wording_and_modes_are_unchanged():
    dep = Dependency(env="DB")
    assert dep.on_failure == "unready" and dep.recovered is None
    assert wording(dep, "db:5432", REFUSED) == REFUSED
    assert ImageModel(apiCalls=[{"verb": "list", "resource": "pods"}]).api_calls[0].log is None
    with pytest.raises(ValidationError):
        Dependency(env="DB", onFailure="retry")


def test_the_default_refusal_line_is_as_before_and_names_a_named_object():
    call = ApiCall(verb="list", resource="pods")
    assert access.forbidden_message(POD, call) == (
        f'failed to list pods: pods is forbidden: User "{USER}" cannot list resource "pods" '
        'in API group "" in the namespace "shop"'
    )
    get = ApiCall(verb="get", resource="configmaps", name="app-settings")
    assert access.forbidden_message(POD, get, "app-settings") == (
        'failed to get configmaps: configmaps "app-settings" is forbidden: User '
        f'"{USER}" cannot get resource "configmaps" in API group "" in the namespace "shop"'
    )


def test_names_expand_from_the_env_as_the_kubelet_expands_references():
    call = ApiCall(verb="get", resource="configmaps", name="$(CONFIG_NAME)-v$(V)")
    assert access.object_name(call, {"CONFIG_NAME": "app-settings", "V": "2"}) == "app-settings-v2"
    # expand.go:15-17: an unknown reference is written back as it was
    assert access.object_name(call, {}) == "$(CONFIG_NAME)-v$(V)"
    assert access.object_name(ApiCall(verb="get", resource="pods"), {}) is None


def test_client_go_error_text_of_a_forbidden_get():
    # apimachinery errors.go:216 `%s %q is forbidden: %v` around responsewriters/errors.go:74
    call = ApiCall(verb="get", resource="configmaps", name="x", log="settings: {error}")
    assert access.forbidden_message(POD, call, "app-settings", T0) == (
        'settings: configmaps "app-settings" is forbidden: User '
        f'"{USER}" cannot get resource "configmaps" in API group "" in the namespace "shop"'
    )


def test_reflector_line_of_a_refused_named_list():
    call = ApiCall(verb="list", resource="configmaps", name="app-settings", log="reflector")
    assert access.forbidden_message(POD, call, "app-settings", T0) == (
        'E1125 00:12:41.123456       1 reflector.go:227] "Failed to watch" '
        'err="failed to list *v1.ConfigMap: configmaps \\"app-settings\\" is forbidden: '
        f'User \\"{USER}\\" cannot list resource \\"configmaps\\" in API group \\"\\" in '
        'the namespace \\"shop\\"" logger="UnhandledError" '
        'reflector="pkg/mod/k8s.io/client-go@v0.36.3/informers/factory.go:177" '
        'type="*v1.ConfigMap"'
    )


def test_reflector_line_of_a_refused_cluster_wide_watch_of_a_grouped_resource():
    call = ApiCall(
        verb="watch", resource="endpointslices", group="discovery.k8s.io", namespace="",
        log="reflector",
    )  # fmt: skip
    line = access.forbidden_message(POD, call, None, T0)
    # a watch's error is returned as is (reflector.go:605-616); GroupResource.String()
    assert line.startswith(
        'E1125 00:12:41.123456       1 reflector.go:227] "Failed to watch" '
        'err="endpointslices.discovery.k8s.io is forbidden: '
    )
    assert line.endswith(
        'in API group \\"discovery.k8s.io\\" at the cluster scope" logger="UnhandledError" '
        'reflector="pkg/mod/k8s.io/client-go@v0.36.3/informers/factory.go:177" '
        'type="*v1.EndpointSlice"'
    )


def test_a_refusal_keeps_the_time_of_its_first_line_while_it_lasts():
    call = ApiCall(verb="list", resource="configmaps", log="reflector")
    first = access.refusal(None, POD, call, None, T0)
    assert access.refusal(first, POD, call, None, T0 + 2) is first
    other = ApiCall(verb="watch", resource="configmaps", log="reflector")
    assert access.refusal(first, POD, other, None, T0 + 4).startswith("E1125 00:12:45.123456")


def test_reflector_log_is_only_for_list_and_watch():
    with pytest.raises(ValidationError):
        ApiCall(verb="get", resource="configmaps", log="reflector")


def test_go_quote_follows_strconv_quote():
    assert clientlog.go_quote('a "b" \\ c\n') == '"a \\"b\\" \\\\ c\\n"'
