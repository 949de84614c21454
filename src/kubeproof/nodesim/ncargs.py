"""The command line of busybox's `nc`, read as nc_main reads it: for the simulated `nc`
of `kubectl exec` (shell.py) and for the choice a script's `nc` makes between netsim and
the real applet (realshell.py)."""

# busybox networking/nc_bloaty.c nc_main (the netcat-1.10-compatible nc, NC_110_COMPAT):
# getopt32 "np:s:uvw:+" "lk" "i:o:z", at most two operands, -v counted; `-e PROG` ends
# the options (the rest is PROG's)
NC_VALUED = set("pswio")
NC_FLAGS = set("nuvlkz")


def parse_nc(args: list[str]) -> tuple[list[str], int, str | None]:
    """(operands, how many -v, the usage error if any) of an nc command line."""
    operands: list[str] = []
    verbose = 0
    words = iter(args)
    for word in words:
        if word == "-e":
            break
        if word.startswith("-") and len(word) > 1 and not operands:
            for i, letter in enumerate(word[1:], 1):
                if letter in NC_VALUED:
                    if i == len(word) - 1 and next(words, None) is None:
                        return operands, verbose, f"option requires an argument -- '{letter}'"
                    break
                if letter not in NC_FLAGS:
                    return operands, verbose, f"invalid option -- '{letter}'"
                verbose += letter == "v"
            continue
        operands.append(word)
    return operands, verbose, None if len(operands) == 2 else ""


# the usage's first lines (nc_bloaty.c's //usage:), without the banner naming the build
NC_USAGE = (
    "Usage: nc [OPTIONS] HOST PORT  - connect\nnc [OPTIONS] -l -p PORT [HOST] [PORT]  - listen\n"
)
