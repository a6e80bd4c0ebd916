"""``segapp methods``: every method and parameter with its default and range."""

from __future__ import annotations

from .common import Parser


def main(argv) -> int:
    from segapp import core

    Parser(prog="segapp methods", description="List methods and parameters.").parse_args(argv)

    def show(p):
        default = "(resolved at run time)" if p.default is None else repr(p.default)
        print(f"    {p.name:<18} {p.type.__name__:<5} default {default:<12} range {p.range_text()}")
        print(f"        {p.help}")

    for name, spec in core.METHODS.items():
        print(f"{name}: {spec.plain}\n    how: {spec.description}\n    reference: {spec.reference}")
        for p in spec.params:
            show(p)
        print()
    print("representation (every method):")
    for p in core.REPRESENTATION_PARAMS:
        show(p)
    return 0
