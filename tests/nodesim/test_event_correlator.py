"""client-go's event correlator (k8s.io/client-go v0.36.3 tools/record/events_cache.go) on a
fake clock: counting, aggregation of similar events, the spam filter, event names."""

from kubeproof.nodesim.correlator import Correlator

POD = "kubelet\x00node-1\x00Pod\x00default\x00web\x00uid-1\x00v1"
T0 = 1_700_000_000.0


def send(c: Correlator, message: str, at: float, reason: str = "Unhealthy", kind="Warning"):
    return c.correlate(POD, "web", "spec.containers{app}", kind, reason, message, at)


def test_a_repeat_patches_the_first_event_and_a_new_one_is_named_by_unixnano():
    c = Correlator()
    first = send(c, "Readiness probe failed: 500", T0)
    assert first.create and first.count == 1
    assert first.name == f"web.{int(T0 * 1e9):x}"  # event.go:495 GenerateEventName
    again = send(c, "Readiness probe failed: 500", T0 + 10)
    assert (again.create, again.name, again.count, again.first_at) == (False, first.name, 2, T0)


def test_the_tenth_distinct_message_of_a_reason_becomes_a_combined_event():
    # EC:238-300: 10 local keys within 600 s → "(combined from similar events): MSG"
    c = Correlator()
    outs = [send(c, f"Readiness probe failed: error {i}", T0 + i) for i in range(12)]
    assert all(o.create and not o.message.startswith("(combined") for o in outs[:9])
    combined = outs[9]
    assert combined.create
    assert combined.message == "(combined from similar events): Readiness probe failed: error 9"
    later = outs[10]
    assert (later.create, later.name, later.count) == (False, combined.name, 2)
    assert later.message == "(combined from similar events): Readiness probe failed: error 10"


def test_similar_events_spread_over_more_than_ten_minutes_are_not_combined():
    c = Correlator()
    outs = [send(c, f"error {i}", T0 + i * 601) for i in range(12)]
    assert not any(o.message.startswith("(combined") for o in outs)


def test_the_spam_filter_lets_25_events_through_then_one_per_five_minutes():
    # EC:120-150 with defaultSpamBurst 25, defaultSpamQPS 1/300, per object and type
    c = Correlator()
    outs = [send(c, "Back-off restarting failed container", T0 + i) for i in range(30)]
    assert sum(o is not None for o in outs) == 25
    assert send(c, "Back-off restarting failed container", T0 + 200) is None
    assert send(c, "Back-off restarting failed container", T0 + 330) is not None
    # another type has a bucket of its own
    assert send(c, "Started", T0 + 30, reason="Started", kind="Normal") is not None
