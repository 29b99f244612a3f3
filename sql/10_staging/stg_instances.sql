-- One row per instance with its resolved requirements and the window as timestamps.
with instances as (
    select * from instances
),

requirements as (
    select * from requirements
),

participant_counts as (
    select instance_id, count(*) as n_participants
    from requirement_participants
    group by instance_id
)

select
    i.instance_id,
    i.level,
    i.world_id,
    i.project_id,
    i.now,
    i.window_start,
    i.window_end,
    r.duration_minutes,
    r.n,
    r.policy_id,
    coalesce(r.tie_break, 'room_id') as tie_break,
    r.has_room_requirement,
    coalesce(r.room_min_capacity, 0) as room_min_capacity,
    coalesce(r.room_features, []) as room_features,
    r.room_building,
    coalesce(pc.n_participants, 0) as n_participants
from instances as i
join requirements as r on r.instance_id = i.instance_id
left join participant_counts as pc on pc.instance_id = i.instance_id
