-- name: search_policy_docs
-- description: Policy documents that mention a text, with their page count and the pages where it
--   appears; without a query, every document.
-- levels: 2 3 4
-- source: none
-- render: document_search
-- page_size: 10
-- param: query (string, maxLength=200) Text to look for (case-insensitive), e.g. a phrase or a
--   policy id.
select
    doc_id,
    title,
    text,
    ['policy_docs:' || doc_id] as source_rows
from policy_docs
where world_id = $world_id
    and ($query is null or contains(lower(text), lower($query)))
order by position  -- the loader numbers rows: unique per world
