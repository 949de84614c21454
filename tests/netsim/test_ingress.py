"""Ingress semantics (netsim/ingress.py, netsim/http.py): classes, host and path matching
as k8s.io/api networking/v1 types.go defines them and ingress-nginx v1.15.1 implements
them, and the controller's own answers (404, 503, 502/504)."""

import pytest

from kubeproof.netsim import Network, ingress
from kubeproof.netsim.http import nginx_page, request
from kubeproof.nodesim import shell
from tests.netsim.builders import netpol, pod, service

CTRL_IMAGE = "registry.k8s.io/ingress-nginx/controller:v1.15.1"


def ing(name, rules=(), default=None, cls="nginx", ns="shop", created="2026-01-01T00:00:00Z"):
    spec = {"rules": list(rules)}
    if cls:
        spec["ingressClassName"] = cls
    if default:
        spec["defaultBackend"] = {"service": {"name": default, "port": {"number": 80}}}
    meta = {"name": name, "namespace": ns, "uid": name, "creationTimestamp": created}
    return {"kind": "Ingress", "metadata": meta, "spec": spec}


def rule(host, *paths):
    return {
        **({"host": host} if host else {}),
        "http": {
            "paths": [
                {
                    "path": p,
                    "pathType": t,
                    "backend": {"service": {"name": svc, "port": port}},
                }
                for p, t, svc, port in paths
            ]
        },
    }


def klass(name="nginx", controller="k8s.io/ingress-nginx", default=False, created=""):
    meta = {"name": name, "creationTimestamp": created}
    if default:
        meta["annotations"] = {ingress.DEFAULT_CLASS_ANNOTATION: "true"}
    return {"kind": "IngressClass", "metadata": meta, "spec": {"controller": controller}}


def names(backend):
    return backend and f"{backend.service}:{backend.port}"


N80 = {"number": 80}
PATHS = [
    ("/", "Prefix", "root", N80),
    ("/foo", "Prefix", "foo", N80),
    ("/foo/bar", "Prefix", "foobar", N80),
    ("/exact", "Exact", "exact", N80),
    ("/impl", "ImplementationSpecific", "impl", N80),
]


@pytest.mark.parametrize(
    ("path", "want"),
    [
        ("/", "root:80"),
        ("/foo", "foo:80"),
        ("/foo/", "foo:80"),
        ("/foo/baz", "foo:80"),
        ("/foobar", "root:80"),  # element-wise: /foo does not take /foobar
        ("/foo/bar", "foobar:80"),  # longest match
        ("/foo/bar/x", "foobar:80"),
        ("/foo/barbaz", "foo:80"),
        ("/exact", "exact:80"),
        ("/exact/", "root:80"),  # Exact is exact
        ("/impl", "impl:80"),
        ("/implx", "impl:80"),  # ImplementationSpecific: nginx's plain prefix
        ("/FOO", "root:80"),  # case-sensitive
    ],
)
def test_paths(path, want):
    assert names(ingress.route([ing("a", [rule("", *PATHS)])], "x", path)) == want


@pytest.mark.parametrize(
    ("host", "want"),
    [
        ("foo.com", "exact-host:80"),
        ("FOO.com:8080", "exact-host:80"),  # case-insensitive, port ignored
        ("a.foo.com", "wild:80"),
        ("b.a.foo.com", "catch:80"),  # the wildcard covers one label only
        ("bar.com", "catch:80"),
    ],
)
def test_hosts(host, want):
    rules = [
        rule("foo.com", ("/", "Prefix", "exact-host", N80)),
        rule("*.foo.com", ("/", "Prefix", "wild", N80)),
        rule("", ("/", "Prefix", "catch", N80)),
    ]
    assert names(ingress.route([ing("a", rules)], host, "/")) == want


def test_no_rule_is_default_backend_then_404():
    only_foo = [rule("a.com", ("/foo", "Prefix", "foo", N80))]
    assert ingress.route([ing("a", only_foo)], "a.com", "/bar") is None
    with_default = ing("a", only_foo, default="fallback")
    assert names(ingress.route([with_default], "a.com", "/bar")) == "fallback:80"
    # a request for no known host goes to the catch-all server, whose root only an Ingress
    # with a defaultBackend and no rules sets (controller.go:1335-1361)
    assert ingress.route([with_default], "other.com", "/") is None
    catch_all = ing("b", [], default="catch", created="2026-03-01T00:00:00Z")
    assert names(ingress.route([with_default, catch_all], "other.com", "/")) == "catch:80"


def test_older_ingress_wins_a_duplicate_path():
    old = ing("old", [rule("a.com", ("/x", "Exact", "old", N80))], created="2026-01-01T00:00:00Z")
    new = ing("new", [rule("a.com", ("/x", "Exact", "new", N80))], created="2026-02-01T00:00:00Z")
    assert names(ingress.route([new, old], "a.com", "/x")) == "old:80"


@pytest.mark.parametrize(
    ("ingress_obj", "classes", "want"),
    [
        (ing("a"), [klass()], True),
        (ing("a"), [klass(controller="example.com/other")], False),
        (ing("a", cls="missing"), [klass()], False),
        (ing("a", cls=None), [klass()], False),  # no class: ignored without the flag
        (
            ing("a", cls=None)
            | {
                "metadata": {
                    "name": "a",
                    "annotations": {ingress.INGRESS_CLASS_ANNOTATION: "nginx"},
                }
            },
            [],
            True,
        ),
    ],
)
def test_served(ingress_obj, classes, want):
    assert ingress.served(ingress.Controller(), ingress_obj, classes) is want


