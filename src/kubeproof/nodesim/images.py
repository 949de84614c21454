"""Image references as the kubelet parses them: `applyDefaultImageTag`
(pkg/kubelet/images/image_manager.go:417), `ParseImageName` (pkg/util/parsers/parsers.go:32)
and the reference grammar and errors of github.com/distribution/reference v0.6.0
(regexp.go, normalize.go:56-80, reference.go:186-196)."""

import re

_ALNUM = r"[a-z0-9]+"
_SEPARATOR = r"(?:[._]|__|[-]+)"
_PATH_COMPONENT = rf"{_ALNUM}(?:{_SEPARATOR}{_ALNUM})*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])"
_DOMAIN = rf"{_HOST}(?::[0-9]+)?"
_NAME = rf"(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}"
REFERENCE = re.compile(rf"^({_NAME})(?::({_TAG}))?(?:@({_DIGEST}))?$")
_IDENTIFIER = re.compile(r"^[a-f0-9]{64}$")
NAME_TOTAL_LENGTH_MAX = 255


class InvalidReference(ValueError):
    """`couldn't parse image name "X": <reference error>` (parsers.go:35)."""


def _split_domain(name: str) -> tuple[str, str]:
    """splitDockerDomain (normalize.go)."""
    first, slash, rest = name.partition("/")
    if not slash or (
        not any(ch in first for ch in ".:") and first != "localhost" and first.lower() == first
    ):
        domain, remainder = "docker.io", name
    else:
        domain, remainder = first, rest
    if domain == "index.docker.io":
        domain = "docker.io"
    if domain == "docker.io" and "/" not in remainder:
        remainder = "library/" + remainder
    return domain, remainder


def _reference_error(image: str) -> str | None:
    if _IDENTIFIER.match(image):
        return f"invalid repository name ({image}), cannot specify 64-byte hexadecimal strings"
    domain, remainder = _split_domain(image)
    remote = remainder.split(":", 1)[0]
    if remote.lower() != remote:
        return f"invalid reference format: repository name ({remote}) must be lowercase"
    full = f"{domain}/{remainder}"
    match = REFERENCE.match(full)
    if match is None:
        if not full:
            return "repository name must have at least one component"
        if REFERENCE.match(full.lower()):
            return "repository name must be lowercase"
        return "invalid reference format"
    path = match.group(1).split("/", 1)[1] if "/" in match.group(1) else match.group(1)
    if len(path) > NAME_TOTAL_LENGTH_MAX:
        return f"repository name must not be more than {NAME_TOTAL_LENGTH_MAX} characters"
    return None


def parse(image: str) -> tuple[str, str, str]:
    """(repository, tag, digest) of `image`; the tag `latest` when it names neither."""
    problem = _reference_error(image)
    if problem:
        raise InvalidReference(f'couldn\'t parse image name "{image}": {problem}')
    domain, remainder = _split_domain(image)
    match = REFERENCE.match(f"{domain}/{remainder}")
    assert match is not None
    tag, digest = match.group(2) or "", match.group(3) or ""
    if not tag and not digest:
        tag = "latest"
    return match.group(1), tag, digest


def apply_default_tag(image: str) -> str:
    """`busybox` → `busybox:latest`; anything with a tag or digest as written."""
    _repo, tag, digest = parse(image)
    if not digest and tag and not image.endswith(":" + tag):
        return f"{image}:{tag}"
    return image


def default_pull_policy(image: str) -> str:
    """The apiserver's default (pkg/apis/core/v1/defaults.go SetDefaults_Container), for a
    container status read before defaulting."""
    try:
        _repo, tag, digest = parse(image)
    except InvalidReference:
        return "IfNotPresent"
    return "Always" if tag == "latest" and not digest else "IfNotPresent"
