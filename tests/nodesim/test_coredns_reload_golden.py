"""Golden tests of CoreDNS's reload plugin in the node simulator (nodesim/corefilereload.py)
on a fake clock: when a running CoreDNS re-reads its Corefile and what it logs, line for
line as CoreDNS 1.14.2 (github.com/coredns/coredns@v1.14.2 plugin/reload/reload.go,
setup.go) and the caddy it pins (github.com/coredns/caddy caddy.go) print it. No cluster."""

import pytest

from kubeproof.fidelity.golden import StaticWorld, pod_object, simulate
from kubeproof.netsim import corefile
from kubeproof.nodesim.corefilereload import CorefileReload, go_seconds
from kubeproof.nodesim.timing import FAST, REAL
from tests.netsim.test_cluster_dns import COREFILE

WITH_LOG = COREFILE.replace("    errors\n", "    errors\n    log\n")
MISSPELT = COREFILE.replace("    errors\n", "    erors\n")
UNBALANCED = COREFILE.replace("    loop\n", "    loop }\n")
PARSE_ERROR = "/etc/coredns/Corefile:2 - Error during parsing: Unknown directive 'erors'"
PATH = "/etc/coredns/Corefile"


def sha_line(text: str) -> str:
    return f"[INFO] plugin/reload: Running configuration SHA512 = {corefile.sha512(text)}"


def run(changes: list[tuple[float, str | None]], until: float, start: str = COREFILE, timing=REAL):
    """A reload loop started at 0 with `start`, the file replaced at the given times."""
    reload = CorefileReload(PATH, start, 0.0, timing, "seed")

    def read(at: float) -> str | None:
        text: str | None = start
        for when, new in changes:
            if when <= at:
                text = new
        return text

    return reload, reload.advance(until, read)


def test_the_period_is_30s_jittered_within_15s_drawn_per_instance():
    # setup.go:35-66,86-89: 30 s + rand.Int63n(15 s) - 7.5 s
    periods = {CorefileReload(PATH, COREFILE, 0.0, REAL, str(i)).interval for i in range(50)}
    assert all(22.5 <= p < 37.5 for p in periods) and len(periods) == 50
    # `reload 10s 4s`: the Corefile's own values; the jitter is capped at half the interval
    custom = COREFILE.replace("    reload\n", "    reload 10s 4s\n")
    assert 8 <= CorefileReload(PATH, custom, 0.0, REAL, "x").interval < 12
    capped = COREFILE.replace("    reload\n", "    reload 4s 1m\n")
    assert 3 <= CorefileReload(PATH, capped, 0.0, REAL, "x").interval < 5
    # the timing profile scales it as every kubelet period
    assert CorefileReload(PATH, COREFILE, 0.0, FAST, "x").interval == pytest.approx(
        CorefileReload(PATH, COREFILE, 0.0, REAL, "x").interval / 10
    )
    assert [go_seconds(t) for t in ("30s", "1m30s", "500ms", "0", "3x")] == [30, 90, 0.5, 0, None]


def test_a_corefile_without_reload_is_never_read_again():
    # reload.go:70-72: the hook does nothing while the plugin is unused
    reload, lines = run([(5, WITH_LOG)], 600, start=COREFILE.replace("    reload\n", ""))
    assert lines == [] and reload.next_at == float("inf")


def test_a_changed_corefile_is_reloaded_at_the_next_tick():
    reload, lines = run([(5, WITH_LOG)], 200)
    tick = lines[0][0]
    assert 22.5 <= tick < 37.5  # the first tick after the change
    # caddy.go:186 Reloading, reload.go:82 the new instance's hook, caddy.go:268
    assert [line for _, line in lines] == [
        "[INFO] Reloading",
        sha_line(WITH_LOG),
        "[INFO] Reloading complete",
    ]
    assert {t for t, _ in lines} == {tick}
    assert reload.loaded == WITH_LOG
    # unchanged since: later ticks say nothing (reload.go:100-101)
    assert reload.advance(1000, lambda at: WITH_LOG) == []


def test_spacing_and_comments_do_not_count_as_a_change():
    # the SHA-512 is of the parsed server blocks (reload.go:55-61,100), not the bytes
    reformatted = COREFILE.replace("    errors\n", "  errors   # log errors\n")
    _, lines = run([(5, reformatted)], 200)
    assert lines == []


