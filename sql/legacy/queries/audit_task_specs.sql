-- What the author of an MPCBench instance knows, for the judge audit's answer requirements:
-- the prompt, the window, and the resolved requirements (never the gold answer).
with instances as (
    select * from instances where list_contains($instance_ids, instance_id)
),
participants as (
    select
        rp.instance_id,
        list(p.name || ' (' || p.person_id || ')' order by p.person_id) as participants
    from requirement_participants as rp
    join instances as i on i.instance_id = rp.instance_id
    join people as p on p.world_id = i.world_id and p.person_id = rp.person_id
    group by rp.instance_id
)
select
    i.instance_id,
    i.level,
    i.prompt,
    i.window_start,
    i.window_end,
    i.project_id,
    r.duration_minutes,
    r.n,
    r.policy_id,
    r.tie_break,
    r.has_room_requirement,
    p.participants
from instances as i
join requirements as r on r.instance_id = i.instance_id
left join participants as p on p.instance_id = i.instance_id
order by i.instance_id
