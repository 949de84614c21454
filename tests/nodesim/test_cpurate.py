"""metrics-server's CPU rate of a container that runs for real (cpurate.py), on a fake
clock: scrapes on the resolution's ticks, the rate between the last two, a fresh container's
start as its first point only when it is 10-15 s old at the scrape."""

import pytest

from kubeproof.nodesim.cpurate import FRESH_MIN, RESOLUTION, CpuRate


def test_no_rate_until_two_points_then_the_rate_between_the_last_two():
    rate = CpuRate(started=1000.0)  # 1000 // 15 = tick 66 (990-1005)
    assert not rate.due(1004.9) and rate.due(1005.0)
    rate.scrape(1005.0, 0.2)  # 5 s old: too fresh for its start to count as a point
    assert rate.rate() is None
    assert not rate.due(1019.0) and rate.due(1020.5)
    rate.scrape(1020.5, 3.3)
    assert rate.rate() == pytest.approx(3.1 / 15.5)
    rate.scrape(1035.0, 3.3)  # idle since: the rate follows the last two points only
    assert rate.rate() == 0.0


def test_a_container_between_ten_and_fifteen_seconds_old_is_rated_from_its_start():
    rate = CpuRate(started=993.0)
    rate.scrape(1005.0, 6.0)  # 12 s old, 6 s of CPU: half a core since it started
    assert FRESH_MIN <= 1005.0 - 993.0 < RESOLUTION
    assert rate.rate() == pytest.approx(0.5)


def test_a_lost_scrape_keeps_the_points_it_had():
    rate = CpuRate(started=900.0)
    rate.scrape(915.0, 1.0)
    rate.scrape(930.0, 4.0)
    rate.scrape(945.0, None)  # the counter could not be read
    assert rate.rate() == pytest.approx(0.2)
    assert not rate.due(959.0)  # … and the tick is spent


def test_a_counter_that_went_back_rates_zero_not_negative():
    rate = CpuRate(started=900.0)
    rate.scrape(915.0, 5.0)
    rate.scrape(930.0, 4.0)
    assert rate.rate() == 0.0
