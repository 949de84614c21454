"""A real script's `wget` to the cluster's API (`https://kubernetes.default.svc/...`), sent
for real to the embedded apiserver with the script's own headers — its own ServiceAccount
token, never a credential of the node simulator's — so RBAC answers as on a real cluster.

Which requests: a wget (netbridge.py's shim) whose URL names the `default/kubernetes`
Service on its port — by a name the pod's resolver turns into it (`kubernetes` from the
default namespace, `kubernetes.default`, `kubernetes.default.svc[.cluster.local]`) or by its
ClusterIP, which the kubelet passes as `$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT`
(pkg/kubelet/envvars/envvars.go, servicelinks.py). netsim decides whether the pod gets
there: its DNS as for any name, then its egress policy towards the apiserver's endpoint
(the Service's EndpointSlice address and port, as a CNI sees the packet after kube-proxy's
DNAT). The token is what the kubelet's projected volume holds (tokens.py).

What the script sees is busybox wget's (networking/wget.c, 1.36, download_one_url and
wget_main): the request `GET /PATH HTTP/1.1` with `Host`, `User-Agent: Wget` (each unless a
`--header` starting `Host:`/`User-Agent:` replaces it), `Connection: close` and the
script's `--header`s as written, `POST` with `--post-data` (and its `Content-Type:
application/x-www-form-urlencoded`); `Connecting to HOST (IP:PORT)` first unless -q, with
the address the client connected to (the ClusterIP: kube-proxy's DNAT is invisible to it);
on 200-204 the body (netbridge.py writes it to stdout or to -O FILE), on another status
`wget: server returned error: <status line>` and exit 1 (the `default:` case after the
status line). busybox's internal TLS checks no certificate and says so on stderr unless
`--no-check-certificate` (spawn_ssl_client: "note: TLS certificate validation not
implemented"), so the node simulator verifies none either. Bodies are kept to MAX_BODY."""

import http.client
import ssl
from dataclasses import dataclass, field

from kubeproof.cluster.audit import WORKLOAD_SOURCE
from kubeproof.netsim import dns, policy
from kubeproof.netsim.connect import Network
from kubeproof.netsim.objects import Pod
from kubeproof.netsim.services import service_port

MAX_BODY = 4 << 20  # bytes of an answer kept (it is written into the container's quota)
MAX_SECONDS = 20.0  # a request to the apiserver is given up after this (wget's -T if less)
API_SERVICE = "default/kubernetes"
# busybox wget's options (wget_main: getopt32 "cqSO:o:P:Y:U:T:+t:n::" and wget_longopts)
SHORT_FLAGS = set("cqS")
SHORT_VALUED = set("OoPYUTt")
LONG = {
    "continue": "c",
    "quiet": "q",
    "server-response": "S",
    "output-document": "O",
    "output-file": "o",
    "directory-prefix": "P",
    "proxy": "Y",
    "user-agent": "U",
    "timeout": "T",
    "tries": "t",
    "header": "header",
    "post-data": "post-data",
    "spider": "spider",
    "no-check-certificate": "no-check-certificate",
    # accepted and ignored (IF_DESKTOP "\xf0")
    "passive-ftp": "",
    "no-cache": "",
    "no-verbose": "",
    "no-clobber": "",
    "no-host-directories": "",
    "no-parent": "",
}
LONG_VALUED = {"O", "o", "P", "Y", "U", "T", "t", "header", "post-data"}


@dataclass
class Call:
    """A wget command line as busybox reads it (what the API request needs of it)."""

    urls: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    quiet: bool = False
    user_agent: str = "Wget"
    timeout: float = 900.0  # wget_main: G.timeout_seconds = 900
    post_data: str | None = None
    check_certificate: bool = True


