-- Mail messages with their thread's subject, the sender's name and a typed time.
with messages as (
    select * from legacy_gmail_messages
),
threads as (
    select scenario_id, thread_id, subject from legacy_gmail_threads
),
people as (
    select * from stg_legacy_people
)
select
    m.scenario_id,
    m.message_id,
    m.thread_id,
    t.subject,
    m.position,
    m.sender,
    coalesce(p.name || ' <' || m.sender || '>', m.sender) as sender_display,
    m.recipients,
    m.cc,
    cast(m.sent as timestamp) as sent_at,
    m.body
from messages as m
join threads as t on t.scenario_id = m.scenario_id and t.thread_id = m.thread_id
left join people as p on p.scenario_id = m.scenario_id and p.email = lower(m.sender)
