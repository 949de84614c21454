"""`kubectl exec` answered from the behaviour model: what common commands print inside a
simulated container (its environment, its mounted files), with real exit codes."""

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from kubeproof.nodesim import diskcmd, storage, tarcmd
from kubeproof.nodesim.catalog import ImageModel
from kubeproof.nodesim.container import Container
from kubeproof.nodesim.ncargs import NC_USAGE, parse_nc


@dataclass
class Result:
    stdout: str = ""
    stderr: str = ""
    code: int = 0

    def __add__(self, other: "Result") -> "Result":
        return Result(self.stdout + other.stdout, self.stderr + other.stderr, other.code)


NETWORK = {"wget", "curl", "nc", "nslookup", "dig", "ping", "telnet"}
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass
class Net:
    """What exec's network tools ask of netsim, as seen from the pod."""

    connect: Callable[[str], str | None]  # host:port -> None, or a netsim verdict code
    # name -> ("ok", addresses), ("nxdomain", []) or ("timeout", []): no DNS server answers
    lookup: Callable[[str], tuple[str, list[str]]]
    # GET url with a Host header (None: the URL's) -> (netsim verdict code or None, HTTP
    # status, body, reason phrase); a status other than 200 comes from an ingress
    # controller (netsim/http.py), whose status line's phrase is its own
    http: Callable[[str, str | None], tuple[str | None, int | None, str | None, str]] | None = None


# options of busybox wget and curl that take a value (so it is not read as the URL)
VALUED = {
    "wget": {"-O", "-o", "-P", "-T", "-t", "-U", "-Y", "--header", "--user-agent", "--post-data"},
    "curl": {
        "-H",
        "-o",
        "-X",
        "-d",
        "-m",
        "-w",
        "-A",
        "-u",
        "--header",
        "--max-time",
        "--connect-timeout",
        "--data",
        "--request",
        "--output",
        "--write-out",
    },
}


def _http_args(name: str, args: list[str]) -> tuple[list[str], str | None, set[str]]:
    """(URLs, the Host header given, flags) of a wget or curl command line."""
    urls, host, flags = [], None, set()
    words = iter(args)
    for word in words:
        option, eq, value = word.partition("=")
        if word.startswith("--") and eq:
            pass
        elif word in VALUED[name]:
            option, value = word, next(words, "")
        elif word.startswith("-") and len(word) > 2 and word[:2] in VALUED[name]:
            option, value = word[:2], word[2:]  # -H'Host: x'
        elif word.startswith("-") and word != "-":
            flags |= {word} | {f"-{c}" for c in word[1:] if not word.startswith("--")}
            continue
        elif word != "-":  # `-O -`'s value when -O came bundled (-qO -)
            urls.append(word)
            continue
        else:
            continue
        if option in ("-H", "--header") and value.lower().startswith("host:"):
            host = value.split(":", 1)[1].strip()
    return urls, host, flags


def environment(
    container: Container, hostname: str, model: ImageModel | None = None
) -> dict[str, str]:
    """The image's PATH and HOME, HOSTNAME from the sandbox (`hostname` is the pod's, see
    etcfiles.hostname_and_domain), the image's other ENV, then what the kubelet passes: the
    container's env and the service variables (config.resolve_env)."""
    image_env = model.env if model else {}
    base = {
        "PATH": image_env.get("PATH", DEFAULT_PATH),
        "HOSTNAME": hostname,
        "HOME": "/root",
    }
    return base | image_env | container.env


