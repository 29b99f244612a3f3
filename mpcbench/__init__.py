"""MPCBench. The package is also the `verifiers` taskset `mpcbench` (`vf-eval mpcbench`, with the
`train` extra): verifiers reads `__all__` for the taskset and its harness, which are imported from
`integrations.verifiers_env` only when asked for (every layer imports this package, and none of
them may import integrations)."""

__version__ = "0.1.0"
__all__ = ["MPCBenchTaskset", "MPCBenchHarness", "MPCBenchEnv"]


def __getattr__(name: str):
    if name in __all__:
        import importlib
        return getattr(importlib.import_module("mpcbench.integrations.verifiers_env"), name)
    raise AttributeError(f"module 'mpcbench' has no attribute {name!r}")
