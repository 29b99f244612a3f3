-- A candidate that ends after a deadline said in one of the project's threads.
select
    g.instance_id,
    g.starts_at,
    'deadline' as constraint_kind,
    t.tag_id as constraint_id,
    'messages' as source_table,
    t.message_id as source_row_id
from int_framed_grid as g
join stg_instances as i on i.instance_id = g.instance_id
join stg_constraint_tags as t
    on t.world_id = i.world_id and t.project_id = i.project_id and t.tag_type = 'deadline'
where g.ends_at > t.end_by