def run(
    argv: list[str],
    container: Container,
    hostname: str,
    net: Net | None = None,
    model: ImageModel | None = None,
    timeout: float | None = None,
    stdin: bytes | None = None,
) -> Result:
    """`kubectl exec` of argv in the container; `model` is its image's behaviour model (ENV,
    WORKDIR), `stdin` what `exec -i` sent (None: no stdin). In a container whose script runs
    for real, a command given a `timeout` (an exec probe's, `kubectl exec`'s) runs for real
    in its sandbox (realshell.py); exec hooks are still read by the simulated shell (they
    would block the node's loop)."""
    if not argv:
        return Result(stderr="error: you must specify at least one command\n", code=1)
    live = container.live
    real = live is not None and live.alive and timeout is not None
    if real and net is not None and _uses_network(argv):
        real = False  # netsim answers network tools; the sandbox has no network
    if real and container.owner is not None:
        from kubeproof.nodesim.realshell import exec_in, probe_output

        owner = container.owner
        done = exec_in(live, container.runner, container, owner, argv, model, timeout, stdin)
        if done.timed_out:
            return Result(stderr=probe_output(done, argv, timeout), code=-1)
        return Result(done.stdout, done.stderr, done.code)
    text = stdin.decode(errors="surrogateescape") if stdin is not None else None
    if argv[0] in ("sh", "bash", "/bin/sh", "/bin/bash") and len(argv) >= 3 and argv[1] == "-c":
        return _script(argv[2], container, hostname, net, model)
    if argv[0] in ("sh", "bash", "/bin/sh", "/bin/bash") and len(argv) == 1 and text:
        return _script(
            text.replace("\n", ";"), container, hostname, net, model
        )  # a script piped in
    if argv[0].rsplit("/", 1)[-1] == "tar" and tarcmd.has_tar(model):
        return _tar(argv[1:], container, model, stdin)
    return _command(argv, container, hostname, net, model, text)


def _uses_network(argv: list[str]) -> bool:
    """Whether a command runs a network tool (itself, or as a word of its `sh -c` script)."""
    words = [argv[0].rsplit("/", 1)[-1]]
    if len(argv) >= 3 and argv[1] == "-c":
        words += [w.rsplit("/", 1)[-1] for w in re.split(r"[\s;&|()`$]+", argv[2])]
    return any(w in NETWORK for w in words)


def _script(
    text: str, container: Container, hostname: str, net: Net | None, model: ImageModel | None
) -> Result:
    result = Result()
    for part in text.split("&&"):
        for statement in part.split(";"):
            try:
                words = shlex.split(statement)
            except ValueError as exc:
                return result + Result(stderr=f"sh: syntax error: {exc}\n", code=2)
            if words and words[0] == "exit":  # the shell's builtin: leave with that status
                code = int(words[1]) if len(words) > 1 and words[1].isdigit() else result.code
                return Result(result.stdout, result.stderr, code)
            if words:
                result = result + _command(words, container, hostname, net, model)
        if result.code != 0:
            break
    return result


def _command(
    argv: list[str],
    container: Container,
    hostname: str,
    net: Net | None,
    model: ImageModel | None,
    stdin: str | None = None,
) -> Result:
    name, args = argv[0].rsplit("/", 1)[-1], argv[1:]
    files = tarcmd.files(container)  # its mounts, then what `kubectl cp` wrote
    if name in ("env", "printenv"):
        env = environment(container, hostname, model)
        if name == "printenv" and args:
            values = [env[a] for a in args if a in env]
            return Result(
                "".join(v + "\n" for v in values), code=0 if len(values) == len(args) else 1
            )
        return Result("".join(f"{k}={v}\n" for k, v in env.items()))
    if name == "cat":
        out, err, code = "", "", 0
        for path in args or ["-"]:
            if path == "-":  # stdin (none without -i: an empty read)
                out += stdin or ""
            elif path in files:
                out += files[path]  # as written: a downward API or token file has no newline
            else:
                err += f"cat: can't open '{path}': No such file or directory\n"
                code = 1
        return Result(out, err, code)
    if name == "ls":
        target = next((a for a in args if not a.startswith("-")), "/").rstrip("/") or "/"
        entries = sorted(
            {p[len(target) + 1 :].split("/")[0] for p in files if p.startswith(target + "/")}
        )
        if not entries and target not in files:
            return Result(stderr=f"ls: {target}: No such file or directory\n", code=1)
        return Result("".join(e + "\n" for e in entries) if entries else target + "\n")
    if name == "echo":
        return Result(" ".join(args) + "\n")
    if name == "hostname":
        return Result(hostname + "\n")
    if name in ("true", ":"):
        return Result()
    if name == "false":
        return Result(code=1)
    if name in ("id", "whoami"):
        return Result("uid=0(root) gid=0(root) groups=0(root)\n" if name == "id" else "root\n")
    if name == "pwd":
        return Result((model.workdir if model else "/") + "\n")
    if name == "test" or name == "[":
        words = [a for a in args if a != "]"]
        path = words[-1] if words else ""
        is_dir = path.rstrip("/") in tarcmd.dirs(container, model) or path == "/"
        if words[:1] == ["-d"]:  # `kubectl cp` asks whether DEST is a directory
            return Result(code=0 if is_dir else 1)
        if words[:1] == ["-f"]:
            return Result(code=0 if path in files else 1)
        return Result(code=0 if path in files or is_dir else 1)
    if name in ("dd", "fallocate") and (fill := diskcmd.parse(argv)):
        return _fill(name, *fill, container)
    if name in NETWORK:
        if net is None:
            return Result(stderr=f"{name}: network unavailable\n", code=1)
        return _network(name, args, net)
    return Result(
        stderr=f"OCI runtime exec failed: exec failed: unable to start container process: "
        f'exec: "{argv[0]}": executable file not found in $PATH: unknown\n',
        code=126,
    )


