"""Judging what a run showed against a scenario's expectations, the same way in golden and
live mode: each expected observable (an event, a status field, the deletion time) is
matched or not; the share matched is the figure issue 15 tracks.

Golden times are exact (to the millisecond); live times are in a window of ±(2 s + 20 %)
around the expected time scaled by the timing profile (event timestamps have one-second
precision, and a cluster is not a fake clock)."""

import re
from dataclasses import asdict, dataclass, field

from kubeproof.fidelity.scenario import (
    PLACEHOLDER,
    ConditionExpect,
    ContainerExpect,
    EventExpect,
    Scenario,
    StatusExpect,
    Text,
)
from kubeproof.nodesim.timing import Timing, go_duration

LIVE_SLACK_SECONDS = 2.0
LIVE_SLACK_SHARE = 0.2


def live_slack(seconds: float) -> float:
    """How far a live time may be from the expected one."""
    return LIVE_SLACK_SECONDS + LIVE_SLACK_SHARE * seconds


@dataclass
class ObservedEvent:
    at: float  # first occurrence, seconds from the pod's start
    type: str
    reason: str
    message: str
    field_path: str | None
    count: int = 1


@dataclass
class Observed:
    """A run's raw material, whichever mode produced it."""

    events: list[ObservedEvent]
    statuses: list[tuple[float, dict]]  # (seconds from start, status) as it changed
    gone_at: float | None
    values: dict[str, str]  # placeholder values: pod, namespace, uid, podIP
    logs: dict[str, list[str]] = field(default_factory=dict)  # container -> its log lines


def fold(events: list[tuple[float, str, str, str, str | None]]) -> list[ObservedEvent]:
    """Identical events folded into one with a count, as the API shows them
    (k8s.io/client-go/tools/record/events_cache.go)."""
    folded: dict[tuple, ObservedEvent] = {}
    for at, kind, reason, message, path in events:
        key = (kind, reason, message, path)
        if key in folded:
            folded[key].count += 1
        else:
            folded[key] = ObservedEvent(at, kind, reason, message, path)
    return sorted(folded.values(), key=lambda e: e.at)


@dataclass
class Check:
    what: str  # e.g. `event[2] Warning BackOff`, `status@end containers.app.reason`
    expected: object
    observed: object
    matched: bool


@dataclass
class Result:
    scenario: str
    source: str
    mode: str
    checks: list[Check] = field(default_factory=list)
    error: str | None = None  # the run itself failed (live: the cluster refused something)
    skipped: str | None = None  # not run in this mode, and why
    known: str | None = None  # the scenario's known simulator difference

    @property
    def matched(self) -> int:
        return sum(c.matched for c in self.checks)

    @property
    def total(self) -> int:
        return len(self.checks)

    @property
    def ok(self) -> bool:
        return self.error is None and self.matched == self.total

    def to_json(self) -> dict:
        return {
            "scenario": self.scenario,
            "source": self.source,
            "mode": self.mode,
            "matched": self.matched,
            "total": self.total,
            "ok": self.ok,
            "error": self.error,
            "skipped": self.skipped,
            "known": self.known,
            "checks": [asdict(c) for c in self.checks],
        }