def parse(args: list[str]) -> Call | None:
    """The options after `wget`; None where busybox would refuse them (usage) — netsim's
    own answer (shell.py) then stands."""
    call, words = Call(), iter(args)
    for word in words:
        if word == "--":
            call.urls += list(words)
            break
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            key = LONG.get(name)
            if key is None:
                return None
            if key in LONG_VALUED and not eq:
                given = next(words, None)
                if given is None:
                    return None
                value = given
            _set(call, key, value)
            continue
        if word.startswith("-") and word != "-":
            rest = word[1:]
            while rest:
                letter, rest = rest[0], rest[1:]
                if letter == "n":  # "n::": -nv, -nc … take the rest of the word
                    break
                if letter in SHORT_VALUED:
                    given = rest or next(words, None)
                    if given is None:
                        return None
                    _set(call, letter, given)
                    break
                if letter not in SHORT_FLAGS:
                    return None
                _set(call, letter, "")
            continue
        call.urls.append(word)
    return call if call.urls else None


def _set(call: Call, key: str, value: str) -> None:
    if key == "q":
        call.quiet = True
    elif key == "U":
        call.user_agent = value
    elif key == "T":  # "T:+": a number (xatou_range would refuse anything else)
        call.timeout = float(value) if value.isdigit() else 900.0
    elif key == "header":
        call.headers.append(value)
    elif key == "post-data":
        call.post_data = value
    elif key == "no-check-certificate":
        call.check_certificate = False


@dataclass
class Route:
    """What netsim says of a request to the API: `answer` set when it does not get there."""

    host: str  # host[:port] as written in the URL: Host: and `Connecting to`
    path: str  # what follows the host, as busybox sends it
    address: str = ""  # the ClusterIP:port the client connects to, for `Connecting to`
    answer: tuple[str, str, int] | None = None


def split_url(url: str) -> tuple[str, str, str] | None:
    """(scheme, host[:port], path) as busybox's parse_url cuts a URL: the path is what
    follows the first `/`, `?` or `#` after the host (sent after `GET /`)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return None
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    return scheme, rest[:cut], rest[cut + 1 :]


def route(net: Network, me: Pod, call: Call) -> Route | None:
    """The API request `call` makes from pod `me`, None if its URL is not the API's (or its
    name does not resolve: netsim's answer says so)."""
    parts = split_url(call.urls[-1])
    if parts is None or parts[0] != "https" or "@" in parts[1]:
        return None
    hostport = parts[1]
    host, colon, port_text = hostport.rpartition(":")
    if not colon:
        host, port_text = hostport, "443"
    if not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        return None
    port = int(port_text)
    answer = dns.resolve(net.objects, host, me.namespace)
    if answer.kind != "ip":
        reach = net.dns(me)
        if not reach.allowed:
            return None  # lookups time out: netsim's `bad address` stands
        answer = dns.resolve(net.objects, host, me.namespace, served=net.served(reach))
    svc = answer.service if answer.kind == "service" else None
    if answer.kind == "ip":
        svc = net.objects.service_by_ip(host)
    if svc is None or _key(svc) != API_SERVICE or service_port(svc, port, "TCP") is None:
        return None
    cluster_ip = (svc.get("spec") or {}).get("clusterIP", "")
    found = Route(hostport, "/" + parts[2], f"{cluster_ip}:{port}")
    if not _egress_allowed(net, me, svc, port):  # dropped: the connect waits out wget's alarm
        found.answer = ("", f"{_connecting(call, found)}wget: download timed out\n", 1)
    return found


def reachable(net: Network, me: Pod, cluster_ip: str, port: int) -> bool:
    """Whether pod `me` gets through to the apiserver behind the `default/kubernetes`
    Service at `cluster_ip:port` (its egress policy towards the Service's endpoint)."""
    svc = net.objects.service_by_ip(cluster_ip)
    if svc is None or _key(svc) != API_SERVICE or service_port(svc, port, "TCP") is None:
        return False
    return _egress_allowed(net, me, svc, port)


def _egress_allowed(net: Network, me: Pod, svc: dict, port: int) -> bool:
    # a CNI sees the packet after kube-proxy's DNAT: the endpoint's address and port
    ip, target = _endpoint(net, svc, port)
    return policy.evaluate(net.objects, "Egress", me, None, ip, target, "TCP", None).allowed


