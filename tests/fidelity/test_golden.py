"""Every fidelity scenario in golden mode: the node simulator on a fake clock against what a
v1.36.3 kubelet shows, each scenario citing the upstream line it follows. A scenario marked
`known` records a difference of the simulator from upstream: it must still differ (so a
fix is noticed and the mark removed)."""

import pytest

from kubeproof.fidelity.runner import run_golden
from kubeproof.fidelity.scenario import SOURCE, load
from kubeproof.nodesim.timing import FAST

SCENARIOS = load()
GOLDEN = [s for s in SCENARIOS if s.golden]


def test_the_suite_is_large_enough_and_every_scenario_cites_its_source():
    assert len(SCENARIOS) >= 60
    for s in SCENARIOS:
        assert all(SOURCE.match(source) for source in s.sources()), s.name


@pytest.mark.parametrize("scenario", GOLDEN, ids=lambda s: s.name)
def test_golden(scenario):
    result = run_golden(scenario)
    assert result.error is None, result.error
    differing = [f"{c.what}: expected {c.expected!r}, observed {c.observed!r}"
                 for c in result.checks if not c.matched]  # fmt: skip
    if scenario.known:
        assert differing, f"{scenario.name} now matches upstream: remove its `known` mark"
    else:
        assert not differing, "\n".join(differing)
    assert result.total > 0


def test_a_live_only_scenario_is_skipped_in_golden_mode_not_passed():
    live_only = [s for s in SCENARIOS if not s.golden]
    assert live_only, "the suite has live-only scenarios (RBAC needs the apiserver)"
    for scenario in live_only:
        result = run_golden(scenario)
        assert result.skipped and result.total == 0


def test_the_fast_profile_scales_the_placeholders_of_durations():
    # {d:10} is the back-off of the profile: 1s under fast
    (scenario,) = [s for s in SCENARIOS if s.name == "crashloop-first-restart-immediate"]
    result = run_golden(scenario, FAST)
    message = next(c for c in result.checks if c.what.endswith("containers.app.message"))
    assert message.expected.startswith("back-off 1s restarting")
