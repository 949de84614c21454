"""The health watch on a real cluster: an outage of something healthy at baseline is seen
however short it is, and a rolling update of a healthy Deployment is not an outage."""

import threading
import time

import pytest

from kubeproof.verify.safety import health
from kubeproof.verify.watch import HealthWatch
from tests.conftest import wait_for

pytestmark = pytest.mark.cluster

WEB = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx:1.27, ports: [{containerPort: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
"""


@pytest.fixture
def web(sim, ns):
    """A healthy Deployment and Service in a fresh namespace; the baseline health."""
    sim.kubectl("apply", "-n", ns, "-f", "-", input=WEB)
    client = sim.client()
    keys = {f"Deployment/{ns}/web": 2, f"Service/{ns}/web": 2}

    def healthy():
        now = health(client)
        return all(now.get(k) == v for k, v in keys.items()) and now

    wait_for(healthy, timeout=60, what="web healthy")
    return ns, {k: v for k, v in healthy().items() if k in keys}


def _outages(watch, ns):
    return [o for o in watch.snapshot() if f"/{ns}/" in o.key]


def test_a_sub_second_selector_blip_is_an_outage(sim, web):
    ns, baseline = web
    with HealthWatch(sim.admin_kubeconfig, baseline) as watch:
        for selector in ("nope", "web"):
            patch = f'{{"spec": {{"selector": {{"app": "{selector}"}}}}}}'
            sim.kubectl("-n", ns, "patch", "service", "web", "-p", patch)
        wait_for(lambda: _outages(watch, ns) and _outages(watch, ns)[0].end, what="recovery")
    [outage] = _outages(watch, ns)
    assert outage.key == f"Service/{ns}/web" and outage.had == 2 and outage.worst == 0
    assert 0 < outage.duration() < 3 and not outage.ongoing
    assert "no ready endpoints (had 2) for" in outage.describe(watch.started)


def test_a_rolling_update_of_a_healthy_deployment_is_no_outage(sim, web):
    ns, baseline = web
    with HealthWatch(sim.admin_kubeconfig, baseline) as watch:
        sim.kubectl("-n", ns, "set", "env", "deployment/web", "COLOR=blue")
        sim.kubectl("-n", ns, "rollout", "status", "deployment/web", "--timeout=60s")
        time.sleep(1)
    assert watch.events > 0
    assert _outages(watch, ns) == []


def test_a_deleted_service_stays_down_until_the_watch_ends(sim, web):
    ns, baseline = web
    with HealthWatch(sim.admin_kubeconfig, baseline) as watch:
        sim.kubectl("-n", ns, "delete", "service", "web")
        wait_for(lambda: _outages(watch, ns), what="outage")
    [outage] = _outages(watch, ns)
    assert outage.gone and outage.ongoing and outage.end is not None
    # stopped: no thread left behind, and the watch stays stopped
    assert not [t for t in threading.enumerate() if t.name == "health-watch"]
    watch.stop()
    assert "deleted" in outage.describe(watch.started)


def test_allowed_deletions_are_not_watched(sim, web):
    ns, baseline = web
    with HealthWatch(sim.admin_kubeconfig, baseline, (f"Service/{ns}/*",)) as watch:
        sim.kubectl("-n", ns, "delete", "service", "web")
        time.sleep(0.5)
    assert _outages(watch, ns) == []


class TooOld(HealthWatch):
    """Starts the Service watch from a resourceVersion the apiserver no longer has."""

    lied = False

    async def _relist(self, client, kind):
        version = await super()._relist(client, kind)
        if kind == "Service" and not self.lied:
            self.lied = True
            return "1"
        return version


def test_a_watch_that_fell_behind_lists_again_and_says_so(sim, web):
    ns, baseline = web
    with TooOld(sim.admin_kubeconfig, baseline) as watch:
        wait_for(lambda: watch.gaps, what="the 410 and the relist")
        sim.kubectl("-n", ns, "delete", "service", "web")
        wait_for(lambda: _outages(watch, ns), what="the outage after the gap")
    assert [kind for kind, _, _ in watch.gaps] == ["Service"]
    assert [o.key for o in _outages(watch, ns)] == [f"Service/{ns}/web"]


def test_a_deployment_being_scaled_up_is_not_collateral_damage(sim, web):
    """The baseline counts a workload only when fully available; judged afterwards, its
    available replicas count even while an autoscaler (here a scale that cannot be met)
    wants more, so a render farm scaling up is not "0 available"."""
    from kubeproof.verify.safety import collateral

    ns, baseline = web
    quota = "apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: two}\nspec: {hard: {pods: '2'}}"
    sim.kubectl("apply", "-n", ns, "-f", "-", input=quota)
    sim.kubectl("scale", "deployment/web", "--replicas=3", "-n", ns)
    client = sim.client()
    wait_for(lambda: f"Deployment/{ns}/web" not in health(client), what="3 wanted, 2 available")
    assert health(client, whole=False)[f"Deployment/{ns}/web"] == 2
    assert collateral(baseline, health(client, whole=False)) == []
