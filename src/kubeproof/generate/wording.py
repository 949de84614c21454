"""Turning rules and maps into the words an operator writes: full sentences for the full
prompt, slashes and abbreviations for the terse one."""

READ = ["get", "list", "watch"]


def join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def verbs(vs: list[str]) -> str:
    if vs == READ:
        return "read-only access (get, list and watch)"
    return join(vs)


def grant(rule: dict) -> str:
    """One rule in full: `get, update and patch on configmaps named app-config`."""
    if rule.get("nonResourceURLs"):
        return f"{join(rule['verbs'])} on the non-resource URL(s) {join(rule['nonResourceURLs'])}"
    group = rule["apiGroups"][0]
    what = join(rule["resources"])
    if group:
        what += f" (API group {group})"
    text = f"{verbs(rule['verbs'])} on {what}"
    if rule.get("resourceNames"):
        text += f", only the one(s) named {join(rule['resourceNames'])}"
    return text


def grant_terse(rule: dict) -> str:
    names = f"[{','.join(rule['resourceNames'])}]" if rule.get("resourceNames") else ""
    target = ",".join(rule.get("resources") or rule.get("nonResourceURLs") or [])
    return f"{'/'.join(rule['verbs'])} {target}{names}"


def grants(rules: list[dict]) -> str:
    return "; ".join(grant(r) for r in rules)


def pairs(values: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def subject(s: dict) -> str:
    if s["kind"] == "ServiceAccount":
        return f"the ServiceAccount {s['name']} in namespace {s['namespace']}"
    return f"the {s['kind'].lower()} {s['name']}"


def subject_terse(s: dict) -> str:
    if s["kind"] == "ServiceAccount":
        return f"sa {s['namespace']}/{s['name']}"
    return f"{s['kind'].lower()} {s['name']}"
