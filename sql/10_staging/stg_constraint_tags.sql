-- The thread tags that constrain time (deadline, ban, ooo), typed. All of them apply.
-- An ooo tag names its person by id (level 2) or by full name (level 3, resolved through the directory).
with tags as (
    select * from stg_thread_tags
    where tag_type in ('deadline', 'ban', 'ooo')
),

people as (
    select world_id, person_id, name from people
)

select
    t.world_id,
    t.project_id,
    t.tag_id,
    t.message_id,
    t.tag_type,
    cast(json_extract_string(t.params, '$.end_by') as timestamp) as end_by,
    cast(json_extract_string(t.params, '$.start') as timestamp) as starts_at,
    cast(json_extract_string(t.params, '$.end') as timestamp) as ends_at,
    coalesce(json_extract_string(t.params, '$.person_id'), p.person_id) as person_id
from tags as t
left join people as p
    on p.world_id = t.world_id
    and p.name = json_extract_string(t.params, '$.person_name')
