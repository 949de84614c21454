"""The scenario format's `debug` entries (ephemeral containers added while the pod runs):
a container without an image is refused naming its line; a valid one is simulated golden
and judged through `ephemeralContainers` status expectations."""

import pytest

from kubeproof.fidelity.runner import run_golden
from kubeproof.fidelity.scenario import ScenarioError, parse
from kubeproof.nodesim.timing import REAL

SCENARIO = """
scenarios:
  - name: one
    source: pkg/kubelet/kuberuntime/kuberuntime_manager.go:1266-1274
    pod: {spec: {containers: [{name: a, image: "busybox:1.36", command: [sleep, "3600"]}]}}
    debug:
      - {at: 3, container: {name: dbg, image: "busybox:1.36", command: [sleep, "60"]}}
    until: 10
    expect:
      events:
        - {reason: Started, container: dbg, message: Container started}
      status:
        - ephemeralContainers: {dbg: {state: running, ready: false}}
"""


def test_a_debug_container_needs_an_image():
    with pytest.raises(ScenarioError) as caught:
        parse(SCENARIO.replace(', image: "busybox:1.36", command: [sleep, "60"]', ""), "x.yaml")
    (problem,) = caught.value.problems
    assert problem.file == "x.yaml" and problem.line == 7
    assert "needs a name and an image" in problem.message


def test_a_debug_container_is_started_and_judged():
    (scenario,) = parse(SCENARIO, "x.yaml")
    verdict = run_golden(scenario, REAL)
    assert verdict.error is None and verdict.ok, verdict
    assert verdict.matched == 3  # the event, the state and `ready`