def test_default_class_admission_picks_the_newest_default():
    classes = [
        klass("old", default=True, created="2026-01-01T00:00:00Z"),
        klass("new", default=True, created="2026-02-01T00:00:00Z"),
        klass("plain"),
    ]
    assert ingress.default_class(classes) == "new"
    admitted = ingress.admit(ing("a", cls=None), classes)
    assert admitted["spec"]["ingressClassName"] == "new"


def test_controller_flags():
    ctl = ingress.Controller.from_args(
        ["/nginx-ingress-controller", "--ingress-class=internal", "--watch-ingress-without-class"]
    )
    assert ctl == ingress.Controller("k8s.io/ingress-nginx", "internal", True)


def _cluster(*extra, backend_ready=True, named=False):
    controller = pod("ingress-nginx/ctl", "10.244.1.5", {"app": "ctl"}, [(80, "http")])
    controller["spec"]["containers"][0]["image"] = CTRL_IMAGE
    return [
        controller,
        service("ingress-nginx/ingress-nginx-controller", {"app": "ctl"}, [80], "10.96.5.5"),
        pod("shop/web-1", "10.244.1.7", {"app": "web"}, [(8080, "http")], ready=backend_ready),
        service(
            "shop/web",
            {"app": "web"},
            [{"name": "http", "port": 80, "targetPort": 8080}],
            "10.96.5.7",
        ),
        pod("shop/client", "10.244.1.9"),
        klass(),
        ing(
            "web",
            [rule("shop.example", ("/", "Prefix", "web", {"name": "http"} if named else N80))],
        ),
        *extra,
    ]


URL = "http://ingress-nginx-controller.ingress-nginx/"


@pytest.mark.parametrize("named", [False, True])
def test_request_routes_to_the_backend(named):
    net = Network.from_objects(_cluster(named=named))
    answer = request(net, "shop/client", URL, host="shop.example")
    assert answer.status == 200 and answer.upstream == "shop/web-1:8080/TCP", answer.explain()


def test_request_without_rule_is_404_with_nginx_page():
    answer = request(Network.from_objects(_cluster()), "shop/client", URL + "x")
    assert answer.status == 404
    assert answer.body == nginx_page(404)
    assert answer.body.startswith("<html>\r\n<head><title>404 Not Found</title></head>")


def test_request_without_ready_endpoints_is_503():
    net = Network.from_objects(_cluster(backend_ready=False))
    answer = request(net, "shop/client", URL, host="shop.example")
    assert answer.status == 503 and "Service Temporarily Unavailable" in answer.body


def test_policy_from_the_controller_pod_applies():
    deny = netpol("shop/deny", {"podSelector": {"matchLabels": {"app": "web"}}})
    answer = request(Network.from_objects(_cluster(deny)), "shop/client", URL, host="shop.example")
    assert answer.status == 504  # proxy_connect_timeout on every try


def test_request_to_a_plain_service_is_the_server_itself():
    answer = request(Network.from_objects(_cluster()), "shop/client", "http://web.shop/")
    assert answer.status == 200 and answer.body is None


def test_the_backend_is_asked_for_the_path_and_its_query():
    net = Network.from_objects(_cluster())
    direct = request(net, "shop/client", "http://web.shop/cgi-bin/write?request_id=7#top")
    routed = request(net, "shop/client", URL + "?page=2", host="shop.example")
    assert direct.path == "/cgi-bin/write?request_id=7"  # a CGI script reads the query
    assert routed.status == 200 and routed.path == "/?page=2"


def _tools(net: Network, me: str) -> shell.Net:
    def get(url, host):
        answer = request(net, me, url, host)
        if answer.status is None:
            return answer.verdict.code, None, None, ""
        return None, answer.status, answer.body, answer.reason

    return shell.Net(lambda w: net.connect(me, w).code, lambda n: net.lookup(me, n), get)


@pytest.mark.parametrize(
    ("argv", "stdout", "stderr", "code"),
    [
        (["wget", "-qO-", "--header", "Host: shop.example", URL], "ok\n", "", 0),
        (["wget", "-qO-", URL, "--header=Host: shop.example"], "ok\n", "", 0),
        (
            ["wget", "-qO-", URL + "nope"],
            "",
            "wget: server returned error: HTTP/1.1 404 Not Found\n",
            1,
        ),
        (
            ["wget", "-O", "-", URL + "nope"],
            "",
            "Connecting to ingress-nginx-controller.ingress-nginx:80\n"
            "wget: server returned error: HTTP/1.1 404 Not Found\n",
            1,
        ),
        (["curl", "-s", URL + "nope"], nginx_page(404), "", 0),
        (["curl", "-sf", URL], "", "curl: (22) The requested URL returned error: 404\n", 22),
        (["curl", "-s", "-H", "Host: shop.example", URL], "ok\n", "", 0),
    ],
)
def test_busybox_wget_and_curl_through_the_controller(argv, stdout, stderr, code):
    result = shell._network(
        argv[0], argv[1:], _tools(Network.from_objects(_cluster()), "shop/client")
    )
    assert (result.stdout, result.stderr, result.code) == (stdout, stderr, code)
