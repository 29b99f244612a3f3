-- Events that block a calendar: confirmed and tentative ones (cancelled events do not).
select
    world_id,
    event_id,
    person_id,
    starts_at,
    ends_at
from events
where status in ('confirmed', 'tentative')
