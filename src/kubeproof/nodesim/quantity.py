"""Kubernetes resource quantities (`250m`, `64Mi`, `1.5Gi`, `2`) as numbers."""

from decimal import Decimal, InvalidOperation

_SUFFIX = {
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "E": 10**18,
}


def parse(value: str | int | float) -> Decimal:
    """`parse("64Mi") == 67108864`, `parse("250m") == Decimal("0.25")`."""
    text = str(value).strip()
    for suffix in sorted(_SUFFIX, key=len, reverse=True):
        if text.endswith(suffix) and text[: -len(suffix)]:
            try:
                return Decimal(text[: -len(suffix)]) * Decimal(_SUFFIX[suffix])
            except InvalidOperation:
                break
    try:
        return Decimal(text)
    except InvalidOperation:
        raise ValueError(f"not a quantity: {value!r}") from None
