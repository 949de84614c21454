from kubeproof.nodesim.catalog import canonical
from kubeproof.verify import Result, contract
from kubeproof.verify.checks import read_object
from kubeproof.verify.fields import get_path, missing

WEB = "spec.template.spec.containers[name=web]"


@contract
def ships_image(ctx, namespace, name, container, image):
    """The container runs `image`, however the reference is written (`acme/x:1` and
    `docker.io/acme/x:1` are the same image)."""
    label = f"ships_image {namespace}/{name} {container} {image}"
    obj, problem = read_object(ctx, "Deployment", namespace, name)
    if obj is None:
        return Result(label, False, problem)
    got = get_path(obj, f"spec.template.spec.containers[name={container}].image")
    if missing(got):
        return Result(label, False, f"no container {container}")
    return Result(label, canonical(got) == canonical(image), f"image {got}")


def verify(v):
    # 4.3.0 is out and serving
    v.healthy("web", "storefront")
    v.pods_ready("web", {"app": "storefront"}, 2)
    v.ships_image("web", "storefront", "web", "acme/storefront:4.3.0")
    v.env("Deployment", "web", "storefront", "CHECKOUT_BANNER", value="on")
    # only the image reference may change; nothing else in web at any point (the banner,
    # the replicas, the probe), and no pods beside the Deployment's
    v.allow("Deployment", "web", "storefront", [f"{WEB}.image"])
    v.only_allowed_changes()
    v.ownership_chain("web", "storefront")
    v.no_bare_pods("web")