def _key(svc: dict) -> str:
    return f"{svc['metadata'].get('namespace', 'default')}/{svc['metadata']['name']}"


def _endpoint(net: Network, svc: dict, port: int) -> tuple[str, int]:
    """The apiserver's address and port as the Service's EndpointSlice lists them (the
    endpoint reconciler's; the ClusterIP and port when there is none)."""
    for slice_ in net.objects.slices.get(_key(svc)) or []:
        ports = [p.get("port") for p in slice_.get("ports") or [] if p.get("port")]
        for endpoint in slice_.get("endpoints") or []:
            if endpoint.get("addresses") and ports:
                return endpoint["addresses"][0], int(ports[0])
    return (svc.get("spec") or {}).get("clusterIP", ""), port


def _connecting(call: Call, found: Route) -> str:
    # download_one_url: "Connecting to %s (%s)", server.host and the address, unless -q
    return "" if call.quiet else f"Connecting to {found.host} ({found.address})\n"


def request_headers(call: Call, found: Route) -> list[tuple[str, str]]:
    """The header lines busybox wget sends, in its order (download_one_url)."""
    # wget_main: a --header starting "Host:" or "User-Agent:" replaces wget's own
    lines = []
    if not any(h.startswith("Host:") for h in call.headers):
        lines.append(("Host", found.host))
    if not any(h.startswith("User-Agent:") for h in call.headers):
        lines.append(("User-Agent", call.user_agent))
    lines.append(("Connection", "close"))
    for header in call.headers:
        name, _, value = header.partition(":")
        lines.append((name, value.lstrip(" \t")))
    if call.post_data is not None:
        lines.append(("Content-Type", "application/x-www-form-urlencoded"))
        lines.append(("Content-Length", str(len(call.post_data.encode()))))
    return lines


Connect = type[http.client.HTTPConnection]


def perform(
    call: Call, found: Route, server: str, connect: Connect | None = None
) -> tuple[str, str, int]:
    """Send the request to the apiserver at `server` (host:port); what wget prints.
    `connect`: the connection class (HTTPS without verification unless a test says)."""
    if found.answer is not None:
        return found.answer
    note = "wget: note: TLS certificate validation not implemented\n"
    err = _connecting(call, found) + (note if call.check_certificate else "")
    host, _, port = server.rpartition(":")
    timeout = min(call.timeout or MAX_SECONDS, MAX_SECONDS)
    if connect is None:
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        # from the pod network's address, as the pod's own request (cluster/audit.py)
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            host, int(port), timeout=timeout, context=context, source_address=(WORKLOAD_SOURCE, 0)
        )
    else:
        conn = connect(host, int(port), timeout=timeout)
    try:
        method = "POST" if call.post_data is not None else "GET"
        conn.putrequest(method, found.path, skip_host=True, skip_accept_encoding=True)
        for name, value in request_headers(call, found):
            conn.putheader(name, value)
        conn.endheaders(call.post_data.encode() if call.post_data is not None else None)
        response = conn.getresponse()
        body = response.read(MAX_BODY)
        status = f"HTTP/1.{response.version % 10} {response.status} {response.reason}"
    except ValueError:  # a line a server refuses (a header without a name, a newline)
        return "", f"{err}wget: server returned error: HTTP/1.1 400 Bad Request\n", 1
    except TimeoutError:
        return "", f"{err}wget: download timed out\n", 1
    except http.client.HTTPException:  # no status line: fgets_trim_sanitize's error
        return "", f"{err}wget: error getting response\n", 1
    except OSError:
        return "", f"{err}wget: can't connect to remote host: Connection refused\n", 1
    finally:
        conn.close()
    if not 200 <= response.status <= 204:
        return "", f"{err}wget: server returned error: {status}\n", 1
    return body.decode(errors="surrogateescape"), err, 0
