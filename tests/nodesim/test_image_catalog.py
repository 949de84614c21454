"""The image catalog as real registries have it: which tags exist (every tag Docker Hub's
official images published, from docker-library/official-images `library/<name>`), what a
digest, a floating tag and a variant resolve to, and what the stock images serve. Golden
tests without a cluster, plus one live check through stock kubectl."""

import pytest

from kubeproof.errors import KubeproofError
from kubeproof.fidelity.golden import pod_object, simulate
from kubeproof.nodesim import catalog, probes, shell
from kubeproof.nodesim.catalog import Catalog, ImageModel, Tags, expand
from kubeproof.nodesim.container import Container
from tests.conftest import wait_for
from tests.nodesim.conftest import apply, container_state, events

SHIPPED = catalog.shipped()
DIGEST = "sha256:" + "0123456789abcdef" * 4


def exists(image: str) -> bool:
    _repo, tag, model = SHIPPED.resolve(image)
    return model is not None and tag in model.tags


@pytest.mark.parametrize(
    "image",
    [
        "nginx:1.27.4", "nginx:1.27.3", "nginx:1.27", "nginx:1", "nginx", "nginx:latest",
        "nginx:stable", "nginx:mainline", "nginx:alpine", "nginx:stable-alpine",
        "nginx:1.27.4-alpine", "nginx:1.27-alpine-slim", "nginx:1.25.5-bookworm",
        "nginx:1.14.2", "nginx:1.29.0-alpine3.22-otel", "docker.io/library/nginx:1.27.4",
        "index.docker.io/library/nginx:1.27.4", "library/nginx:1.25",
        "redis:7.2.4", "redis:7.2", "redis:7", "redis:7.4-alpine", "redis:6.2.6-bullseye",
        "busybox:1.28", "busybox:1.36.1", "busybox:1.36-musl", "busybox:stable", "busybox",
        "postgres:16", "postgres:16.4", "postgres:15-alpine", "postgres:9.6.24",
        "registry.k8s.io/pause:3.9", "registry.k8s.io/pause:3.10",
        f"nginx@{DIGEST}", f"nginx:1.27@{DIGEST}", f"redis@{DIGEST}",
    ],
)  # fmt: skip
def test_every_published_tag_resolves(image):
    assert exists(image)


@pytest.mark.parametrize(
    "image",
    [
        "nginx:1.27.99", "nginx:1.27.6", "nginx:1.28.9", "nginx:1.99", "nginx:0.0.1",
        "nginx:v1.27.4", "nginx:1.27-bad", "nginx:1.27.4-ubuntu", "nginx:1.7.3",
        "redis:7.2.99", "redis:7.9", "busybox:1.99", "busybox:1.36-alpine",
        "postgres:16.99", "registry.k8s.io/pause:3.11",
    ],
)  # fmt: skip
def test_tags_never_published_do_not(image):
    assert not exists(image)


def test_an_unknown_repository_has_no_model():
    assert SHIPPED.resolve("nosuch/app:1")[2] is None
    assert SHIPPED.resolve("ghcr.io/library/nginx:1.27.4")[2] is None


def test_patterns_expand_as_a_shell_expands_braces():
    assert expand("1.27.{0..2}{,-alpine}") == [
        "1.27.0", "1.27.0-alpine", "1.27.1", "1.27.1-alpine", "1.27.2", "1.27.2-alpine",
    ]  # fmt: skip
    assert expand("{a,b{1..2}}") == ["a", "b1", "b2"]
    assert expand("latest") == ["latest"]
    with pytest.raises(ValueError, match="unbalanced"):
        expand("1.{2")


def test_a_model_declares_tags_by_rule_or_as_a_plain_list(tmp_path):
    path = tmp_path / "images.yaml"
    path.write_text(
        "images:\n"
        "  acme/api:\n"
        '    tags: ["2.{0..3}", "2.3.{0..4}{,-slim}", "nightly-*"]\n'
        "  acme/old:\n"
        '    tags: ["1.0", "1.1"]\n'
    )
    models = catalog.load(path)
    api, old = models.images["acme/api"], models.images["acme/old"]
    assert "2.3.4-slim" in api.tags and "2.2" in api.tags and "nightly-20261124" in api.tags
    assert "2.4" not in api.tags and "2.3.5" not in api.tags and "nightly" not in api.tags
    assert "1.1" in old.tags and "1.2" not in old.tags
    assert old.tags == ["1.0", "1.1"]
    assert models.model_dump(by_alias=True)["images"]["acme/old"]["tags"] == ["1.0", "1.1"]
    assert ImageModel().tags == ["latest"]


