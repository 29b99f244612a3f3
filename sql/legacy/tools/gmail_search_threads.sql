-- name: gmail_search_threads
-- description: Gmail.search_threads - find mail threads whose subject, sender or any message
--   body contains a text (case-insensitive), latest activity first. Each gives the thread id,
--   subject, senders, message count, last message time and the start of the latest message.
-- render: json
-- items: threads
-- param: query (string, required, minLength=2, maxLength=200) Text to look for.
-- param: limit (integer, default=10, minimum=1, maximum=50) Threads per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
with messages as (
    select * from stg_legacy_gmail_messages where scenario_id = $scenario_id
),
matching as (
    select distinct thread_id
    from messages
    where contains(lower(subject), lower($query))
        or contains(lower(body), lower($query))
        or contains(lower(sender_display), lower($query))
),
threads as (
    select
        m.thread_id,
        any_value(m.subject) as subject,
        list(distinct m.sender_display order by m.sender_display) as senders,
        count(*) as messages,
        max(m.sent_at) as last_message_at,
        left(arg_max(m.body, m.sent_at), 200) as latest_snippet
    from messages as m
    join matching using (thread_id)
    group by m.thread_id
)
select *, count(*) over () as total
from threads
order by last_message_at desc, thread_id
limit $limit offset $cursor
