"""The Corefile as CoreDNS reads it at start: the caddyfile grammar of github.com/coredns/caddy
(caddyfile/lexer.go, parse.go) with CoreDNS's plugin list as the valid directives. A Corefile
that does not parse stops CoreDNS: coremain/run.go `caddy.Start` fails and `mustLogFatal`
prints the error (log flags 0: the bare message) and exits 1.

Error wording: parse.go `Unknown directive '%s'`, `Unexpected '}' because no matching opening
brace`, EOFErr `Unexpected EOF`, each through the Dispenser's `%s:%d - Error during parsing:
%s`, and SyntaxErr `%s:%d - Syntax error: Unexpected token '%s', expecting '%s'`.
Plugin arguments are not checked (each plugin's setup does that): a misspelt plugin or an
unbalanced brace is what this catches.
"""

import hashlib
from dataclasses import dataclass, field

# plugin.cfg of CoreDNS 1.14: the directives core/dnsserver/zdirectives.go lists
PLUGINS = frozenset(
    [
        "root",
        "metadata",
        "geoip",
        "cancel",
        "tls",
        "quic",
        "grpc_server",
        "https",
        "https3",
        "timeouts",
        "multisocket",
        "reload",
        "nsid",
        "bufsize",
        "bind",
        "debug",
        "trace",
        "ready",
        "health",
        "pprof",
        "prometheus",
        "errors",
        "log",
        "dnstap",
        "local",
        "dns64",
        "acl",
        "any",
        "chaos",
        "loadbalance",
        "tsig",
        "cache",
        "rewrite",
        "header",
        "dnssec",
        "autopath",
        "minimal",
        "template",
        "transfer",
        "hosts",
        "route53",
        "azure",
        "clouddns",
        "k8s_external",
        "kubernetes",
        "file",
        "auto",
        "secondary",
        "etcd",
        "loop",
        "forward",
        "grpc",
        "erratic",
        "whoami",
        "on",
        "sign",
        "view",
        "nomad",
    ]
)


@dataclass
class Token:
    text: str
    line: int


@dataclass
class ServerBlock:
    keys: list[str]
    directives: dict[str, list[list[str]]] = field(default_factory=dict)  # name -> args


class CorefileError(ValueError):
    pass


def tokens(text: str) -> list[Token]:
    """lexer.go: whitespace separates tokens; `"…"` quotes (newlines inside count); `#` at a
    token's start comments out the rest of the line."""
    out: list[Token] = []
    line, i, n = 1, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch.isspace():
            i += 1
        elif ch == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif ch == '"':
            start_line, i, value = line, i + 1, []
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] == '"':
                    i += 1
                line += text[i] == "\n"
                value.append(text[i])
                i += 1
            i += 1
            out.append(Token("".join(value), start_line))
        else:
            start = i
            while i < n and not text[i].isspace():
                i += 1
            out.append(Token(text[start:i], line))
    return out


def parse(text: str, filename: str = "/etc/coredns/Corefile") -> list[ServerBlock]:
    """The server blocks, or CorefileError with CoreDNS's message."""
    toks = tokens(text)
    blocks: list[ServerBlock] = []
    pos = 0

    def err(at: int, msg: str) -> CorefileError:
        line = toks[min(at, len(toks) - 1)].line if toks else 0
        return CorefileError(f"{filename}:{line} - Error during parsing: {msg}")

    while pos < len(toks):
        keys: list[str] = []
        line = toks[pos].line
        while pos < len(toks) and toks[pos].text != "{" and toks[pos].line == line:
            keys.append(toks[pos].text.rstrip(","))
            pos += 1
        block = ServerBlock(keys)
        braced = pos < len(toks) and toks[pos].text == "{"
        pos += braced
        while pos < len(toks) and not (braced and toks[pos].text == "}"):
            name, line = toks[pos].text, toks[pos].line
            if name not in PLUGINS:
                raise err(pos, f"Unknown directive '{name}'")
            args, nesting, pos = [], 0, pos + 1
            while pos < len(toks) and (nesting or toks[pos].line == line):
                text_ = toks[pos].text
                if text_ == "{":
                    nesting += 1
                elif text_ == "}" and nesting:
                    nesting -= 1
                elif text_ == "}":
                    raise err(pos, "Unexpected '}' because no matching opening brace")
                args.append(text_)
                pos += 1
            if nesting:
                raise err(pos, "Unexpected EOF")
            block.directives.setdefault(name, []).append(args)
        if braced:
            if pos >= len(toks):
                last = toks[-1]
                raise CorefileError(
                    f"{filename}:{last.line} - Syntax error: Unexpected token "
                    f"'{last.text}', expecting '}}'"
                )
            pos += 1
        blocks.append(block)
    return blocks


def check(text: str, filename: str = "/etc/coredns/Corefile") -> str | None:
    """None when CoreDNS starts with this Corefile, else the line it exits with."""
    try:
        parse(text, filename)
    except CorefileError as exc:
        return str(exc)
    return None


def sha512(text: str) -> str:
    """plugin/reload logs `Running configuration SHA512 = %x` of the Corefile's bytes
    (reload/setup.go)."""
    return hashlib.sha512(text.encode()).hexdigest()


def serves_cluster_domain(text: str, domain: str = "cluster.local") -> bool:
    """A server block on port 53 whose `kubernetes` plugin answers for `domain`: the zones
    are the plugin's arguments up to its block, else the server block's own keys."""
    try:
        blocks = parse(text)
    except CorefileError:
        return False
    for block in blocks:
        zones = []
        for key in block.keys:
            host, _, port = key.removeprefix("dns://").partition(":")
            if port in ("", "53"):
                zones.append(host.rstrip(".") or ".")
        for args in block.directives.get("kubernetes", []):
            head = args[: args.index("{")] if "{" in args else args
            named = [a.rstrip(".") for a in head]
            covered = named or zones
            if any(z in (domain, ".") or domain.endswith("." + z) for z in covered) and zones:
                return True
    return False
