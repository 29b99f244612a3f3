-- name: jira_get_issue
-- description: Jira.get_issue - one issue by key with its description, people, dates, labels
--   and every comment in order.
-- render: json
-- not_found: There is no issue {key}; Jira.search_issues finds issues.
-- param: key (string, required, maxLength=20) The issue key, e.g. AUR-101.
select
    issue_key as key,
    project_key as project,
    summary,
    description,
    status,
    priority,
    assignee,
    reporter,
    created_at as created,
    updated_at as updated,
    due_date,
    labels,
    comments
from stg_legacy_jira_issues
where scenario_id = $scenario_id and upper(issue_key) = upper($key)
