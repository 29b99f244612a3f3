-- The booking task (--task book): per booking episode, the state it left against the oracle's
-- first candidate. Success is exactly one live booking, at the gold start and lasting the
-- meeting's duration, with exactly the required participants, in the gold room where the level
-- books rooms (no room where it does not), one confirmation in a thread of the instance's project
-- that states the booking's start (YYYY-MM-DD and HH:MM; and its room where it has one) where the
-- level has threads (no message where it has none), and nothing else written.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: level  The instance's level.
-- column: bookings_made  Events the episode created, cancelled ones included.
-- column: live_bookings  Events it created and did not cancel.
-- column: messages_posted  Messages it posted.
-- column: booked_start_ok  Exactly one live booking, at the gold start, lasting the meeting's duration.
-- column: attendees_ok  Exactly one live booking, whose attendees are exactly the required participants.
-- column: room_ok  Exactly one live booking, in the gold room (levels with rooms) or in none (levels without).
-- column: confirmation_ok  Levels with threads: exactly one message, in any thread of the project, whose
--   text contains the one live booking's date and start time (and room id); levels without: no message.
-- column: extra_writes  Writes beyond the one booking and the one confirmation: every further event
--   created (cancelled or not) and every further message.
-- column: task_success  All of the parts, and no extra write.
with gold as (
    select g.instance_id, g.starts_at, g.room_id, i.duration_minutes, i.project_id, i.world_id
    from grading_gold as g
    join stg_instances as i on i.instance_id = g.instance_id
    where g.rank = 1
),
required as (
    select instance_id, list(person_id order by person_id) as people
    from stg_participants
    group by instance_id
),
booked as (
    select
        instance_id,
        trial,
        count(*) as made,
        count(*) filter (where not cancelled) as live,
        max(starts_at) filter (where not cancelled) as starts_at,
        max(ends_at) filter (where not cancelled) as ends_at,
        max(room_id) filter (where not cancelled) as room_id,
        max(attendees) filter (where not cancelled) as attendees
    from grading_booked_events
    group by instance_id, trial
),
posted as (
    select
        m.instance_id,
        m.trial,
        count(*) as posted,
        count(*) filter (where t.project_id = g.project_id) as in_project,
        max(m.text) as text
    from grading_posted_messages as m
    join gold as g on g.instance_id = m.instance_id
    left join threads as t on t.world_id = g.world_id and t.thread_id = m.thread_id
    group by m.instance_id, m.trial
),
parts as (
    select
        e.instance_id,
        e.trial,
        e.level,
        coalesce(b.made, 0) as bookings_made,
        coalesce(b.live, 0) as live_bookings,
        coalesce(p.posted, 0) as messages_posted,
        coalesce(b.live = 1 and b.starts_at = g.starts_at
                 and b.ends_at = g.starts_at + interval '1' minute * g.duration_minutes, false) as booked_start_ok,
        coalesce(b.live = 1 and b.attendees = r.people, false) as attendees_ok,
        coalesce(b.live = 1 and b.room_id is not distinct from g.room_id, false) as room_ok,
        case when exists (select 1 from level_sources as s where s.level = e.level and s.source = 'threads')
            then coalesce(p.posted = 1 and p.in_project = 1 and b.live = 1
                          and contains(p.text, strftime(b.starts_at, '%Y-%m-%d'))
                          and contains(p.text, strftime(b.starts_at, '%H:%M'))
                          and (b.room_id is null or contains(p.text, b.room_id)), false)
            else coalesce(p.posted, 0) = 0 end as confirmation_ok,
        greatest(coalesce(b.made, 0) - 1, 0) + greatest(coalesce(p.posted, 0) - 1, 0) as extra_writes
    from grading_booking_episodes as e
    left join gold as g on g.instance_id = e.instance_id
    left join required as r on r.instance_id = e.instance_id
    left join booked as b on b.instance_id = e.instance_id and b.trial = e.trial
    left join posted as p on p.instance_id = e.instance_id and p.trial = e.trial
)
select
    *,
    booked_start_ok and attendees_ok and room_ok and confirmation_ok and extra_writes = 0 as task_success
from parts
