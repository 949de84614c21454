from urllib.parse import urlsplit

from lightkube.resources.core_v1 import ConfigMap

from kubeproof.verify.result import Result

# every name that resolves from shop to the payments-api Service in payments
PAYMENTS = {"payments-api.payments", "payments-api.payments.svc", "payments-api.payments.svc.cluster.local"}


def payments_url_targets_payments_api(v):
    """checkout-config's payments-url names payments/payments-api on 8080 (any resolvable form)."""
    name = "payments_url_targets_payments_api shop/checkout-config"
    url = (v.client.get(ConfigMap, "checkout-config", namespace="shop").data or {}).get("payments-url", "")
    parts = urlsplit(url)
    ok = parts.scheme == "http" and (parts.hostname or "").rstrip(".") in PAYMENTS and parts.port == 8080
    v.results.append(Result(name, ok, f"payments-url={url}", "contract"))


def verify(v):
    v.rollout_complete("shop", "checkout")
    v.pods_ready("shop", {"app": "checkout"}, 2)
    v.connectivity("shop/app=checkout", "payments-api.payments:8080")
    # the URL is fixed where it lives: checkout-config, still read by checkout
    payments_url_targets_payments_api(v)
    v.uid_preserved("ConfigMap", "shop", "checkout-config")
    v.fields_unchanged("ConfigMap", "shop", "checkout-config", ["data.currency"])
    v.exact_resource_set("ConfigMap", "shop")
    v.fields_unchanged("Deployment", "shop", "checkout",
                       ["spec.template.spec.containers[0].env", "spec.template.spec.containers[0].image"])
    v.uid_preserved("Deployment", "shop", "checkout")
    v.namespace_untouched("payments")
    v.no_bare_pods("shop")
