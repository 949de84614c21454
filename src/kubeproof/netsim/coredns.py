"""Which plugin of a loaded Corefile answers a name (CoreDNS 1.14.2), so cluster DNS follows
the configuration each CoreDNS pod is running, not the one in its ConfigMap.

Modelled, for A queries on port 53:
- the server block: the one whose zone is the longest suffix of the name among the blocks
  on port 53 (core/dnsserver/server.go ServeDNS walks the name's labels), none: REFUSED;
- the plugin chain in plugin.cfg order, not the Corefile's (core/dnsserver/zdirectives.go):
  `rewrite`, then `hosts`, then `kubernetes`, then anything else (`forward` to the node's
  resolver, which knows no cluster names: NXDOMAIN);
- `rewrite [stop|continue] name [exact] FROM TO`, in order (plugin/rewrite/rewrite.go:47-60,
  name.go:298-341): the rest of the chain sees TO;
- `hosts`'s inline entries (plugin/hosts/setup.go:109-147): a name in its zones is answered
  from them; one it lacks goes on only with `fallthrough` covering it, else SERVFAIL
  (hosts.go:31-62). The hosts file itself (/etc/hosts by default) is not read;
- `kubernetes`: its zones are its arguments, else the block's keys (plugin/kubernetes/
  setup.go:99); it takes a name under one of them (handler.go:17-20) and serves
  `….svc.<zone>` and `….pod.<zone>` only when that zone is the cluster domain (parse.go
  expects `svc`/`pod` right under the zone). Not found there: NXDOMAIN (its `fallthrough`
  in kubeadm's Corefile names only the reverse zones).
Not modelled: other rewrite rules (prefix, suffix, substring, regex, answer, type, edns0…),
`template`, `file`, `auto`, `etcd`, `k8s_external`, `view`, `acl`, `import` and snippets,
`{$ENV}` substitution, reverse (PTR) zones, ports other than 53, `-dns.port`.
"""

from dataclasses import dataclass, field
from functools import lru_cache

from kubeproof.netsim import corefile
from kubeproof.netsim.objects import CLUSTER_DOMAIN


@dataclass(frozen=True)
class Route:
    kind: str  # kubernetes, hosts, upstream, nxdomain, servfail, refused
    name: str = ""  # the name the answering plugin looks up (after rewrites)
    ips: tuple[str, ...] = ()  # hosts: the inline entry's addresses


def _zone(name: str) -> str:
    return name.lower().rstrip(".") or "."


def _under(name: str, zone: str) -> bool:
    return zone == "." or name == zone or name.endswith("." + zone)


def _longest(name: str, zones: list[str]) -> str | None:
    matching = [z for z in zones if _under(name, z)]
    return max(matching, key=lambda z: 0 if z == "." else len(z), default=None)


@dataclass
class Block:
    zones: list[str]
    rewrites: list[tuple[str, str, bool]] = field(default_factory=list)  # from, to, stop
    hosts: list[tuple[list[str], dict[str, list[str]], list[str] | None]] = field(
        default_factory=list
    )  # (zones, name -> addresses, fallthrough zones or None)
    kubernetes: list[list[str]] = field(default_factory=list)  # each use's zones


def _head(args: list[str]) -> list[str]:
    return args[: args.index("{")] if "{" in args else args


def _body_lines(args: list[str], tokens: list[corefile.Token]) -> list[list[str]]:
    """The lines inside a directive's `{ }`, from its tokens (args carry no line numbers)."""
    lines: dict[int, list[str]] = {}
    inside = False
    for tok in tokens:
        if tok.text == "{":
            inside = True
        elif tok.text == "}":
            inside = False
        elif inside:
            lines.setdefault(tok.line, []).append(tok.text)
    return list(lines.values())


def _blocks(text: str) -> list[Block]:
    out = []
    for sb in corefile.parse(text):
        zones = []
        for key in sb.keys:
            scheme, _, rest = key.rpartition("://")
            host, _, port = rest.rpartition(":") if ":" in rest else (rest, "", "")
            if scheme in ("", "dns") and port in ("", "53"):
                zones.append(_zone(host))
        if not zones:
            continue
        block = Block(zones)
        for args in sb.directives.get("rewrite", []):
            stop = not (args and args[0].lower() == "continue")
            rest = args[1:] if args and args[0].lower() in ("stop", "continue") else args
            if rest and rest[0].lower() == "name":
                rest = rest[1:]
                if len(rest) >= 3 and rest[0].lower() == "exact":
                    rest = rest[1:]
                elif len(rest) != 2:
                    continue  # another match type: not modelled
                block.rewrites.append((_zone(rest[0]), _zone(rest[1]), stop))
        uses = _split_uses(sb, "hosts")
        for args, toks in uses:
            head = _head(args)
            own = [_zone(z) for z in head[1:]] or zones
            entries: dict[str, list[str]] = {}
            fall = None
            for line in _body_lines(args, toks):
                if line[0] == "fallthrough":
                    fall = [_zone(z) for z in line[1:]] or ["."]
                elif line[0] not in ("no_reverse", "ttl", "reload") and len(line) > 1:
                    for name in line[1:]:
                        entries.setdefault(_zone(name), []).append(line[0])
            block.hosts.append((own, entries, fall))
        for args in sb.directives.get("kubernetes", []):
            block.kubernetes.append([_zone(z) for z in _head(args)] or zones)
        out.append(block)
    return out


def _split_uses(sb: corefile.ServerBlock, name: str):
    """(args, tokens) of each use of a directive."""
    toks = sb.tokens.get(name, [])
    uses, starts = sb.directives.get(name, []), []
    for i, tok in enumerate(toks):
        if tok.text == name and (not starts or _closed(toks[starts[-1] : i])):
            starts.append(i)
    bounds = [*starts, len(toks)]
    return [(args, toks[bounds[i] : bounds[i + 1]]) for i, args in enumerate(uses)]


def _closed(toks: list[corefile.Token]) -> bool:
    depth = 0
    for t in toks:
        depth += (t.text == "{") - (t.text == "}")
    return depth == 0


class Served:
    """What one loaded Corefile answers."""

    def __init__(self, text: str):
        self.blocks = _blocks(text)

    def route(self, fqdn: str) -> Route:
        name = _zone(fqdn)
        zones = [z for b in self.blocks for z in b.zones]
        best = _longest(name, zones)
        if best is None:
            return Route("refused", name)
        block = next(b for b in self.blocks if best in b.zones)
        for src, dst, stop in block.rewrites:
            if name == src:
                name = dst
                if stop:
                    break
        for own, entries, fall in block.hosts:
            if _longest(name, own) is None:
                continue
            if name in entries:
                return Route("hosts", name, tuple(entries[name]))
            if fall is None or _longest(name, fall) is None:
                return Route("servfail", name)
        for kzones in block.kubernetes:
            zone = _longest(name, kzones)
            if zone is not None:
                # another zone: parse.go finds no `svc`/`pod` under it, NXDOMAIN
                return Route("kubernetes" if zone == CLUSTER_DOMAIN else "nxdomain", name)
        return Route("upstream", name)


@lru_cache(maxsize=64)
def served(text: str) -> Served | None:
    """The Corefile's routing, None when it does not parse (it could not be loaded)."""
    try:
        return Served(text)
    except corefile.CorefileError:
        return None
