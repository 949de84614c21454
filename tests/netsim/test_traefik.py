"""Traefik's Kubernetes Ingress provider without a cluster (netsim/traefik.py, netsim/http.py):
which Ingresses k3s's Traefik serves, its routers' rules and priorities, host and path
matching, and its own answers (404 page not found, 503 no available server, 502, /ping,
a plain request on the TLS entry point), as traefik v3.7.4 builds and serves them."""

import pytest

from kubeproof.cluster import traefik as addon
from kubeproof.netsim import Network, traefik
from kubeproof.netsim.http import request, traefik_of
from kubeproof.nodesim import shell
from tests.netsim.builders import netpol, pod, service
from tests.netsim.test_ingress import N80, ing, klass, rule

CLASS = klass("traefik", traefik.CONTROLLER_CLASS, default=True)


def ting(*args, **kwargs):
    """An Ingress of class traefik."""
    return ing(*args, **{"cls": "traefik", **kwargs})


URL = "http://traefik.kube-system.svc.cluster.local/"
NGINX = {"kubernetes.io/ingress.class": "nginx"}


def _args() -> list[str]:
    deploy = next(o for o in addon.objects() if o.kind == "Deployment")
    return deploy.spec.template.spec.containers[0].args


CONFIG = traefik.Config.from_args(_args())


def test_the_addon_s_flags_make_its_entry_points():
    assert {p: (e.name, e.tls) for p, e in CONFIG.entry_points.items()} == {
        9100: ("metrics", False),
        8080: ("traefik", False),
        8000: ("web", False),
        8443: ("websecure", True),
    }
    assert CONFIG.allow_empty_services and CONFIG.ping and CONFIG.ingress_class == ""
    # Traefik's own defaults: one `http` entry point on :80, empty services skipped
    bare = traefik.Config.from_args([])
    assert bare.entry_points == {80: traefik.EntryPoint("http", False)}
    assert not bare.allow_empty_services


@pytest.mark.parametrize(
    ("obj", "classes", "want"),
    [
        (ing("a", cls="traefik"), [CLASS], True),
        (ing("a", cls="nginx"), [CLASS, klass()], False),  # another controller's class
        (ing("a", cls="traefik"), [], False),  # a class name with no IngressClass
        (ing("a", cls=None), [CLASS], True),  # no class, no annotation: served
        (ing("a", cls=None) | {"metadata": {"name": "a", "annotations": NGINX}}, [CLASS], False),
    ],
)
def test_served(obj, classes, want):
    assert traefik.served(CONFIG, obj, classes) is want


def _cluster(*extra, ready=True):
    ctl = pod("kube-system/traefik-1", "10.244.1.5", addon.SELECTOR)
    ctl["spec"]["containers"][0] |= {"image": addon.IMAGE, "args": _args()}
    return [
        ctl,
        service(
            "kube-system/traefik",
            addon.SELECTOR,
            [
                {"name": "web", "port": 80, "targetPort": 8000},
                {"name": "websecure", "port": 443, "targetPort": 8443},
            ],
            "10.96.5.5",
        ),
        pod("shop/web-1", "10.244.1.7", {"app": "web"}, [(8080, "http")], ready=ready),
        service("shop/web", {"app": "web"}, [{"name": "http", "port": 80, "targetPort": "http"}]),
        pod("shop/api-1", "10.244.1.8", {"app": "api"}, [(9000, "http")]),
        service("shop/api", {"app": "api"}, [{"port": 80, "targetPort": 9000}], "10.96.5.8"),
        pod("shop/client", "10.244.1.9"),
        CLASS,
        *extra,
    ]


def _routed(*ingresses, host="shop.example", path="/", ready=True):
    net = Network.from_objects(_cluster(*ingresses, ready=ready))
    return request(net, "shop/client", URL.rstrip("/") + path, host=host)


def test_routes_to_the_backend_and_answers_404_for_another_host():
    web = ting("web", [rule("shop.example", ("/", "Prefix", "web", N80))], cls="traefik")
    answer = _routed(web)
    assert answer.status == 200 and answer.upstream == "shop/web-1:8080/TCP", answer.explain()
    assert answer.path == "/"
    other = _routed(web, host="other.example")
    assert (other.status, other.reason, other.body) == (404, "Not Found", "404 page not found\n")


def test_a_missing_service_port_skips_the_router():
    broken = ting("web", [rule("shop.example", ("/", "Prefix", "web", {"number": 8081}))])
    found, skipped = traefik.routers(
        CONFIG, Network.from_objects(_cluster(broken)).objects, [broken]
    )
    assert found == [] and "service port not found" in skipped[0]
    assert _routed(broken).status == 404


def test_no_ready_endpoints_is_503_no_available_server():
    web = ting("web", [rule("shop.example", ("/", "Prefix", "web", N80))])
    answer = _routed(web, ready=False)
    assert (answer.status, answer.reason, answer.body) == (
        503,
        "Service Unavailable",
        "no available server\n",
    )