def test_a_malformed_pattern_is_reported_with_its_field(tmp_path):
    path = tmp_path / "images.yaml"
    path.write_text('images:\n  acme/api:\n    tags: ["2.{0..3"]\n')
    with pytest.raises(KubeproofError, match=r"images\.acme/api\.tags"):
        catalog.load(path)


def test_a_floating_tag_names_the_release_it_points_at():
    nginx = SHIPPED.images["nginx"]
    release = nginx.tags.release
    assert release("1.27", nginx.current) == ("1.27.5", "")
    assert release("1.27-alpine", nginx.current) == ("1.27.5", "-alpine")
    assert release("1.27.4", nginx.current) == ("1.27.4", "")
    assert release("stable-alpine", nginx.current) == ("1.30.4", "-alpine")
    assert release("alpine", nginx.current) == ("1.31.4", "-alpine")
    assert release("latest", nginx.current) == ("1.31.4", "")
    pause = SHIPPED.images["registry.k8s.io/pause"]
    assert pause.tags.release("3.10", pause.current) == ("3.10", "")


def test_image_digests_are_stable_per_release_and_a_digest_is_itself():
    digest = SHIPPED.image_digest
    assert digest("nginx:1.27.4") == digest("docker.io/library/nginx:1.27.4")
    assert digest("nginx:1.27") == digest("nginx:1.27.5") != digest("nginx:1.27.4")
    assert digest("nginx:1.27.4") != digest("nginx:1.27.4-alpine")
    assert digest(f"nginx@{DIGEST}") == DIGEST
    assert digest("nginx:1.27.4").startswith("sha256:") and len(digest("nginx:1.27.4")) == 71


def test_sizes_are_plausible_per_image_and_variant():
    def size(image: str) -> int:
        model = SHIPPED.resolve(image)[2]
        assert model is not None
        return model.size_bytes

    assert 68_000_000 < size("nginx:1.27.4") < 76_000_000
    assert 19_000_000 < size("nginx:1.27.4-alpine") < 22_000_000
    assert 5_000_000 < size("nginx:1.27.4-alpine-slim") < 5_500_000
    assert size("nginx:1.27.4") != size("nginx:1.27.3")  # builds differ
    assert size("nginx:1.27") == size("nginx:1.27.5")  # the same image
    assert size("nginx:1.27.4") == size("nginx:1.27.4")
    assert 2_000_000 < size("busybox:1.36") < 2_300_000
    assert 700_000 < size("busybox:1.28") < 800_000
    assert 16_000_000 < size("redis:7.2.4-alpine") < 18_000_000
    assert 140_000_000 < size("postgres:16") < 160_000_000
    assert 300_000 < size("registry.k8s.io/pause:3.10") < 340_000


def test_redis_logs_the_version_of_its_tag():
    model = SHIPPED.resolve("redis:7.2.4")[2]
    assert model is not None
    assert model.logs.start[0].startswith("Redis version=7.2.4, bits=64")


@pytest.mark.parametrize(
    ("path", "failure"),
    [
        ("/", None),
        ("/index.html", None),
        ("/50x.html", None),
        ("/?probe=1", None),
        ("/healthz", "HTTP probe failed with statuscode: 404"),
        ("/health", "HTTP probe failed with statuscode: 404"),
        ("/ready", "HTTP probe failed with statuscode: 404"),
    ],
)
def test_stock_nginx_serves_its_welcome_page_and_404s_elsewhere(path, failure):
    # the image's /etc/nginx/conf.d/default.conf: root /usr/share/nginx/html, index.html
    model = SHIPPED.resolve("nginx:1.27.4")[2]
    assert model is not None
    container = {"name": "web", "image": "nginx:1.27.4"}
    probe = {"httpGet": {"path": path, "port": 80}}
    assert probes.check(probe, container, model, "10.244.0.5", serving=True) == failure


