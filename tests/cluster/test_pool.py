import pytest

from kubeproof.cluster.pool import ClusterPool
from kubeproof.cluster.record import all_records

pytestmark = pytest.mark.cluster


def test_pool_hands_out_ready_distinct_clusters_and_stops_the_rest(binaries_built):
    before = {r.name for r in all_records()}
    with ClusterPool(size=1) as pool:
        first = pool.acquire(timeout=120)
        second = pool.acquire(timeout=120)
        assert first.address != second.address
        for cluster in (first, second):
            assert all(s.healthy for s in cluster.status())
            refs = [c.ref() for c in cluster.record.components.values()]
            cluster.stop()
            assert not any(r.alive() for r in refs)
    # the spare started in the background was stopped and removed by close()
    assert {r.name for r in all_records()} == before
    assert not any(w.is_alive() for w in pool._workers)


def test_pool_reports_start_failures_to_the_caller(binaries_built):
    pool = ClusterPool(size=1, address="127.0.88.88", timeout=0.001)
    with pool, pytest.raises(Exception, match="timed out"):
        pool.acquire(timeout=120)
