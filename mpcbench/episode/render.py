"""How a tool's rows become the text the agent reads: JSON, a handbook page, a search result, a
Slack-like transcript or a Markdown table (a tool's `render` header picks one).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import duckdb

from ..timestamps import TIME_FORMAT
from .toolfiles import PAGING_PARAMS, Tool, ToolError


def _plain(value) -> object:
    """A DuckDB value as plain JSON data: timestamps as YYYY-MM-DDTHH:MM, dates as YYYY-MM-DD."""
    if isinstance(value, dt.datetime):
        return value.strftime(TIME_FORMAT)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):   # a struct (list_recurring_events' exceptions)
        return {key: _plain(item) for key, item in value.items()}
    return value


def _converter(type_name: str):
    """How to read a column of this DuckDB type (None: as it comes)."""
    if type_name == "JSON":
        return lambda value: None if value is None else json.loads(value)
    if type_name.startswith(("TIMESTAMP", "DATE")) or (type_name.endswith("[]") and type_name != "VARCHAR[]"):
        return _plain   # a list of strings (features, a row's source_rows) is plain already
    return None


def fetch_rows(cursor: duckdb.DuckDBPyConnection) -> list[dict]:
    names = [d[0] for d in cursor.description]
    convert = [(i, f) for i, d in enumerate(cursor.description) if (f := _converter(str(d[1])))]
    rows = []
    for row in cursor.fetchall():
        if convert:
            values = list(row)
            for i, f in convert:
                values[i] = f(values[i])
            rows.append(dict(zip(names, values)))
        else:
            rows.append(dict(zip(names, row)))
    return rows


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@dataclasses.dataclass
class Result:
    """What a query found: its rows and, for a paged tool, how many there are in all; and the
    raw rows they were derived from (their `source_rows`, which no renderer sees)."""
    rows: list[dict]
    total: int | None = None
    source_rows: tuple[str, ...] = ()


def render_json(tool: Tool, result: Result, args: dict) -> str:
    if tool.items is None:
        return _dumps(result.rows[0])
    out = {name: value for name, value in args.items() if name not in PAGING_PARAMS and value is not None}
    items = [{k: v for k, v in row.items() if k != "total"} for row in result.rows]
    if tool.paging == "cursor":
        end = args["cursor"] + len(items)
        out["total"] = result.total
        out[tool.items] = items
        out["remaining"] = max(result.total - end, 0)
        out["next_cursor"] = end if end < result.total else None
    else:
        out[tool.items] = items
    return _dumps(out)


def paragraphs(text: str) -> list[str]:
    return [part.strip() for part in text.split("\n\n") if part.strip()]


def page_count(n: int, page_size: int) -> int:
    return max(1, -(-n // page_size))


def _page_size(tool: Tool) -> int:
    """A paged tool's rows (a document's paragraphs) per page: toolfiles requires one of it."""
    if tool.page_size is None:
        raise ValueError(f"{tool.name} is rendered in pages but has no page_size")
    return tool.page_size


def render_document(tool: Tool, result: Result, args: dict) -> str:
    size = _page_size(tool)
    doc, page = result.rows[0], args["page"]
    parts = paragraphs(doc["text"])
    pages = page_count(len(parts), size)
    if page > pages:
        raise ToolError(f"{doc['doc_id']} has {plural(pages, 'page')}; page {page} does not exist")
    shown = parts[(page - 1) * size: page * size]
    head = f"{doc['title']} ({doc['doc_id']}) · page {page} of {pages}"
    foot = (f"[{plural(pages - page, 'more page')}: read_policy_doc(doc_id=\"{doc['doc_id']}\", page={page + 1})]"
            if page < pages else "[end of document]")
    return "\n\n".join([head, *shown, foot])


def render_document_search(tool: Tool, result: Result, args: dict) -> str:
    size = _page_size(tool)
    query = (args.get("query") or "").lower()
    documents = []
    for doc in result.rows:
        parts = paragraphs(doc["text"])
        hits = sorted({i // size + 1 for i, part in enumerate(parts) if query in part.lower()})
        if hits:  # a match across a paragraph break is no match
            documents.append({"doc_id": doc["doc_id"], "title": doc["title"],
                              "pages": page_count(len(parts), size), "matching_pages": hits})
    out = {"query": args["query"]} if args.get("query") is not None else {}
    return _dumps({**out, "total": len(documents), "documents": documents})


def _stamp(ts: str) -> str:
    return dt.datetime.fromisoformat(ts).strftime("%a %Y-%m-%d %H:%M")


def render_transcript(tool: Tool, result: Result, args: dict) -> str:
    size = _page_size(tool)
    page, total, messages = args["page"], result.total, result.rows
    if total is None:
        raise ValueError(f"{tool.name} is rendered in pages but its result has no total")
    pages = page_count(total, size)
    first = (page - 1) * size + 1
    lines = [f"thread {args['thread_id']} · messages {first}–{first + len(messages) - 1} of {total} · "
             f"page {page} of {pages}", ""]
    for m in messages:
        lines.append(f"[{_stamp(m['ts'])}] {m['author']} ({m['message_id']})")
        lines.extend(f"  {part}" for part in m["text"].splitlines() or [""])
        lines.append("")
    left = total - (first - 1) - len(messages)
    lines.append(f"[{plural(left, 'more message')}: read_thread(thread_id=\"{args['thread_id']}\", page={page + 1})]"
                 if left > 0 else "[end of thread]")
    return "\n".join(lines)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "—"
    return str(value).replace("|", "\\|").replace("\n", " ")


def render_markdown(tool: Tool, result: Result, args: dict) -> str:
    rows = result.rows
    if not rows:
        return tool.empty or "No rows."
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(_cell(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + f"\n\n{plural(len(rows), 'row')}."


RENDER = {"json": render_json, "document": render_document, "document_search": render_document_search,
          "transcript": render_transcript, "markdown": render_markdown}
