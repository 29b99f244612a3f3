"""What a run records about where it came from: the endpoint's host only, the build's content
hash, the hash of the SQL, and the versions of the engines."""

from __future__ import annotations

import hashlib
import platform
from urllib.parse import urlsplit

import duckdb
import openai
import polars as pl

from .. import __version__
from ..grading.scoring import GRADER_VERSION
from ..warehouse import db


def url_host(url: str | None) -> str | None:
    """host[:port] of a URL: no scheme, user, password, path or query (they may hold secrets)."""
    if not url:
        return None
    parts = urlsplit(url if "//" in url else f"//{url}")
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{host}:{port}" if port else host


def build_content_hash(con: duckdb.DuckDBPyConnection) -> str:
    """sha256 over every raw table's rows in a canonical order: equal data, equal hash."""
    digest = hashlib.sha256()
    for table in db.RAW_TABLES:
        count, md5 = con.execute(
            f"select count(*), md5(coalesce(string_agg(t::varchar, chr(10) order by t::varchar), '')) "
            f"from {table} as t").fetchall()[0]
        digest.update(f"{table}:{count}:{md5}\n".encode())
    return digest.hexdigest()


def sql_hash() -> str:
    """sha256 of every .sql file the oracle, the tools and the grader use."""
    digest = hashlib.sha256()
    for path in sorted(db.SQL_DIR.rglob("*.sql")):
        digest.update(str(path.relative_to(db.SQL_DIR)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def versions() -> dict:
    return {"mpcbench": __version__, "grader": GRADER_VERSION, "python": platform.python_version(),
            "duckdb": duckdb.__version__, "polars": pl.__version__, "openai": openai.__version__}
