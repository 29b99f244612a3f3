-- The need of each instance: the raw rows that the scripted solver's minimal reading returned
-- (grading_reference_reads), restricted to the sources the instance needs. A row returned by a
-- tool of a source the level requires (level_sources) is kept when the necessity check says the
-- instance needs that source (oracle_necessity.is_needed); a row returned by a tool outside the
-- necessity rule (the directory, and the tools of no source, which list ids or find pages:
-- list_threads, search_policy_docs, ...) is kept: the solver reads them only to reach the rest.
-- An instance without a reference (the scripted solver failed on it) has no need.
-- column: instance_id  The instance.
-- column: row_id  A raw row the task needs read, `<table>:<key>` (e.g. events:ev-3fa9c2).
select distinct
    r.instance_id,
    r.row_id
from grading_reference_reads as r
left join oracle_necessity as n on n.instance_id = r.instance_id and n.source = r.source
where coalesce(n.is_needed, true)  -- no necessity row: a source outside the rule, or no source
order by r.instance_id, r.row_id
