"""What a pod's HTTP server answers (nodesim/pages.py), without a cluster: busybox httpd's
document root read from what the container sees (mounts, a live script's layer, never
through a symlink), its 404 page, and an image model's fixed pages (nginx's index)."""

from pathlib import Path
from types import SimpleNamespace

from kubeproof.nodesim import pages
from kubeproof.nodesim.catalog import shipped

SCRIPT = (
    'mkdir -p /www\necho "portal route restored" > /www/index.html\nexec httpd -f -p 8080 -h /www'
)


def _container(tmp_path: Path, argv: list[str], files: dict | None = None):
    rootfs = tmp_path / "rootfs"
    rootfs.mkdir(exist_ok=True)
    live = SimpleNamespace(mounts=[], box=SimpleNamespace(rootfs=rootfs))
    spec = {"name": "portal", "image": "busybox:1.36", "command": argv}
    return SimpleNamespace(spec=spec, files=files or {}, live=live, container_id="c1"), rootfs


def _served(container, image: str, port: int, path: str):
    catalog = shipped()
    return pages.served(container, catalog.resolve(image)[2], catalog.servers, port, path)


def test_httpd_serves_the_file_the_script_wrote(tmp_path):
    container, rootfs = _container(tmp_path, ["sh", "-c", SCRIPT])
    (rootfs / "www").mkdir()
    (rootfs / "www" / "index.html").write_text("portal route restored\n")
    page = _served(container, "busybox:1.36", 8080, "/")
    assert page == pages.Page(200, "OK", "portal route restored\n")
    assert _served(container, "busybox:1.36", 8080, "/index.html?x=1").body.startswith("portal")
    missing = _served(container, "busybox:1.36", 8080, "/nope")
    assert (missing.status, missing.body) == (404, pages.NOT_FOUND_PAGE)
    assert _served(container, "busybox:1.36", 9090, "/") is None  # not its port


def test_a_symlink_in_the_layer_is_not_followed(tmp_path):
    secret = tmp_path / "host-secret"
    secret.write_text("host file")
    container, rootfs = _container(tmp_path, ["sh", "-c", SCRIPT])
    (rootfs / "www").mkdir()
    (rootfs / "www" / "index.html").symlink_to(secret)
    assert _served(container, "busybox:1.36", 8080, "/").status == 404
    (rootfs / "www" / "index.html").unlink()
    (rootfs / "www" / "index.html").mkdir()
    assert _served(container, "busybox:1.36", 8080, "/").status == 404
    assert _served(container, "busybox:1.36", 8080, "/../../host-secret").status == 404


def test_a_mounted_file_is_served(tmp_path):
    files = {"/srv/index.html": "from a ConfigMap\n"}
    container, _ = _container(tmp_path, ["httpd", "-f", "-p", "80", "-h", "/srv"], files)
    container.live = None
    assert _served(container, "busybox:1.36", 80, "/").body == "from a ConfigMap\n"


def test_nginx_answers_its_index_page(tmp_path):
    container, _ = _container(tmp_path, [])
    container.spec["image"] = "nginx:1.27"
    page = _served(container, "nginx:1.27", 80, "/")
    assert page.status == 200 and "<title>Welcome to nginx!</title>" in page.body
    assert _served(container, "nginx:1.27", 80, "/50x.html").status == 200  # the image's own
    # a path not under its root: nginx's own 404 page, its version in the footer
    missing = _served(container, "nginx:1.27", 80, "/other")
    assert missing.status == 404 and "<title>404 Not Found</title>" in missing.body
    assert "<hr><center>nginx/1.27." in missing.body and missing.body.endswith("</html>\r\n")
