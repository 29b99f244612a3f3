-- Each instance's required participants, with the world they live in.
select
    rp.instance_id,
    i.world_id,
    rp.person_id
from requirement_participants as rp
join instances as i on i.instance_id = rp.instance_id
