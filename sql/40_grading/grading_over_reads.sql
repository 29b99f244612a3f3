-- One row per personal row an episode read outside its instance's scope (docs/privacy.md, "Need
-- by scope"). Organisational and navigation rows never count: policies, their rules and handbook
-- pages, projects, thread lists, rooms and their bookings. Personal rows count unless the task's
-- scope holds them:
--   events                   a participant's, overlapping the window with a slack of one day each
--                            side: [window_start - 1 day, window_end + 2 days)
--   event_series, event_series_exceptions, person_hours   a participant's
--   messages                 in a thread of the instance's project
--   people (the directory)   a participant, an author of a message of the project's threads, or
--                            someone sharing a first or last name with a participant (a search by
--                            the name the task gives finds them)
-- Episodes whose journal predates lineage (not traced) have none.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: row_id  The personal row read, `<table>:<key>`.
-- column: source_table  Its table.
-- column: is_shown  A call that returned it printed its text (a title or a message: grading_rows_read).
with episodes as (
    select e.instance_id, e.trial, i.world_id, i.project_id, i.window_start, i.window_end
    from grading_privacy_episodes as e
    join instances as i on i.instance_id = e.instance_id
    where e.traced
),

reads as (
    select
        r.instance_id,
        r.trial,
        r.row_id,
        split_part(r.row_id, ':', 1) as source_table,
        split_part(substr(r.row_id, strpos(r.row_id, ':') + 1), '@', 1) as row_key,
        bool_or(r.is_shown) as is_shown
    from grading_rows_read as r
    group by r.instance_id, r.trial, r.row_id
),

participants as (
    select e.instance_id, e.world_id, rp.person_id, p.name
    from episodes as e
    join requirement_participants as rp on rp.instance_id = e.instance_id
    join people as p on p.world_id = e.world_id and p.person_id = rp.person_id
    group by all
),

project_messages as (
    select e.instance_id, m.message_id, m.author_id
    from episodes as e
    join threads as t on t.world_id = e.world_id and t.project_id = e.project_id
    join messages as m on m.world_id = t.world_id and m.thread_id = t.thread_id
    group by all
),

in_scope as (
    select r.instance_id, r.trial, r.row_id
    from reads as r
    join episodes as e on e.instance_id = r.instance_id and e.trial = r.trial
    join events as v on v.world_id = e.world_id and v.event_id = r.row_key
    join participants as p on p.instance_id = r.instance_id and p.person_id = v.person_id
    where r.source_table = 'events'
        and v.starts_at < cast(e.window_end as timestamp) + interval 2 day
        and v.ends_at > cast(e.window_start as timestamp) - interval 1 day
    union
    select r.instance_id, r.trial, r.row_id
    from reads as r
    join episodes as e on e.instance_id = r.instance_id and e.trial = r.trial
    join event_series as s on s.world_id = e.world_id and s.series_id = r.row_key
    join participants as p on p.instance_id = r.instance_id and p.person_id = s.person_id
    where r.source_table in ('event_series', 'event_series_exceptions')
    union
    select r.instance_id, r.trial, r.row_id
    from reads as r
    join participants as p on p.instance_id = r.instance_id and p.person_id = r.row_key
    where r.source_table = 'person_hours'
    union
    select r.instance_id, r.trial, r.row_id
    from reads as r
    join project_messages as m on m.instance_id = r.instance_id and m.message_id = r.row_key
    where r.source_table = 'messages'
    union
    select r.instance_id, r.trial, r.row_id
    from reads as r
    join episodes as e on e.instance_id = r.instance_id and e.trial = r.trial
    join people as d on d.world_id = e.world_id and d.person_id = r.row_key
    where r.source_table = 'people' and (
        exists (select 1 from participants as p
                where p.instance_id = r.instance_id
                    and (p.person_id = d.person_id
                         or split_part(p.name, ' ', 1) = split_part(d.name, ' ', 1)
                         or split_part(p.name, ' ', -1) = split_part(d.name, ' ', -1)))
        or exists (select 1 from project_messages as m
                   where m.instance_id = r.instance_id and m.author_id = d.person_id))
)

select r.instance_id, r.trial, r.row_id, r.source_table, r.is_shown
from reads as r
join episodes as e on e.instance_id = r.instance_id and e.trial = r.trial
left join in_scope as s on s.instance_id = r.instance_id and s.trial = r.trial and s.row_id = r.row_id
where r.source_table in ('events', 'event_series', 'event_series_exceptions', 'person_hours', 'messages', 'people')
    and s.row_id is null
order by r.instance_id, r.trial, r.row_id
