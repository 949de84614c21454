"""What client-go's event correlator does to every Event a kubelet records before it reaches
the apiserver (k8s.io/client-go v0.36.3 tools/record/events_cache.go, "EC" below):

- **aggregation** (EC:161-176, 238-300): when one object's events of one type and reason
  have shown 10 different messages within 10 minutes, the next new message becomes a new
  Event `(combined from similar events): MSG`, updated in place from then on;
- **counting** (EC:323-365): an Event identical to one seen before (same source, object,
  field path, type, reason and message) patches that Event's `count`, `lastTimestamp`
  and `message` instead of creating another;
- **spam filter** (EC:120-150): per source, object and type, a token bucket of 25 events
  refilled at one per 5 minutes; an event past it is dropped, repeats included.

New Events are named `<object name>.<hex of UnixNano>` (k8s.io/client-go/tools/record/
event.go:495 GenerateEventName; EC:280 for an aggregate). Pure and clocked by the caller,
so it is tested without a cluster."""

from collections import OrderedDict
from dataclasses import dataclass, field

AGGREGATE_MAX_EVENTS = 10  # EC:40 defaultAggregateMaxEvents
AGGREGATE_INTERVAL = 600.0  # EC:41 defaultAggregateIntervalInSeconds
SPAM_BURST = 25  # EC:47 defaultSpamBurst
SPAM_QPS = 1.0 / 300.0  # EC:48 defaultSpamQPS
CACHE_ENTRIES = 4096  # EC:36 maxLruCacheEntries
AGGREGATE_PREFIX = "(combined from similar events): "  # EC:185


@dataclass(frozen=True)
class Outgoing:
    """What to send: create `name` with `message`, or patch it to `count`."""

    name: str
    message: str
    count: int
    first_at: float  # the Event's firstTimestamp
    create: bool


@dataclass
class _Bucket:
    """flowcontrol's token bucket, passive (TryAccept)."""

    tokens: float
    at: float


class _Lru(OrderedDict):
    def touch(self, key, value):
        self[key] = value
        self.move_to_end(key)
        while len(self) > CACHE_ENTRIES:
            self.popitem(last=False)


@dataclass
class Correlator:
    """One recorder's correlator (a kubelet has one for all its events)."""

    _spam: _Lru = field(default_factory=_Lru)
    _aggregates: _Lru = field(default_factory=_Lru)  # aggregate key -> (messages, last)
    _seen: _Lru = field(default_factory=_Lru)  # event key -> (name, count, first_at)
    _last_ns: int = 0

    def correlate(
        self, obj_key: str, obj_name: str, field_path: str, kind: str, reason: str,
        message: str, now: float,
    ) -> Outgoing | None:  # fmt: skip
        """`obj_key`: the source and involved object (kind, namespace, name, uid,
        apiVersion); None when the spam filter drops the event."""
        aggregate_key = "\x00".join([obj_key, kind, reason])
        messages, last = self._aggregates.get(aggregate_key, (None, 0.0))
        if messages is None or now - last > AGGREGATE_INTERVAL:
            messages = []
        if message not in messages:
            messages.append(message)
        key = "\x00".join([obj_key, field_path, kind, reason, message])
        if len(messages) >= AGGREGATE_MAX_EVENTS:
            messages.pop(0)  # sets.PopAny: the set never grows past the maximum
            key, message = aggregate_key, AGGREGATE_PREFIX + message
        self._aggregates.touch(aggregate_key, (messages, now))
        name, count, first_at = self._seen.get(key, (None, 0, now))
        create = name is None
        if create:
            name = f"{obj_name}.{self._unix_nano(now):x}"
        outgoing = Outgoing(name, message, count + 1, first_at, create)
        self._seen.touch(key, (name, count + 1, first_at))
        if not self._accept("\x00".join([obj_key, kind]), now):
            return None
        return outgoing

    def forget(self, obj_key: str) -> None:
        """The object is gone: its records go (the LRU would drop them in time)."""
        for cache in (self._spam, self._aggregates, self._seen):
            for key in [k for k in cache if k.startswith(obj_key + "\x00")]:
                del cache[key]

    def _accept(self, spam_key: str, now: float) -> bool:
        bucket = self._spam.get(spam_key) or _Bucket(float(SPAM_BURST), now)
        bucket.tokens = min(float(SPAM_BURST), bucket.tokens + (now - bucket.at) * SPAM_QPS)
        bucket.at = now
        self._spam.touch(spam_key, bucket)
        if bucket.tokens < 1.0:
            return False
        bucket.tokens -= 1.0
        return True

    def _unix_nano(self, now: float) -> int:
        """UnixNano of now, strictly increasing (two events in one nanosecond would
        collide; a real kubelet's clock never repeats)."""
        self._last_ns = max(int(now * 1e9), self._last_ns + 1)
        return self._last_ns
