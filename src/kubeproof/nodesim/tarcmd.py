"""`tar` in a modelled container, for `kubectl cp`, and the container's writable layer.

`kubectl cp` is `tar` run through exec (staging kubectl pkg/cmd/cp/cp.go): into a pod,
`test -d DEST` (cp.go:279-281) and then `tar -xmf - [-C DIR]` fed the archive on stdin
(cp.go:327-334, or `--no-same-permissions --no-same-owner` first with --no-preserve); out
of a pod, `tar cf - SRC` (cp.go:395) whose stdout kubectl unpacks, printing tar's stderr.

A modelled container's files are its mounts and /etc files (volumefiles.ContainerFiles);
what `tar -x` writes goes to a writable layer kept here per container run (a restart starts
from the image again, as a new runtime container does). Files are text held as `str`;
bytes that are not UTF-8 survive as surrogate escapes. The image's tar decides the words:
busybox's (archival/libarchive/unsafe_prefix.c, archival/tar.c) or GNU tar's (Debian-based
images), whose "Removing leading" notice kubectl prints on a real cluster too."""

import io
import posixpath
import tarfile
import time
from dataclasses import dataclass, field

from kubeproof.nodesim import storage
from kubeproof.nodesim.catalog import ImageModel

MAX_MEMBERS = 10_000  # files one extraction may add to a layer (an archive is hostile)
MAX_LAYER_BYTES = 64 << 20  # what one modelled layer keeps
READ_ONLY = "Read-only file system"
# directories every image has (and the WORKDIR): `test -d /tmp` holds, so `kubectl cp f
# pod:/tmp` copies into it as it does on a real cluster
IMAGE_DIRS = {"/", "/bin", "/dev", "/etc", "/home", "/proc", "/root", "/sys", "/tmp", "/usr"}
IMAGE_DIRS |= {"/var", "/var/tmp", "/var/log", "/run", "/opt", "/mnt", "/lib", "/sbin"}


@dataclass
class Layer:
    """What a container run wrote: path -> content, and the directories it made."""

    run: str  # the container id it belongs to
    files: dict[str, str] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    mtimes: dict[str, float] = field(default_factory=dict)

    def size(self) -> int:
        return sum(len(t.encode(errors="surrogateescape")) for t in self.files.values())


def layer(container) -> Layer:
    """The writable layer of the container's current run (held on the Container, which
    knows nothing of it: only exec writes there)."""
    current = getattr(container, "_written_layer", None)
    if current is None or current.run != container.container_id:
        current = Layer(container.container_id)
        container._written_layer = current
    return current


def files(container) -> dict[str, str]:
    """Every file the container sees: its mounts, shadowed by nothing — a mount hides the
    layer beneath it — then what its run wrote elsewhere."""
    mounted = dict(container.files)
    return layer(container).files | mounted


def dirs(container, model: ImageModel | None) -> set[str]:
    """The directories the container has: the image's, its mount points, the layer's and
    every parent of a file."""
    found = set(IMAGE_DIRS) | layer(container).dirs
    found.add(model.workdir if model else "/")
    for mount in container.spec.get("volumeMounts") or []:
        found.add(posixpath.normpath(mount.get("mountPath") or "/"))
    for path in files(container):
        parent = posixpath.dirname(path)
        while parent not in found:
            found.add(parent)
            parent = posixpath.dirname(parent)
    return found


def has_tar(model: ImageModel | None) -> bool:
    """Whether the image has tar: a model that lists its programs says so; the others are
    modelled on Debian or Alpine images, which have it."""
    return model is None or model.executables is None or "tar" in model.executables


def _flavour(container, model: ImageModel | None) -> str:
    """busybox's tar in busybox and Alpine images (Alpine's tar is busybox's applet), GNU
    tar in the Debian-based ones."""
    tag = container.image.rsplit("/", 1)[-1].partition(":")[2]
    if (model is not None and model.shell == "busybox") or "alpine" in tag:
        return "busybox"
    return "gnu"


def _strip(name: str, flavour: str, notes: list[str]) -> str:
    """The member name tar records for a path: leading '/' removed, said once."""
    stripped = name.lstrip("/")
    if stripped != name and not notes:
        if flavour == "busybox":  # unsafe_prefix.c skip_unsafe_prefix
            notes.append("tar: removing leading '/' from member names\n")
        else:  # GNU tar, names.c
            notes.append("tar: Removing leading `/' from member names\n")
    return stripped


