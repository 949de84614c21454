from kubeproof.verify import Result, contract
from kubeproof.verify.checks import read_object
from kubeproof.verify.fields import get_path, missing

ENGINE = "spec.template.spec.containers[name=engine]"


@contract
def startup_budget_at_most(ctx, namespace, name, container, seconds):
    """The container's startup probe gives a starting pod no longer than `seconds`
    (initialDelaySeconds + periodSeconds x failureThreshold) before it is restarted."""
    label = f"startup_budget_at_most {namespace}/{name} {container} {seconds}s"
    obj, problem = read_object(ctx, "Deployment", namespace, name)
    if obj is None:
        return Result(label, False, problem)
    probe = get_path(obj, f"spec.template.spec.containers[name={container}].startupProbe")
    if missing(probe) or not probe:
        return Result(label, False, "no startup probe")
    budget = (probe.get("initialDelaySeconds") or 0) + (probe.get("periodSeconds") or 10) * (
        probe.get("failureThreshold") or 3)
    return Result(label, budget <= seconds, f"{budget}s before a starting pod is restarted"
                  + ("" if budget <= seconds else f", more than the {seconds}s 5.1 allowed"))


def verify(v):
    # the release is out and serving from ready pods
    v.healthy("quotes", "quote-engine")
    v.pods_ready("quotes", {"app": "quote-engine"}, 2)
    v.field_equals("Deployment", "quotes", "quote-engine", f"{ENGINE}.image", "acme/quote-engine:5.2")
    # still checked at start-up (no looser than 5.1's 20 s) and for readiness; only the
    # start-up timing and the port readiness probes may change, nothing else in quotes at
    # any point (the release's image, settings and port names, the batch pricer, the cache)
    v.startup_budget_at_most("quotes", "quote-engine", "engine", 20)
    v.field_is("Deployment", "quotes", "quote-engine", f"{ENGINE}.startupProbe.httpGet.path", "/healthz")
    v.field_is("Deployment", "quotes", "quote-engine", f"{ENGINE}.readinessProbe.httpGet.path", "/ready")
    v.allow("Deployment", "quotes", "quote-engine", [
        f"{ENGINE}.startupProbe.periodSeconds",
        f"{ENGINE}.startupProbe.failureThreshold",
        f"{ENGINE}.startupProbe.initialDelaySeconds",
        f"{ENGINE}.readinessProbe.httpGet.port",
    ])
    v.only_allowed_changes()
    v.ownership_chain("quotes", "quote-engine")
    v.no_bare_pods("quotes")