def test_a_misspelt_plugin_fails_once_and_the_old_config_keeps_serving():
    reload, lines = run([(5, MISSPELT)], 300)
    # caddy.go:202 logs Restart's bare err; reload.go:115 the wrapped one (caddy.go:250)
    assert [line for _, line in lines] == [
        "[INFO] Reloading",
        f"[ERROR] Restart failed: {PARSE_ERROR}",
        "[ERROR] plugin/reload: Corefile changed but reload failed: "
        f"starting with listener file descriptors: {PARSE_ERROR}",
    ]  # tried once: reload.go:104 keeps the new SHA even though it failed
    assert reload.loaded == COREFILE
    # fixed again: a new SHA, reloaded
    reload, lines = run([(5, MISSPELT), (100, WITH_LOG)], 300)
    assert [line for _, line in lines][3:] == [
        "[INFO] Reloading",
        sha_line(WITH_LOG),
        "[INFO] Reloading complete",
    ]
    assert reload.loaded == WITH_LOG


def test_a_file_that_does_not_parse_warns_at_every_tick():
    # reload.go:95-98: the caddyfile parse (braces; no directive check) fails before the SHA
    reload, lines = run([(5, UNBALANCED)], 200)
    assert len(lines) >= 4
    assert {line for _, line in lines} == {
        "[WARNING] plugin/reload: Corefile parse failed: "
        "/etc/coredns/Corefile:20 - Error during parsing: "
        "Unexpected '}' because no matching opening brace"
    }
    assert reload.loaded == COREFILE
    # a file it cannot read is skipped silently (reload.go:91-94)
    assert run([(5, None)], 200)[1] == []


def test_dropping_reload_from_the_corefile_does_not_stop_reloading():
    # reload.go:107,120: the new instance's hook runs with usage maybeUsed, not unused
    no_reload = WITH_LOG.replace("    reload\n", "")
    reload, lines = run([(5, no_reload), (100, COREFILE)], 300)
    assert [line for _, line in lines].count("[INFO] Reloading complete") == 2
    assert reload.loaded == COREFILE


def coredns_pod() -> dict:
    mount = {"name": "config-volume", "mountPath": "/etc/coredns", "readOnly": True}
    return pod_object(
        {
            "dnsPolicy": "Default",
            "containers": [
                {
                    "name": "coredns",
                    "image": "registry.k8s.io/coredns/coredns:v1.14.2",
                    "args": ["-conf", PATH],
                    "volumeMounts": [mount],
                }
            ],
            "volumes": [
                {
                    "name": "config-volume",
                    "configMap": {
                        "name": "coredns",
                        "items": [{"key": "Corefile", "path": "Corefile"}],
                    },
                }
            ],
        }
    )


def configmap(text: str) -> dict:
    return {"kind": "ConfigMap", "metadata": {"name": "coredns"}, "data": {"Corefile": text}}


def test_the_running_container_reloads_what_its_volume_shows_and_stays_ready():
    # the volume shows the edit from the pod's next sync (pod_workers.go:1531, 60-90 s);
    # the next reload tick after that restarts the servers in place
    trace = simulate(
        coredns_pod(), 200, world=StaticWorld([configmap(COREFILE)]),
        updates=[(5, configmap(WITH_LOG))],
    )  # fmt: skip
    logs = trace.logs["coredns"]
    assert [line for _, line in logs] == [
        ".:53",
        sha_line(COREFILE),
        "CoreDNS-1.14.2",
        "[INFO] Reloading",
        sha_line(WITH_LOG),
        "[INFO] Reloading complete",
    ]
    reloaded_at = logs[3][0]
    assert 60 < reloaded_at < 5 + 90 + 37.5
    # no restart, no event beyond the start, ready throughout once started
    assert [reason for _, _, reason, _ in trace.events][-2:] == ["Created", "Started"]
    after_start = [s for t, s in trace.statuses if t >= 2]
    assert all(s["containerStatuses"][0]["ready"] for s in after_start)
    assert trace.statuses[-1][1]["containerStatuses"][0]["restartCount"] == 0


def test_a_bad_edit_keeps_it_running_until_a_restart_reads_it():
    trace = simulate(
        coredns_pod(), 200, world=StaticWorld([configmap(COREFILE)]),
        updates=[(5, configmap(MISSPELT))],
    )  # fmt: skip
    lines = [line for _, line in trace.logs["coredns"]]
    assert lines[-1].startswith("[ERROR] plugin/reload: Corefile changed but reload failed")
    status = trace.statuses[-1][1]["containerStatuses"][0]
    assert status["ready"] and status["restartCount"] == 0 and "running" in status["state"]
    # a restart parses the current file: CoreDNS exits 1 with the parse error (run.go)
    restarted = simulate(coredns_pod(), 3, world=StaticWorld([configmap(MISSPELT)]))
    assert restarted.logs["coredns"][-1][1] == PARSE_ERROR
