-- Everyone a source names by email, with the best display name: the address book's, else
-- Slack's. Sources show people by name through this view.
with contacts as (
    select scenario_id, email, name from legacy_contacts
),
slack_users as (
    select scenario_id, email, name from legacy_slack_users
),
named as (
    select scenario_id, lower(email) as email, name, 1 as preference from contacts
    union all
    select scenario_id, lower(email) as email, name, 2 as preference from slack_users
)
select scenario_id, email, name
from named
qualify row_number() over (partition by scenario_id, email order by preference, name) = 1
