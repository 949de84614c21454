"""Realistic words for generated tasks: teams, applications, people, config keys, ports,
registries. Tuples, so a seeded `random.Random` picks the same word on every machine."""

import random


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


TEAMS = _words(
    "payments checkout search billing identity platform data ml growth mobile ledger "
    "catalog shipping support risk media"
)
APPS = _words(
    "api web worker gateway scheduler indexer exporter frontend backend notifier ingestor "
    "cache reporter sync auth router"
)
ENVS = ("dev", "staging", "prod", "qa", "sandbox")
PEOPLE = _words(
    "alice bob carol dmitri erin farah gustavo hana ivan jun kofi lena mateo nadia oskar "
    "priya quinn rosa sven tariq"
)
GROUPS = _words(
    "sre oncall developers auditors release-managers data-eng qa-team security support-l2 "
    "platform-admins"
)
BOTS = ("ci-bot", "deployer", "argocd-sync", "backup-agent", "log-shipper", "metrics-reader")
LOG_LEVELS = ("debug", "info", "warn", "error")
REGISTRIES = ("registry.example.com", "ghcr.io", "quay.io", "harbor.corp.example", "docker.io")
DOMAINS = ("example.com", "corp.example", "internal.example.net")
PORTS = (8080, 8443, 9090, 3000, 5432, 6379, 9200, 5000, 8000, 7070)
DB_ENGINES = ("postgres", "mysql", "redis", "mongodb")
FEATURES = ("new-checkout", "dark-mode", "beta-search", "fast-sync", "v2-api", "audit-log")


def word(rng: random.Random, words: tuple) -> str:
    return str(rng.choice(words))


def namespace(rng: random.Random) -> str:
    """A team namespace such as `payments-prod`."""
    return f"{word(rng, TEAMS)}-{word(rng, ENVS)}"


def app_name(rng: random.Random) -> str:
    return f"{word(rng, TEAMS)}-{word(rng, APPS)}"


def password(rng: random.Random, length: int = 16) -> str:
    alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(rng.choice(alphabet) for _ in range(length))


def config_pairs(rng: random.Random, app: str, count: int) -> dict[str, str]:
    """`count` environment-style settings for `app`, values as strings (as ConfigMaps hold)."""
    makers = (
        ("LOG_LEVEL", lambda: word(rng, LOG_LEVELS)),
        ("PORT", lambda: str(word(rng, PORTS))),
        ("DB_HOST", lambda: f"{word(rng, DB_ENGINES)}.{word(rng, TEAMS)}.svc.cluster.local"),
        ("CACHE_TTL_SECONDS", lambda: str(rng.choice((30, 60, 300, 900, 3600)))),
        ("FEATURE_FLAG", lambda: word(rng, FEATURES)),
        ("MAX_CONNECTIONS", lambda: str(rng.choice((10, 25, 50, 100, 200)))),
        ("REGION", lambda: rng.choice(("eu-west-1", "us-east-1", "ap-south-1", "eu-central-1"))),
        ("APP_NAME", lambda: app),
        ("TIMEOUT_MS", lambda: str(rng.choice((250, 500, 1000, 3000, 5000)))),
        ("RETRIES", lambda: str(rng.choice((0, 1, 3, 5)))),
    )
    chosen = rng.sample(makers, count)
    return {key: make() for key, make in chosen}
