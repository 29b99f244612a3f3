-- Calendar events with typed times, the calendar's owner, and attendees as "Name <email>".
with events as (
    select * from legacy_calendar_events
),
calendars as (
    select scenario_id, calendar_id, owner_email from legacy_calendar_calendars
),
people as (
    select * from stg_legacy_people
),
attendee_rows as (
    select
        scenario_id,
        event_id,
        unnest(attendees) as email,
        generate_subscripts(attendees, 1) as position
    from events
),
attendee_names as (
    select
        a.scenario_id,
        a.event_id,
        list(coalesce(p.name || ' <' || a.email || '>', a.email) order by a.position) as attendees
    from attendee_rows as a
    left join people as p on p.scenario_id = a.scenario_id and p.email = lower(a.email)
    group by a.scenario_id, a.event_id
)
select
    e.scenario_id,
    e.event_id,
    e.calendar_id,
    c.owner_email,
    e.title,
    cast(e.starts as timestamp) as starts_at,
    cast(e.ends as timestamp) as ends_at,
    e.status,
    coalesce(o.name || ' <' || e.organizer_email || '>', e.organizer_email) as organizer,
    coalesce(n.attendees, []) as attendees,
    e.location,
    e.description
from events as e
left join calendars as c on c.scenario_id = e.scenario_id and c.calendar_id = e.calendar_id
left join people as o on o.scenario_id = e.scenario_id and o.email = lower(e.organizer_email)
left join attendee_names as n on n.scenario_id = e.scenario_id and n.event_id = e.event_id