class Judge:
    def __init__(self, scenario: Scenario, observed: Observed, live: bool, timing: Timing):
        self.s = scenario
        self.o = observed
        self.live = live
        self.timing = timing
        self.checks: list[Check] = []

    # -- helpers ----------------------------------------------------------------------
    def fill(self, text: str, regex: bool = False) -> str:
        def value(m: re.Match) -> str:
            key = m.group(1)
            v = (
                go_duration(self.timing(float(key[2:])))
                if key.startswith("d:")
                else self.o.values.get(key, m.group(0))
            )
            return re.escape(v) if regex else v

        return PLACEHOLDER.sub(value, text)

    def text_ok(self, want: Text, got: str | None) -> bool:
        if want.message is not None:
            return got == self.fill(want.message)
        if want.match is not None:
            return got is not None and re.fullmatch(self.fill(want.match, True), got) is not None
        return True

    def text_expected(self, want: Text) -> str | None:
        if want.message is not None:
            return self.fill(want.message)
        if want.match is not None:
            return f"/{self.fill(want.match, True)}/"
        return None

    def when(self, seconds: float) -> float:
        return self.timing(seconds)

    def slack(self, seconds: float) -> float:
        return live_slack(seconds) if self.live else 0.0005

    def time_ok(self, want: float, got: float | None) -> bool:
        return got is not None and abs(got - want) <= self.slack(want)

    def add(self, what: str, expected, observed, matched: bool) -> None:
        self.checks.append(Check(what, expected, observed, bool(matched)))

    # -- events -----------------------------------------------------------------------
    def event_matches(self, want: EventExpect, e: ObservedEvent) -> bool:
        if want.reason != e.reason or (want.type and want.type != e.type):
            return False
        if want.container is not None and not (e.field_path or "").endswith(
            f"{{{want.container}}}"
        ):
            return False
        return self.text_ok(want, e.message)

    @staticmethod
    def describe(want: EventExpect) -> str:
        who = f" {{{want.container}}}" if want.container else ""
        return f"{want.type or '*'} {want.reason}{who}"

    def events(self) -> None:
        events = self.o.events
        last_at, last_index = -1.0, -1
        found: list[ObservedEvent | None] = []
        for i, want in enumerate(self.s.expect.events):
            label = f"event[{i}] {self.describe(want)}"
            hit = None
            for j, e in enumerate(events):
                if e in found or not self.event_matches(want, e):
                    continue
                # in order: after the previous match (live: timestamps have 1 s precision,
                # so events in the same second may be listed in any order)
                if (self.live and e.at + 1.0 >= last_at) or (not self.live and j > last_index):
                    hit = e
                    last_at, last_index = e.at, j
                    break
            found.append(hit)
            close = hit or next((e for e in events if e.reason == want.reason), None)
            observed = f"{close.type} {close.reason}: {close.message}" if close else None
            if hit is None and close is not None:
                observed = f"{observed} (not in order or not matching)"
            expected = f"{want.type or '*'} {want.reason}: {self.text_expected(want) or '*'}"
            self.add(label, expected, observed, hit is not None)
            if hit is None:
                continue
            if want.at is not None:
                base = 0.0
                if want.after is not None:
                    earlier = found[want.after]
                    base = earlier.at if earlier else float("nan")
                target = self.when(want.at)
                got = round(hit.at - base, 3)
                self.add(f"{label} at", target, got, self.time_ok(target, got))
            if want.count is not None:
                count = sum(e.count for e in events if self.event_matches(want, e))
                self.add(f"{label} count", f">= {want.count}", count, count >= want.count)
        for i, want in enumerate(self.s.expect.absent):
            bad = [e for e in events if self.event_matches(want, e)]
            self.add(
                f"absent[{i}] {self.describe(want)}",
                "no such event",
                f"{bad[0].type} {bad[0].reason}: {bad[0].message}" if bad else None,
                not bad,
            )

    # -- statuses ---------------------------------------------------------------------
    def fields(self, want: StatusExpect, status: dict) -> list[tuple[str, object, object, bool]]:
        """(field, expected, observed, matched) for each field the expectation names."""
        out = []
        for key in ("phase", "reason", "message"):
            wanted = getattr(want, key)
            if wanted is not None:
                wanted = self.fill(wanted)
                out.append((key, wanted, status.get(key), status.get(key) == wanted))
        for group, wants, key in (
            ("containers", want.containers, "containerStatuses"),
            ("initContainers", want.init_containers, "initContainerStatuses"),
            ("ephemeralContainers", want.ephemeral_containers, "ephemeralContainerStatuses"),
        ):
            listed = {c.get("name"): c for c in status.get(key) or []}
            for name, w in wants.items():
                out += [
                    (f"{group}.{name}.{f}", e, g, ok)
                    for f, e, g, ok in self.container(w, listed.get(name))
                ]
        conditions = {c.get("type"): c for c in status.get("conditions") or []}
        for kind, w in want.conditions.items():
            out += [
                (f"conditions.{kind}.{f}", e, g, ok)
                for f, e, g, ok in self.condition(w, conditions.get(kind))
            ]
        return out

    def container(self, want: ContainerExpect, got: dict | None):
        got = got or {}
        state = got.get("state") or {}
        kind = next(iter(state), None)
        detail = state.get(kind) or {}
        last = got.get("lastState") or {}
        last_kind = next(iter(last), None)
        pairs = [
            ("state", want.state, kind),
            ("reason", want.reason, detail.get("reason")),
            ("exitCode", want.exit_code, detail.get("exitCode")),
            ("restartCount", want.restart_count, got.get("restartCount")),
            ("ready", want.ready, got.get("ready")),
            ("started", want.started, got.get("started")),
            ("lastState", want.last_state, last_kind),
            ("lastReason", want.last_reason, (last.get(last_kind) or {}).get("reason")),
            ("lastExitCode", want.last_exit_code, (last.get(last_kind) or {}).get("exitCode")),
        ]
        out = [(f, e, g, e == g) for f, e, g in pairs if e is not None]
        if want.message is not None or want.match is not None:
            message = detail.get("message")
            out.append(("message", self.text_expected(want), message, self.text_ok(want, message)))
        return out

    def condition(self, want: ConditionExpect, got: dict | None):
        if want.absent:
            return [("absent", True, got is None, got is None)]
        got = got or {}
        out = [
            (f, e, got.get(f), e == got.get(f))
            for f, e in (("status", want.status), ("reason", want.reason))
            if e is not None
        ]
        if want.message is not None or want.match is not None:
            message = got.get("message")
            out.append(("message", self.text_expected(want), message, self.text_ok(want, message)))
        return out

    def status_at(self, t: float) -> dict:
        current: dict = {}
        for at, status in self.o.statuses:
            if at > t + 1e-9:
                break
            current = status
        return current

    def statuses(self) -> None:
        end = self.when(self.s.until)
        for i, want in enumerate(self.s.expect.status):
            label = f"status@{'end' if want.at is None else f'{want.at:g}s'}"
            t = end if want.at is None else self.when(want.at)
            if not self.live:
                snapshots = [self.status_at(t)]
            else:  # live: the window around the time (the end too: a run lasts past it)
                w = self.slack(t)
                snapshots = [self.status_at(t - w)] + [
                    s for at, s in self.o.statuses if t - w < at <= t + w
                ]
            # each field: matched if some status in the window shows it
            per_field: dict[str, list] = {}
            for snapshot in snapshots:
                for f, e, g, ok in self.fields(want, snapshot):
                    entry = per_field.setdefault(f, [e, g, False])
                    if ok and not entry[2]:
                        entry[1], entry[2] = g, True
            for f, (e, g, ok) in per_field.items():
                self.add(f"{label} {f}", e, g, ok)
            del i
        for kind, wanted in (("ever", True), ("never", False)):
            for i, want in enumerate(getattr(self.s.expect, kind)):
                shown = [
                    at for at, s in self.o.statuses if all(ok for *_, ok in self.fields(want, s))
                ]
                names = ", ".join(f"{f}={e}" for f, e, _, _ in self.fields(want, {}))
                self.add(
                    f"{kind}[{i}] {names}",
                    "some status" if wanted else "no status",
                    f"at {shown[0]:g}s" if shown else None,
                    bool(shown) == wanted,
                )

    def gone(self) -> None:
        if self.s.expect.gone_at is None:
            return
        target = self.when(self.s.expect.gone_at)
        got = self.o.gone_at
        self.add("pod removed at", target, got, self.time_ok(target, got))

    def logs(self) -> None:
        """Each container's expected lines, in order, in its log (times not judged: a log
        line carries none unless asked, and CoreDNS's reload ticks are jittered)."""
        position: dict[str, int] = {}
        for i, want in enumerate(self.s.expect.logs):
            lines = self.o.logs.get(want.container, [])
            start = position.get(want.container, 0)
            found = next(
                (j for j in range(start, len(lines)) if self.text_ok(want, lines[j])), None
            )
            expected = self.text_expected(want)
            if found is None:
                self.add(f"log[{i}] {want.container}", expected, None, False)
                continue
            position[want.container] = found + 1
            self.add(f"log[{i}] {want.container}", expected, lines[found], True)

    def run(self) -> list[Check]:
        self.events()
        self.statuses()
        self.gone()
        self.logs()
        return self.checks


def judge(scenario: Scenario, observed: Observed, *, live: bool, timing: Timing) -> Result:
    result = Result(
        scenario.name, scenario.source, "live" if live else "golden", known=scenario.known
    )
    result.checks = Judge(scenario, observed, live, timing).run()
    return result
