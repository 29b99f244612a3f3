-- Events that block a calendar: confirmed and tentative ones (cancelled events do not), single
-- events and (level 4) the occurrences of recurring series (event_id '<series_id>@<k>').
select
    world_id,
    event_id,
    person_id,
    starts_at,
    ends_at
from events
where status in ('confirmed', 'tentative')
union all
select
    world_id,
    event_id,
    person_id,
    starts_at,
    ends_at
from stg_series_occurrences
where status in ('confirmed', 'tentative')
