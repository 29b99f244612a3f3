-- name: gmail_read_thread
-- description: Gmail.read_thread - every message of one mail thread, oldest first, with sender,
--   recipients, time and the full body.
-- render: json
-- items: messages
-- not_found: There is no mail thread {thread_id}; Gmail.search_threads finds thread ids.
-- param: thread_id (string, required, maxLength=80) The thread's id, from Gmail.search_threads.
select
    subject,
    sender_display as sender,
    recipients as "to",
    cc,
    sent_at as date,
    body
from stg_legacy_gmail_messages
where scenario_id = $scenario_id and thread_id = $thread_id
order by position, sent_at
