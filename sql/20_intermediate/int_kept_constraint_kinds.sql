-- For the necessity check: which constraint kinds still apply when one source is removed
-- (dropped_source = 'none' is the full problem), as a bit mask over constraint_kinds.bit.
-- Removing the calendar drops every constraint computed from events; removing the policy keeps
-- its working hours, which frame the grid; removing threads drops deadline, ban and ooo;
-- removing rooms changes no violation here (the room join is skipped instead, in
-- int_scenario_added_candidates).
with scenarios as (
    select * from (values ('none'), ('calendar'), ('policy'), ('threads'), ('rooms')) as s(dropped_source)
)

select
    s.dropped_source,
    sum(k.bit) as kept_mask
from scenarios as s
cross join constraint_kinds as k
where not (s.dropped_source = 'calendar' and k.uses_calendar)
    and not (s.dropped_source = 'policy' and k.source = 'policy' and not k.is_frame)
    and not (s.dropped_source = 'threads' and k.source = 'threads')
group by s.dropped_source