def test_the_longest_rule_wins_and_prefix_is_character_wise():
    both = ting(
        "both",
        [
            rule(
                "shop.example",
                ("/", "Prefix", "web", N80),
                ("/api", "Prefix", "api", N80),
                ("/exact-match", "Exact", "api", N80),
                ("/ex", "Exact", "api", N80),
            )
        ],
    )
    assert _routed(both, path="/api/v1").upstream == "shop/api-1:9000/TCP"
    assert _routed(both, path="/apix").upstream == "shop/api-1:9000/TCP"  # PathPrefix("/api")
    assert _routed(both, path="/exact-match").upstream == "shop/api-1:9000/TCP"
    assert _routed(both, path="/exact-match/x").upstream == "shop/web-1:8080/TCP"
    # Path("/ex") is shorter than PathPrefix("/"): the catch-all's rule outranks it
    assert _routed(both, path="/ex").upstream == "shop/web-1:8080/TCP"
    found, _ = traefik.routers(CONFIG, Network.from_objects(_cluster()).objects, [both])
    rules = {r.rule: r.priority for r in found}
    assert rules['Host("shop.example") && PathPrefix("/api")'] == 42


def test_hosts_wildcard_and_hostless():
    wild = ting("w", [rule("*.example", ("/", "Prefix", "api", N80))])
    anyhost = ting("any", [rule(None, ("/", "Prefix", "web", N80))])
    assert _routed(wild, anyhost, host="Shop.Example:80").upstream == "shop/api-1:9000/TCP"
    assert _routed(wild, anyhost, host="a.b.example").upstream == "shop/web-1:8080/TCP"
    assert _routed(wild, host="example").status == 404


def test_default_backend_is_the_last_resort():
    default = ting("fallback", default="api")
    web = ting("web", [rule("shop.example", ("/", "Prefix", "web", N80))])
    assert _routed(default, web, host="nothing.example").upstream == "shop/api-1:9000/TCP"
    assert _routed(default, web).upstream == "shop/web-1:8080/TCP"


def test_dropped_upstream_is_504_gateway_timeout():
    web = ting("web", [rule("shop.example", ("/", "Prefix", "web", N80))])
    deny = netpol("shop/deny", {"podSelector": {"matchLabels": {"app": "web"}}})
    answer = _routed(web, deny)
    assert answer.status == 504 and answer.body == "Gateway Timeout"  # dropped: a timeout


def test_internal_entry_point_and_tls_entry_point():
    net = Network.from_objects(_cluster())
    ping = request(net, "shop/client", "http://10.244.1.5:8080/ping")
    assert (ping.status, ping.body) == (200, "OK")
    plain = request(net, "shop/client", "http://traefik.kube-system:443/")
    assert plain.status == 400 and "HTTPS server" in plain.body


def test_traefik_of_knows_the_images():
    ctl = pod("kube-system/t", "10.0.0.1")
    for image in ("traefik:v3.3", "docker.io/library/traefik:3.7.4", addon.IMAGE):
        ctl["spec"]["containers"][0]["image"] = image
        assert traefik_of(type("P", (), {"obj": ctl})()) is not None
    ctl["spec"]["containers"][0]["image"] = "nginx:1.27"
    assert traefik_of(type("P", (), {"obj": ctl})()) is None


def _tools(net, me):
    def get(url, host):
        answer = request(net, me, url, host)
        if answer.status is None:
            return answer.verdict.code, None, None, ""
        return None, answer.status, answer.body, answer.reason

    return shell.Net(lambda w: net.connect(me, w).code, lambda n: net.lookup(me, n), get)


@pytest.mark.parametrize(
    ("argv", "stdout", "stderr", "code"),
    [
        (["wget", "-qO-", "-T", "3", "--header", "Host: shop.example", URL], "ok\n", "", 0),
        (
            ["wget", "-qO-", "-T", "3", "--header", "Host: nope.example", URL],
            "",
            "wget: server returned error: HTTP/1.1 404 Not Found\n",
            1,
        ),
        (["curl", "-s", "-H", "Host: nope.example", URL], "404 page not found\n", "", 0),
    ],
)
def test_busybox_wget_and_curl_through_traefik(argv, stdout, stderr, code):
    web = ting("web", [rule("shop.example", ("/", "Prefix", "web", N80))])
    tools = _tools(Network.from_objects(_cluster(web)), "shop/client")
    result = shell._network(argv[0], argv[1:], tools)
    assert (result.stdout, result.stderr, result.code) == (stdout, stderr, code)


def test_wget_prints_go_s_reason_phrase_for_503():
    web = ting("web", [rule("shop.example", ("/", "Prefix", "web", N80))])
    tools = _tools(Network.from_objects(_cluster(web, ready=False)), "shop/client")
    result = shell._network("wget", ["-qO-", "--header", "Host: shop.example", URL], tools)
    assert result.stderr == "wget: server returned error: HTTP/1.1 503 Service Unavailable\n"


def test_refused_upstream_is_502_bad_gateway():
    bad = service("shop/bad", {"app": "web"}, [{"port": 80, "targetPort": 9999}], "10.96.5.9")
    route = ting("web", [rule("shop.example", ("/", "Prefix", "bad", N80))])
    answer = _routed(route, bad)
    assert (answer.status, answer.reason, answer.body) == (502, "Bad Gateway", "Bad Gateway")