def test_shipped_images_expose_the_ports_of_their_dockerfiles():
    ports = {name: [p.container_port for p in m.ports] for name, m in SHIPPED.images.items()}
    assert ports["nginx"] == [80] and ports["redis"] == [6379] and ports["postgres"] == [5432]
    assert ports["busybox"] == [] and ports["registry.k8s.io/pause"] == []


@pytest.mark.parametrize(
    ("image", "env", "workdir"),
    [
        ("nginx:1.27.4", {"NGINX_VERSION": "1.27.4"}, "/"),
        ("redis:7.2", {"REDIS_VERSION": "7.2.16"}, "/data"),
        (
            "postgres:16",
            {
                "PG_MAJOR": "16",
                "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:"
                "/usr/lib/postgresql/16/bin",
            },
            "/",
        ),
        ("busybox:1.36", {"PATH": shell.DEFAULT_PATH}, "/"),
    ],
)
def test_exec_sees_the_images_env_and_workdir(image, env, workdir):
    # the image config's Env and WorkingDir, which containerd gives every exec'd process
    model = SHIPPED.resolve(image)[2]
    container = Container({"name": "c", "image": image}, "spec.containers{c}")
    container.env = {"MODE": "live"}
    printed = shell.run(["env"], container, "web-0", model=model).stdout.splitlines()
    for name, value in env.items():
        assert f"{name}={value}" in printed
    assert "MODE=live" in printed and "HOSTNAME=web-0" in printed
    assert shell.run(["pwd"], container, "web-0", model=model).stdout == workdir + "\n"


def test_a_released_tag_pulls_and_an_unreleased_one_fails_as_containerd_says():
    # image_manager.go:361-374; containerd core/remotes/docker/resolver.go (ErrNotFound)
    good = simulate(pod_object({"containers": [{"name": "a", "image": "nginx:1.27.4"}]}), 5)
    size = SHIPPED.resolve("nginx:1.27.4")[2].size_bytes  # type: ignore[union-attr]
    assert [r for _, _, r, _ in good.events] == ["Pulling", "Pulled", "Created", "Started"]
    assert good.events[1][3].endswith(f"Image size: {size} bytes.")
    bad = simulate(pod_object({"containers": [{"name": "a", "image": "nginx:1.27.99"}]}), 5)
    ref = "docker.io/library/nginx:1.27.99"
    assert bad.events[1][3] == (
        f'Failed to pull image "nginx:1.27.99": rpc error: code = NotFound desc = failed to '
        f'pull and unpack image "{ref}": failed to resolve reference "{ref}": {ref}: not found'
    )


def test_a_catalog_merges_task_models_over_the_shipped_ones():
    extra = Catalog(images={"acme/api": ImageModel(tags=Tags(["1.{0..2}"]))})
    merged = SHIPPED.merged(extra)
    assert "1.2" in merged.resolve("acme/api:1.2")[2].tags  # type: ignore[union-attr]
    assert merged.resolve("nginx:1.27.4")[2] is not None


@pytest.mark.cluster
def test_a_real_tag_runs_and_an_unreleased_one_fails_with_the_runtimes_words(sim, ns):
    apply(
        sim,
        """
apiVersion: v1
kind: Pod
metadata: {name: real}
spec:
  containers:
  - name: web
    image: nginx:1.27.4
    readinessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: unreleased}
spec:
  containers: [{name: web, image: nginx:1.27.99}]
""",
        ns,
    )
    wait_for(
        lambda: container_state(sim, "real", ns).get("ready") is True, what="nginx:1.27.4 ready"
    )
    pulled = next(e["message"] for e in events(sim, "real", ns) if e["reason"] == "Pulled")
    assert pulled.startswith('Successfully pulled image "nginx:1.27.4" in ')
    ref = "docker.io/library/nginx:1.27.99"
    error = (
        f'rpc error: code = NotFound desc = failed to pull and unpack image "{ref}": '
        f'failed to resolve reference "{ref}": {ref}: not found'
    )
    failed = wait_for(
        lambda: [
            m for e in events(sim, "unreleased", ns) if (m := e["message"]).startswith("Failed to")
        ],
        timeout=60,
        what="the pull failure event",
    )
    assert f'Failed to pull image "nginx:1.27.99": {error}' in failed
    waiting = container_state(sim, "unreleased", ns)["state"]["waiting"]
    assert waiting["reason"] in ("ErrImagePull", "ImagePullBackOff")
    assert waiting["message"].endswith(error)
