"""dcsim-plot's subcommands. Every module of this package that defines register(subparsers)
adds its own subcommands (one module per concern: basic plots, each policy family's figures,
run comparisons, sweeps), so a new figure never edits another module."""

import importlib
import pkgutil


def register_all(sub):
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name == "common":
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "register"):
            module.register(sub)
