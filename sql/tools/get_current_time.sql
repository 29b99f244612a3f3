-- name: get_current_time
-- description: The current local date and time, its weekday and the organization's time zone.
-- levels: 1 2 3 4
-- source: none
-- render: json
-- not_found: The workspace is not available.
select
    cast($now as timestamp) as now,
    dayname(cast($now as timestamp)) as weekday,
    timezone,
    cast([] as varchar[]) as source_rows  -- lineage: the clock and the zone are no one's row
from worlds
where world_id = $world_id