def create(container, model: ImageModel | None, sources: list[str]) -> tuple[bytes, str, int]:
    """`tar cf - SRC...`: (archive, stderr, exit code)."""
    flavour = _flavour(container, model)
    notes: list[str] = []
    errors: list[str] = []
    seen, known = files(container), dirs(container, model)
    out = io.BytesIO()
    fmt = tarfile.USTAR_FORMAT if flavour == "busybox" else tarfile.GNU_FORMAT
    stamp = layer(container).mtimes
    with tarfile.open(fileobj=out, mode="w", format=fmt) as archive:
        for source in sources:
            path = posixpath.normpath(source if source.startswith("/") else "/" + source)
            if path not in seen and path not in known:
                if flavour == "busybox":
                    errors.append(f"tar: {source}: No such file or directory\n")
                else:
                    errors.append(f"tar: {source}: Cannot stat: No such file or directory\n")
                continue
            members = [path] if path in seen else _tree(path, seen, known)
            for member in members:
                info = tarfile.TarInfo(_strip(member, flavour, notes))
                info.mtime = int(stamp.get(member, time.time()))
                info.uname = info.gname = "root"
                if member in seen:
                    data = seen[member].encode(errors="surrogateescape")
                    info.size, info.mode = len(data), 0o644
                    archive.addfile(info, io.BytesIO(data))
                else:
                    info.type, info.mode = tarfile.DIRTYPE, 0o755
                    archive.addfile(info)
    if errors and flavour == "gnu":
        errors.append("tar: Exiting with failure status due to previous errors\n")
    elif errors:  # archival/tar.c writeTarFile, after the last name
        errors.append("tar: error exit delayed from previous errors\n")
    code = 0 if not errors else (1 if flavour == "busybox" else 2)
    return out.getvalue(), "".join(notes + errors), code


def _tree(top: str, seen: dict[str, str], known: set[str]) -> list[str]:
    """A directory and what is under it, in tar's depth-first order."""
    prefix = top.rstrip("/") + "/"
    under = {p for p in (set(seen) | known) if p.startswith(prefix)}
    return [top, *sorted(under)]


def extract(container, model: ImageModel | None, archive: bytes, directory: str) -> tuple[str, int]:
    """`tar -xmf - [-C DIR]` of `archive`: (stderr, exit code). Members land in the layer;
    one under a read-only mount fails as the image's tar says it does."""
    flavour = _flavour(container, model)
    out: list[str] = []
    base = posixpath.normpath(directory if directory.startswith("/") else "/" + directory)
    if base not in dirs(container, model):
        if flavour == "busybox":  # xchdir dies
            return f"tar: can't change directory to '{directory}': No such file or directory\n", 1
        return f"tar: {directory}: Cannot chdir: No such file or directory\n", 2
    own, now = layer(container), time.time()
    pod, held = container.owner, own.size()
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r|") as reader:
            for count, member in enumerate(reader):
                if count >= MAX_MEMBERS:
                    out.append("tar: too many members\n")
                    break
                name = member.name
                if name.startswith("/") or ".." in name.split("/"):
                    continue  # tar refuses to leave DIR (kubectl never sends such names)
                path = posixpath.normpath(posixpath.join(base, name))
                if _read_only(container, pod, path):
                    if flavour == "busybox":  # data_extract_all.c: xopen3 dies
                        return out_text(out) + f"tar: can't open '{name}': {READ_ONLY}\n", 1
                    out.append(f"tar: {name}: Cannot open: {READ_ONLY}\n")
                    continue
                if member.isdir():
                    own.dirs.add(path)
                elif member.isfile():
                    handle = reader.extractfile(member)
                    data = handle.read() if handle else b""
                    if held + len(data) > MAX_LAYER_BYTES:
                        out.append(f"tar: {name}: Cannot write: No space left on device\n")
                        continue
                    held += len(data)
                    own.files[path] = data.decode(errors="surrogateescape")
                    own.mtimes[path] = now  # -m: extraction time, not the archive's
                    _count_disk(container, pod, path, len(data))
                # links and devices are not kept: kubectl cp sends regular files and dirs
    except tarfile.TarError:
        out.append("tar: short read\n" if flavour == "busybox" else "tar: Unexpected EOF\n")
        return out_text(out), 1 if flavour == "busybox" else 2
    if not out:
        return "", 0
    if flavour == "busybox":
        return out_text(out), 1
    return out_text(out) + "tar: Exiting with failure status due to previous errors\n", 2


def out_text(lines: list[str]) -> str:
    return "".join(lines)


def _read_only(container, pod, path: str) -> bool:
    if pod is None:
        return False
    return storage.target(pod.obj, container.spec, path).kind == "read-only"


def _count_disk(container, pod, path: str, size: int) -> None:
    """The bytes count as the pod's local storage where its mounts put them (storage.py),
    as dd's writes do."""
    disk = getattr(pod, "disk", None)
    if disk is not None and size:
        disk.write(pod.obj, container, path, size, disk.clock())
