-- name: read_policy_doc
-- description: One page (10 paragraphs) of a policy document: its text, with any tags.
-- levels: 2 3 4
-- source: policy
-- render: document
-- page_size: 10
-- not_found: No policy document has doc_id {doc_id}; search_policy_docs lists them.
-- param: doc_id (string, required, maxLength=40) The document's id, e.g. doc-1.
-- param: page (integer, default=1, minimum=1, maximum=1000) Which page, from 1.
select
    doc_id,
    title,
    text,
    ['policy_docs:' || doc_id] as source_rows
from policy_docs
where world_id = $world_id and doc_id = $doc_id
