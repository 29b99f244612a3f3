"""The dataset's files (docs/dataset.md) and the JSON Schemas shipped with the package.

    worlds/world_level{1,2,3,4}.json        one world per level
    instances/instances_level{1,2,3,4}.jsonlone instance per line
    oracles/oracle_level{1,2,3,4}.jsonl     gold answers, joined by instance_id
    schema/*.schema.json                    the JSON Schemas (`mpcbench/dataset/schema/`)
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema

SCHEMA_DIR = Path(__file__).resolve().parent / "schema"
SCHEMA_NAMES = ("world", "instance", "oracle")


def world_file(level: int) -> str:
    return f"worlds/world_level{level}.json"


def instances_file(level: int) -> str:
    return f"instances/instances_level{level}.jsonl"


def oracle_file(level: int) -> str:
    return f"oracles/oracle_level{level}.jsonl"


@cache
def load_schema(name: str) -> dict:
    """The JSON Schema `name` (world, instance or oracle) shipped in the package."""
    return json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


def _inline_refs(node: object, defs: dict) -> object:
    """The schema with every local `$ref` replaced by its definition (the schemas are not
    recursive): the same verdicts, validated about twice as fast as by reference lookup."""
    if isinstance(node, list):
        return [_inline_refs(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    rest = {key: _inline_refs(value, defs) for key, value in node.items() if key not in ("$ref", "$defs")}
    if "$ref" not in node:
        return rest
    target = _inline_refs(defs[node["$ref"].removeprefix("#/$defs/")], defs)
    return {"allOf": [target], **rest} if rest else target


@cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = load_schema(name)
    inlined = _inline_refs(schema, schema.get("$defs", {}))
    assert isinstance(inlined, dict)   # an object with its refs inlined is an object
    return jsonschema.Draft202012Validator(inlined)
