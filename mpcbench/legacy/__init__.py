"""The legacy benchmark (`archive/`, seeds/mpcbench-legacy.md), kept runnable: LLM-generated
workplace sources, a SQL tool backend over them, agent run logs and a two-axis LLM judge, plus
`judge-audit`, which measures that judge against the SQL oracle of MPCBench.

One module per pipeline step, in the order data flows:

    archive    the human-authored inputs (scenarios, tasks, configs), checked as read
    generate   scenario -> world state -> six sources (mock.py: without a model)
    warehouse  the sources as legacy_* tables and staging views
    backend    the ToolBackend: one parameterized SQL file per tool
    agents     the model's tool loop, and the offline scripted and bad agents
    run        one agent on one task -> the run log
    judge      run log + task -> judge input -> two scores
    pipeline   tasks x agent models x judge models -> scores.parquet
    audit      the legacy judge on MPCBench episodes, against F1 and exact match

`project.py` is the one place that imports from the rest of MPCBench.
"""