def _tar(args: list[str], container: Container, model: ImageModel | None, stdin) -> Result:
    """`tar cf - SRC...` and `tar -xmf - [-C DIR]`, the two forms `kubectl cp` runs
    (tarcmd.py); other tar uses are refused as a usage error."""
    words = [a for a in args if a not in ("--no-same-permissions", "--no-same-owner")]
    mode = words[0].lstrip("-") if words else ""
    if mode in ("cf", "cvf") and words[1:2] == ["-"]:
        archive, err, code = tarcmd.create(container, model, words[2:])
        return Result(archive.decode(errors="surrogateescape"), err, code)
    if mode in ("xmf", "xf", "xvf", "xmvf") and words[1:2] == ["-"]:
        rest = words[2:]
        directory = (
            rest[1] if rest[:1] == ["-C"] and len(rest) > 1 else (model.workdir if model else "/")
        )
        err, code = tarcmd.extract(container, model, stdin or b"", directory)
        return Result(stderr=err, code=code)
    return Result(stderr="tar: the simulated tar reads `cf - SRC` and `xmf - -C DIR`\n", code=1)


def _fill(name: str, path: str, size: int, records: int, container: Container) -> Result:
    """dd/fallocate writing `size` bytes to `path`: the bytes count as the pod's local
    storage where the container's mounts put them (storage.py)."""
    pod = container.owner
    now = pod.disk.clock()
    where = storage.target(pod.obj, container.spec, path)
    if where.kind == "read-only":  # busybox xopen: "can't open '%s'" + strerror
        return Result(stderr=f"{name}: can't open '{path}': Read-only file system\n", code=1)
    room = size
    if where.kind == "tmpfs" and where.capacity is not None:
        room = max(where.capacity - storage.usage(pod, now).tmpfs.get(where.volume, 0), 0)
    written, full = min(size, room), room < size
    if name == "fallocate" and full:  # bb_perror_msg_and_die("fallocate"): nothing allocated
        return Result(stderr="fallocate: fallocate: No space left on device\n", code=1)
    pod.disk.write(pod.obj, container, path, written, now)
    if name == "fallocate":
        return Result()
    report = diskcmd.dd_report(written // (size // records) if records else 0, written)
    if full:
        error = f"dd: error writing '{path}': No space left on device\n"
        return Result(stderr=error + report, code=1)
    return Result(stderr=report)


def _url_target(url: str) -> tuple[str, str]:
    """(host, host:port) of a URL or host[:port] as wget and curl take them."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.hostname or "", f"{parts.hostname}:{port}"


def network_tool(argv: list[str], net: Net) -> Result:
    """A network tool's command line (wget, curl, nc, nslookup …) answered by netsim: for
    `kubectl exec` and for a script that runs for real (netbridge.py)."""
    return _network(argv[0].rsplit("/", 1)[-1], argv[1:], net)


def _network(name: str, args: list[str], net: Net) -> Result:
    operands = [a for a in args if not a.startswith("-")]
    if name in ("nslookup", "dig"):
        if not operands:
            return Result(stderr=f"usage: {name} NAME\n", code=1)
        host = operands[0]
        code, answer = net.lookup(host)
        if code == "timeout":
            # busybox nslookup.c: every query timed out, no reply to print a Server: from
            return Result(";; connection timed out; no servers could be reached\n\n", code=1)
        head = "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n"
        if code != "ok":
            return Result(head + f"** server can't find {host}: NXDOMAIN\n", code=1)
        return Result(head + "".join(f"Name:\t{host}\nAddress: {ip}\n" for ip in answer))
    if name == "nc":
        return _nc(args, net)
    if name == "telnet":
        if len(operands) < 2:
            return Result(stderr=f"usage: {name} HOST PORT\n", code=1)
        host, where = operands[0], f"{operands[0]}:{operands[1]}"
        code = net.connect(where)
        if code is None:
            return Result(stderr=f"{host} ({operands[1]}) open\n" if "-v" in " ".join(args) else "")
        if code == "nxdomain":
            return Result(stderr=f"nc: bad address '{host}'\n", code=1)
        return Result(code=1)
    if name == "ping":
        return Result(stderr="ping: permission denied (are you root?)\n", code=1)
    urls, header_host, flags = _http_args(name, args)
    if not urls:
        return Result(stderr=f"{name}: missing URL\n", code=1)
    host, where = _url_target(urls[-1])
    status, body, reason = 200, None, "OK"
    if net.http is not None:
        code, status, body, reason = net.http(urls[-1], header_host)
    else:
        code = net.connect(where)
    if code is None and status != 200:
        return _http_error(name, status or 0, body or "", where, flags, reason)
    if name == "curl":
        if code is None:
            return Result(body if body is not None else "ok\n")
        if code in ("nxdomain", "dns-blocked"):
            return Result(stderr=f"curl: (6) Could not resolve host: {host}\n", code=6)
        if code in ("no-endpoints", "not-listening"):
            port = where.rsplit(":", 1)[1]
            return Result(
                stderr=f"curl: (7) Failed to connect to {host} port {port} after 0 ms: "
                "Couldn't connect to server\n",
                code=7,
            )
        return Result(stderr="curl: (28) Connection timed out after 5001 milliseconds\n", code=28)
    if code is None:
        return Result(body if body is not None else "ok\n")
    if code in ("nxdomain", "dns-blocked"):
        # busybox wget names the URL's host[:port] as written (libbb/xconnect.c str2sockaddr)
        written = urlsplit(urls[-1] if "://" in urls[-1] else f"http://{urls[-1]}").netloc
        return Result(stderr=f"wget: bad address '{written}'\n", code=1)
    if code in ("no-endpoints", "not-listening"):
        return Result(
            stderr=f"Connecting to {where}\nwget: can't connect to remote host: "
            "Connection refused\n",
            code=1,
        )
    return Result(stderr=f"Connecting to {where}\nwget: download timed out\n", code=1)


def _nc(args: list[str], net: Net) -> Result:
    """An outbound `nc [OPTIONS] HOST PORT`: connected, it exits 0 (with -z at once;
    otherwise after the exchange, whose answer is not modelled: nothing is printed);
    refused or dropped, 1, silent unless -v (-vv for a refusal), as nc_main's
    connect_w_timeout branch. A bad option or a missing operand: busybox's usage, 1."""
    operands, verbose, error = parse_nc(args)
    if error is not None:
        return Result(stderr=(f"nc: {error}\n" if error else "") + NC_USAGE, code=1)
    host, port = operands
    code = net.connect(f"{host}:{port}")
    if code in ("nxdomain", "dns-blocked"):
        return Result(stderr=f"nc: bad address '{host}'\n", code=1)
    # the address as xmalloc_sockaddr2dotted gives it: the resolved IP and the port
    found, addresses = net.lookup(host)
    dotted = f"{addresses[0] if found == 'ok' and addresses else host}:{port}"
    if code is None:
        return Result(stderr=f"{host} ({dotted}) open\n" if verbose else "")
    refused = code in ("no-endpoints", "not-listening")
    if verbose > 1 or (verbose and not refused):
        why = "Connection refused" if refused else "Connection timed out"
        return Result(stderr=f"nc: {host} ({dotted}): {why}\n", code=1)
    return Result(code=1)


def _http_error(
    name: str, status: int, body: str, where: str, flags: set[str], reason: str
) -> Result:
    """An HTTP error status (from an ingress controller). busybox wget stops with `server
    returned error: <status line>` (networking/wget.c, the default: case after reading the
    status line), printing `Connecting to` first unless -q; curl prints the page and exits
    0, or with -f/--fail exits 22 (`The requested URL returned error: <status>`)."""
    if name == "curl":
        if "-f" in flags or "--fail" in flags:
            return Result(
                stderr=f"curl: (22) The requested URL returned error: {status}\n", code=22
            )
        return Result(body)
    connecting = "" if "-q" in flags or "--quiet" in flags else f"Connecting to {where}\n"
    return Result(
        stderr=f"{connecting}wget: server returned error: HTTP/1.1 {status} {reason}\n", code=1
    )
