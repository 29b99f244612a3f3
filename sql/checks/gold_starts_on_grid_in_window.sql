-- Every gold start lies on the 15-minute grid, on a day of its instance's window, and its end is
-- its start plus the meeting's duration. Returns the gold rows that break it.
select
    a.instance_id,
    a.rank,
    a.starts_at,
    a.ends_at,
    i.window_start,
    i.window_end,
    i.duration_minutes
from oracle_answers as a
join stg_instances as i on i.instance_id = a.instance_id
where extract(minute from a.starts_at) % 15 <> 0
    or extract(second from a.starts_at) <> 0
    or cast(a.starts_at as date) not between i.window_start and i.window_end
    or a.ends_at <> a.starts_at + interval '1' minute * i.duration_minutes
order by a.instance_id, a.rank
