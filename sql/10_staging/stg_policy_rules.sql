-- Policy rules with typed parameters. Times of day become minutes after midnight.
with rules as (
    select * from policy_rules
)

select
    world_id,
    policy_id,
    rule_id,
    rule_type,
    cast(split_part(json_extract_string(params, '$.start'), ':', 1) as integer) * 60
        + cast(split_part(json_extract_string(params, '$.start'), ':', 2) as integer) as start_minute,
    cast(split_part(json_extract_string(params, '$.end'), ':', 1) as integer) * 60
        + cast(split_part(json_extract_string(params, '$.end'), ':', 2) as integer) as end_minute,
    cast(json_extract(params, '$.minutes') as integer) as minutes,
    cast(json_extract(params, '$.hours') as integer) as hours,
    cast(json_extract(params, '$.count') as integer) as max_count,
    cast(json_extract(params, '$.weekdays') as varchar[]) as weekdays,
    cast(json_extract(params, '$.days') as varchar[]) as days   -- working_hours: the working days
from rules
