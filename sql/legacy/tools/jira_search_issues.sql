-- name: jira_search_issues
-- description: Jira.search_issues - issues filtered by any of: a text in the key, summary or
--   description; a project key; a status (To Do, In Progress, In Review, Blocked, Done); an
--   assignee (part of a name). Highest priority first. Jira.get_issue gives the comments.
-- render: json
-- items: issues
-- param: query (string, maxLength=200) Text in the key, summary or description.
-- param: project (string, maxLength=20) A project key, e.g. AUR.
-- param: status (string, maxLength=20) A status, e.g. Blocked.
-- param: assignee (string, maxLength=80) Part of the assignee's name.
-- param: limit (integer, default=20, minimum=1, maximum=50) Issues per page.
-- param: cursor (integer, default=0, minimum=0, maximum=100000) Where to continue: the
--   next_cursor of the previous page.
select
    issue_key as key,
    project_key as project,
    summary,
    status,
    priority,
    assignee,
    due_date,
    updated_at as updated,
    comment_count as comments,
    count(*) over () as total
from stg_legacy_jira_issues
where scenario_id = $scenario_id
    and ($query is null
        or contains(lower(issue_key), lower($query))
        or contains(lower(summary), lower($query))
        or contains(lower(coalesce(description, '')), lower($query)))
    and ($project is null or lower(project_key) = lower($project))
    and ($status is null or lower(status) = lower($status))
    and ($assignee is null or contains(lower(coalesce(assignee, '')), lower($assignee)))
order by
    case priority when 'Highest' then 0 when 'High' then 1 when 'Medium' then 2 else 3 end,
    issue_key
limit $limit offset $cursor
