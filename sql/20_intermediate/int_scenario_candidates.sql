-- Feasible candidates in each scenario of the necessity check (dropped_source = 'none' is the
-- full problem): removing a source only adds candidates, so a scenario's are the full problem's
-- (int_candidates) and those it adds (int_scenario_added_candidates). At level 3 a start needs a
-- room, except when the rooms are the removed source (room_id is then null).
select
    s.dropped_source,
    c.instance_id,
    c.starts_at,
    c.ends_at,
    case when s.dropped_source = 'rooms' then null else c.room_id end as room_id
from int_candidates as c
cross join int_kept_constraint_kinds as s

union all

select
    a.dropped_source,
    a.instance_id,
    a.starts_at,
    a.starts_at + interval '1' minute * i.duration_minutes as ends_at,
    a.room_id
from int_scenario_added_candidates as a
join stg_instances as i on i.instance_id = a.instance_id
