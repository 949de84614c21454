from urllib.parse import urlsplit

from kubeproof.verify import Result, contract
from kubeproof.verify.workloads import effective_env, pod_spec, _Objects
from kubeproof.verify.checks import read_object

# every name that resolves from shop to the payments-api Service in payments
PAYMENTS = {"payments-api.payments", "payments-api.payments.svc",
            "payments-api.payments.svc.cluster.local"}


@contract
def payments_url_targets_payments_api(ctx):
    """checkout's PAYMENTS_URL, as the kubelet resolves it, comes from checkout-config's
    payments-url and names payments/payments-api on 8080 (in any resolvable form)."""
    name = "payments_url_targets_payments_api shop/checkout"
    obj, problem = read_object(ctx, "Deployment", "shop", "checkout")
    if obj is None:
        return Result(name, False, problem or "checkout does not exist")
    objects = _Objects(ctx, "shop")
    for c in pod_spec(obj).get("containers") or []:
        if c.get("name") != "checkout":
            continue
        got = effective_env(c, objects).get("PAYMENTS_URL")
        if got is None:
            return Result(name, False, "PAYMENTS_URL is not set")
        url, source = got
        if not source.startswith("ConfigMap checkout-config key payments-url"):
            return Result(name, False, f"PAYMENTS_URL comes from {source}, not checkout-config")
        parts = urlsplit(str(url or ""))
        ok = (parts.scheme == "http" and (parts.hostname or "").rstrip(".") in PAYMENTS
              and parts.port == 8080)
        return Result(name, ok, f"PAYMENTS_URL={url} (from {source})")
    return Result(name, False, "no container named checkout")


def verify(v):
    # the outcome: checkout is up and reaches payments; the cart (the other reader of the
    # ConfigMap) is still serving
    v.rollout_complete("shop", "checkout")
    v.pods_ready("shop", {"app": "checkout"}, 2)
    v.connectivity("shop/app=checkout", "payments-api.payments:8080")
    v.healthy("shop", "cart")
    v.references_valid("Deployment", "shop", "checkout")
    v.references_valid("Deployment", "shop", "cart")
    v.env("Deployment", "shop", "cart", "CURRENCY", "EUR", configmap=("checkout-config", "currency"))
    # the URL is fixed where it lives and still read from there
    v.payments_url_targets_payments_api()
    # the shape: the URL in checkout-config is all a fix may change (restarts aside);
    # everything else in shop and payments stays as it was throughout, nothing added
    v.allow("ConfigMap", "shop", "checkout-config", ['data["payments-url"]'])
    v.only_allowed_changes()
    v.no_bare_pods("shop")
