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
import json
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
    # caddyfile.ServerBlock.Tokens: name -> every token of every use, the name's own included
    tokens: dict[str, list[Token]] = field(default_factory=dict)


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


def parse(
    text: str, filename: str = "/etc/coredns/Corefile", validate: bool = True
) -> list[ServerBlock]:
    """The server blocks, or CorefileError with CoreDNS's message. `validate=False` is
    caddyfile.Parse with nil validDirectives (parse.go validDirective): any directive name
    passes, as when plugin/reload re-reads the file (reload.go parse)."""
    toks = tokens(text)
    blocks: list[ServerBlock] = []
    pos = 0

    def err(at: int, msg: str) -> CorefileError:
        line = toks[min(at, len(toks) - 1)].line if toks else 0
        return CorefileError(f"{filename}:{line} - Error during parsing: {msg}")

    while pos < len(toks):
        keys: list[str] = []
        line, more = toks[pos].line, False
        # parse.go addresses: keys to the line's end, a trailing comma continues them
        while pos < len(toks) and toks[pos].text != "{" and (more or toks[pos].line == line):
            key = toks[pos].text
            more = key.endswith(",")
            if key.rstrip(","):
                keys.append(key[:-1] if more else key)
            line = toks[pos].line
            pos += 1
        if more and pos >= len(toks):
            raise err(pos, "Unexpected EOF")
        block = ServerBlock(keys)
        braced = pos < len(toks) and toks[pos].text == "{"
        pos += braced
        while pos < len(toks) and not (braced and toks[pos].text == "}"):
            name, line = toks[pos].text, toks[pos].line
            if validate and name not in PLUGINS:
                raise err(pos, f"Unknown directive '{name}'")
            used = [toks[pos]]
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
                used.append(toks[pos])
                pos += 1
            if nesting:
                raise err(pos, "Unexpected EOF")
            block.directives.setdefault(name, []).append(args)
            block.tokens.setdefault(name, []).extend(used)
        if braced:
            # closeCurlyBrace checks the current token: at EOF that is the last one, so a
            # block whose last directive swallowed its `}` still closes (parse.go:425-430)
            if pos >= len(toks) and toks[-1].text != "}":
                last = toks[-1]
                raise CorefileError(
                    f"{filename}:{last.line} - Syntax error: Unexpected token "
                    f"'{last.text}', expecting '}}'"
                )
            pos += 1
        if block.keys:  # parse.go parseAll keeps blocks with addresses only
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
    """plugin/reload's `Running configuration SHA512 = %x` (reload.go:76-82): the SHA-512 of
    json.Marshal of the parsed server blocks (caddyfile.ServerBlock: Keys, and Tokens by
    directive, sorted, each token {File, Line, Text}; File is empty for the main file,
    lexer.go:144), not of the file's bytes. kubeadm's Corefile gives 1b226df7…3b03b."""
    blocks = parse(text, validate=False)
    doc = [
        {
            "Keys": block.keys,
            "Tokens": {
                name: [{"File": "", "Line": t.line, "Text": t.text} for t in toks]
                for name, toks in sorted(block.tokens.items())
            },
        }
        for block in blocks
    ]
    encoded = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
    # encoding/json escapes HTML characters and the two JavaScript line separators
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        encoded = encoded.replace(ch, esc)
    encoded = encoded.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return hashlib.sha512(encoded.encode()).hexdigest()
