__version__ = "0.1.0"


def load_environment(**kwargs):
    """MPCBench as a `verifiers` environment: `vf-eval mpcbench -a '{"level": 2}'` imports this
    package and calls this (needs `pip install 'mpcbench[train]'`; see
    mpcbench/integrations/verifiers_env.py and docs/training.md). The module is imported by name
    when called: every layer imports this package, and none of them may import integrations."""
    import importlib
    return importlib.import_module("mpcbench.integrations.verifiers_env").load_environment(**kwargs)
