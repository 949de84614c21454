"""A check that trips over an object the agent wrote is a failed check, not a trial
`error` (errors are retried, so an agent could launder a bad trial into a fresh one); a
failure of the cluster or the harness still raises."""

import httpx
import pytest
from lightkube import ApiError

from kubeproof.errors import KubeproofError
from kubeproof.verify import Result, check
from kubeproof.verify.baseline import Baseline
from kubeproof.verify.verifier import once

AGENT_OBJECT = {"spec": {"containers": "not-a-list"}}  # a shape no check expects


@check
def first_container_named(ctx, want: str) -> Result:
    name = AGENT_OBJECT["spec"]["containers"][0]["name"]  # TypeError on the odd shape
    return Result("first_container_named", name == want, name)


@check
def apiserver_down(ctx) -> Result:
    raise httpx.ConnectError("connection refused")


def _api_error(code: int) -> ApiError:
    response = httpx.Response(
        code,
        json={"kind": "Status", "code": code, "message": "boom"},
        request=httpx.Request("GET", "http://x"),
    )
    return ApiError(response=response)


@check
def apiserver_500(ctx) -> Result:
    raise _api_error(500)


@check
def forbidden_404(ctx) -> Result:
    raise _api_error(404)


def verify_odd_shape(v):
    v.first_container_named("app")


def verify_body_trips(v):
    v.first_container_named("app")
    {}["missing"]  # the verifier's own code, outside any check


def verify_harness_down(v):
    v.apiserver_down()


def verify_apiserver_500(v):
    v.apiserver_500()


def verify_not_found(v):
    v.forbidden_404()


def test_a_check_tripping_over_an_agent_object_fails_it():
    results = once(verify_odd_shape, None, Baseline())
    assert [(r.name, r.passed, r.kind) for r in results] == [
        ("first_container_named", False, "check")
    ]
    assert results[0].reason.startswith("could not judge: TypeError:")
    assert "test_unjudgeable.py:" in results[0].reason


def test_the_verify_body_tripping_is_a_failed_check_too():
    results = once(verify_body_trips, None, Baseline())
    assert [(r.name, r.passed) for r in results] == [
        ("first_container_named", False),
        ("verify_body_trips", False),
    ]
    assert "KeyError" in results[1].reason


def test_an_api_error_about_the_object_is_judged():
    (result,) = once(verify_not_found, None, Baseline())
    assert not result.passed and "ApiError" in result.reason


@pytest.mark.parametrize("fn", [verify_harness_down, verify_apiserver_500])
def test_a_cluster_failure_still_raises(fn):
    with pytest.raises((httpx.TransportError, ApiError)):
        once(fn, None, Baseline())


def test_harness_errors_are_not_swallowed():
    def verify(v):
        raise KubeproofError("verifier file is broken")

    with pytest.raises(KubeproofError):
        once(verify, None, Baseline())
