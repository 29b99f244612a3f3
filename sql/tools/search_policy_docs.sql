-- name: search_policy_docs
-- description: Find policy documents (handbooks, addenda) that mention a text, and the pages
--   where it appears (read them with read_policy_doc). Without a query, lists every document.
-- levels: 2 3
-- render: json
-- param: query (string, maxLength=200) Text to look for, case-insensitive: a word, a phrase or
--   an id such as a policy id.
-- Pages hold 10 paragraphs; read_policy_doc pages the same way.
with paragraphs as (
    select
        d.doc_id,
        d.title,
        d.position,
        len(string_split(d.text, chr(10) || chr(10))) as n_paragraphs,
        p.paragraph,
        p.idx
    from policy_docs as d,
        unnest(string_split(d.text, chr(10) || chr(10))) with ordinality as p(paragraph, idx)
    where d.world_id = $world_id
),

found as (
    select
        doc_id,
        title,
        position,
        cast(ceil(max(n_paragraphs) / 10) as integer) as pages,
        list(distinct cast((idx - 1) // 10 + 1 as integer) order by cast((idx - 1) // 10 + 1 as integer)) as matching_pages
    from paragraphs
    where $query is null or contains(lower(paragraph), lower($query))
    group by doc_id, title, position
)

select
    $query as query,
    count(*) as total,
    coalesce(
        list({'doc_id': doc_id, 'title': title, 'pages': pages, 'matching_pages': matching_pages}
             order by position, doc_id),
        []
    ) as documents
from found
