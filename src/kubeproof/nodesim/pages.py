"""What a pod's HTTP server answers a GET, once netsim has let the request reach it
(netsim/http.py: directly, or through an ingress controller): the body `wget -qO-` prints.

Two sources, in this order:
- a static file server recognised from the container's command (servers.py: busybox `httpd
  -h HOME`, `python -m http.server -d DIR`): the file under its document root, read from
  what the container sees — its mounted files, the files exec wrote into its layer, and the
  writable layer of a script that runs for real (runbox.py), read without following a
  symlink. A directory answers its index.html (busybox networking/httpd.c: `index.html` for
  a URL ending in `/`; CPython http/server.py SimpleHTTPRequestHandler.send_head likewise).
  A file that is not there answers 404 with busybox httpd's error page (httpd.c
  send_headers: `<HTML><HEAD><TITLE>404 Not Found</TITLE></HEAD>\\n<BODY><H1>404 Not
  Found</H1>\\nThe requested URL was not found\\n</BODY></HTML>\\n`).
- the image model's `pages` (images.yaml): fixed bodies by path, such as nginx's index page.

None when neither knows the path: the caller keeps its placeholder answer."""

import os
import posixpath
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from kubeproof.nodesim import cgi, tarcmd
from kubeproof.nodesim.catalog import script_of
from kubeproof.nodesim.servers import document_root

MAX_BODY = 1 << 20  # bytes of a served file that are read
NOT_FOUND_PAGE = (
    "<HTML><HEAD><TITLE>404 Not Found</TITLE></HEAD>\n"
    "<BODY><H1>404 Not Found</H1>\nThe requested URL was not found\n</BODY></HTML>\n"
)


@dataclass(frozen=True)
class Page:
    status: int
    reason: str
    body: str


def _read_beneath(root: Path, relative: str) -> str | None:
    """The file at `relative` under the host directory `root`, opening every component
    with O_NOFOLLOW (a symlink the container wrote never leads out of it); None when it is
    not a regular file there."""
    parts = [p for p in relative.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts) or not parts:
        return None
    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(root, flags | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        for part in parts[:-1]:
            nxt = os.open(part, flags | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        leaf = os.open(parts[-1], flags | os.O_NONBLOCK, dir_fd=fd)
        try:
            if not stat.S_ISREG(os.fstat(leaf).st_mode):
                return None
            return os.read(leaf, MAX_BODY).decode(errors="replace")
        finally:
            os.close(leaf)
    except OSError:
        return None
    finally:
        os.close(fd)


def _file(container, path: str) -> str | None:
    """The file at `path` as the container sees it: a mount, a file exec wrote, then the
    live script's layer (its writable emptyDirs first, as they hide the layer)."""
    seen = tarcmd.files(container)
    if path in seen:
        return seen[path]
    live = getattr(container, "live", None)
    if live is None:
        return None
    for mount in getattr(live, "mounts", []):
        inside = mount.inside.rstrip("/")
        if path.startswith(inside + "/"):
            return _read_beneath(mount.host, path[len(inside) + 1 :])
    return _read_beneath(live.box.rootfs, path.lstrip("/"))


def served(
    container, model, rules: list, port: int, path: str, pod=None, network=None
) -> Page | None:
    """The page `container` (of image model `model`) answers on `port` for `path` (query
    and fragment dropped, but for a CGI script: cgi.py); `rules` are the catalog's server
    rules; `pod`: the container's pod, for running a CGI script (None: none is run), with
    `network` answering its wget (cgi.py)."""
    query = path.split("#", 1)[0].partition("?")[2]
    path = unquote(path.split("?", 1)[0].split("#", 1)[0]) or "/"
    argv = list(container.spec.get("command") or []) + list(container.spec.get("args") or [])
    workdir = container.spec.get("workingDir") or (model.workdir if model else "/")
    # what the shell read at start, a script from a mounted file included
    script = script_of(argv, getattr(getattr(container, "files", None), "at_start", None), workdir)
    root = document_root(rules, argv, script, port)
    if root is not None:
        base = posixpath.normpath(posixpath.join(workdir, root))
        target = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
        if not (target == base or target.startswith(base.rstrip("/") + "/")):
            return Page(404, "Not Found", NOT_FOUND_PAGE)
        if pod is not None and cgi.wanted(path) and getattr(container, "live", None):
            if path == cgi.PREFIX:  # httpd.c: listing cgi-bin/ is forbidden
                return Page(403, "Forbidden", "")
            shebang = (_file(container, target) or "").split("\n", 1)[0]
            result = cgi.run(container, pod, model, target, path, query, network, shebang)
            return Page(*cgi.answer(result))
        if path.endswith("/"):
            target = posixpath.join(target, "index.html")
        body = _file(container, target)
        if body is None:
            return Page(404, "Not Found", NOT_FOUND_PAGE)
        return Page(200, "OK", body)
    pages = getattr(model, "pages", None) or {}
    served_root = getattr(model, "document_root", None)
    if served_root and any(p.container_port == port for p in model.ports):
        # the image's own server (nginx's default.conf: root /usr/share/nginx/html, index
        # index.html): a file the container has there (a ConfigMap mounted into it, one exec
        # wrote), else the image's own file, else its 404 page
        target = posixpath.normpath(posixpath.join(served_root, path.lstrip("/")))
        if not (target == served_root or target.startswith(served_root.rstrip("/") + "/")):
            return Page(404, "Not Found", model.not_found or NOT_FOUND_PAGE)
        if path.endswith("/"):
            target = posixpath.join(target, "index.html")
        body = _file(container, target)
        if body is not None:
            return Page(200, "OK", body)
        if path in pages:
            return Page(200, "OK", pages[path])
        return Page(404, "Not Found", model.not_found or NOT_FOUND_PAGE)
    if path in pages:
        return Page(200, "OK", pages[path])
    return None
