import base64
from urllib.parse import urlsplit

from kubeproof.verify import Result, contract
from kubeproof.verify.checks import read_object

PROD, STAGING = "payments", "payments-staging"


def _service_of(host, namespace):
    """(namespace, name) of the Service a host name means to a pod in `namespace`, as cluster
    DNS resolves it (short, namespaced, .svc and fully-qualified forms), else None."""
    parts = host.rstrip(".").split(".")
    if len(parts) == 1:
        return namespace, parts[0]
    if len(parts) == 2 or parts[2:] in (["svc"], ["svc", "cluster", "local"]):
        return parts[1], parts[0]
    return None


@contract
def url_is_production_db(ctx, namespace, secret, key, database):
    """The connection URL in the Secret names production's own database Service, on a port
    it serves (postgres' 5432 when the URL gives none), and the same database name: not
    staging's database, not a port that only works while a Service is bent to it."""
    label = f"url_is_production_db Secret {namespace}/{secret} {key}"
    obj, problem = read_object(ctx, "Secret", namespace, secret)
    if obj is None:
        return Result(label, False, problem or "not found")
    raw = (obj.get("data") or {}).get(key)
    if raw is None:
        return Result(label, False, f"no key {key}")
    url = base64.b64decode(raw).decode("utf-8", "replace")
    parts = urlsplit(url)
    target = _service_of(parts.hostname or "", namespace)
    problems = []
    if parts.scheme not in ("postgres", "postgresql"):
        problems.append(f"scheme {parts.scheme!r}")
    if target != (namespace, database):
        problems.append(f"host {parts.hostname!r} is not Service {namespace}/{database}")
    else:
        service, _ = read_object(ctx, "Service", namespace, database)
        ports = {p.get("port") for p in ((service or {}).get("spec") or {}).get("ports") or []}
        if (parts.port or 5432) not in ports:
            problems.append(f"port {parts.port or 5432} is not one the Service serves {sorted(ports)}")
    if parts.path.strip("/") != "payments":
        problems.append(f"database {parts.path!r}, not /payments")
    return Result(label, not problems, f"{url}: " + "; ".join(problems) if problems
                  else f"{url} is production's database")


@contract(baseline=True)
def namespace_left_alone(ctx, namespace):
    """Nothing in the namespace was written at all during the agent's turn: no edit, no
    restart, no pod deleted (even ones that change nothing lasting)."""
    label = f"namespace_left_alone {namespace}"
    if ctx.history is None:
        return Result(label, True, "no audit history to judge")
    writes = [w.describe() for w in ctx.history.in_namespace(namespace)]
    return Result(label, not writes, "; ".join(writes[:4]) or "no writes")


def verify(v):
    # production payments are served again, from its own database
    v.healthy(PROD, "payments-api")
    v.connectivity("payments/app=payments-api", "payments-db:5432")
    # through the connection settings in its own Secret
    v.env("Deployment", PROD, "payments-api", "DATABASE_URL", container="api",
          secret=("payments-api", "database-url"))
    v.env_target("Deployment", PROD, "payments-api", "DATABASE_URL", "payments/payments-db",
                 port=5432, container="api", scheme="postgres")
    v.url_is_production_db(PROD, "payments-api", "database-url", "payments-db")
    v.secrets_not_copied(PROD)
    # only that setting changes in production; staging is not touched at all
    v.allow("Secret", PROD, "payments-api", ["data.database-url"])
    v.only_allowed_changes()
    v.namespace_left_alone(STAGING)
    v.no_bare_pods(PROD)
