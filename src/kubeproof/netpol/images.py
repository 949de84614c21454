"""Behaviour models (docs/behaviour-models.md) for the topologies' images, so the simulated
kubelet pulls and runs them: each image serves its container ports and is ready once
started, as the probes assume. Derived from the topologies, never written by hand."""

from pathlib import Path

import yaml

from kubeproof.netpol import manifests, topology
from kubeproof.nodesim.catalog import split_image

SIZE = 20_000_000  # bytes: a small image, pulled in well under a second on `fast` timing


def models(names: list[str] | None = None) -> dict:
    """`{images: {repository: model}}` for every image of the topologies (default: all)."""
    images: dict[str, dict] = {}
    for name in names or topology.names():
        tp = topology.load(name)
        for obj in manifests.workloads(tp):
            if obj["kind"] != "Deployment":
                continue
            for c in obj["spec"]["template"]["spec"]["containers"]:
                repo, tag = split_image(c["image"])
                model = images.setdefault(
                    repo, {"tags": [], "sizeBytes": SIZE, "ports": [], "startupSeconds": 0}
                )
                if tag not in model["tags"]:
                    model["tags"].append(tag)
                for p in c.get("ports") or []:
                    port = {"containerPort": p["containerPort"], "protocol": p["protocol"]}
                    if port not in model["ports"]:
                        model["ports"].append(port)
    return {"images": images}


def write(path: Path, names: list[str] | None = None) -> Path:
    """The models as the images file an EmbeddedCluster takes (`images=`)."""
    path.write_text(yaml.safe_dump(models(names), sort_keys=False))
    return path
