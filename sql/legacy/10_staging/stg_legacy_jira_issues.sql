-- Jira issues with typed dates, people by name, and their comments in order (as JSON).
with issues as (
    select * from legacy_jira_issues
),
people as (
    select * from stg_legacy_people
),
comments as (
    select
        c.scenario_id,
        c.issue_key,
        to_json(list(struct_pack(
            author := coalesce(p.name, c.author_email),
            created := c.created,
            body := c.body
        ) order by c.position)) as comments,
        count(*) as comment_count
    from legacy_jira_comments as c
    left join people as p on p.scenario_id = c.scenario_id and p.email = lower(c.author_email)
    group by c.scenario_id, c.issue_key
)
select
    i.scenario_id,
    i.issue_key,
    i.project_key,
    i.summary,
    i.description,
    i.status,
    i.priority,
    coalesce(i.assignee_name, a.name, i.assignee_email) as assignee,
    coalesce(r.name, i.reporter_email) as reporter,
    cast(i.created as timestamp) as created_at,
    cast(i.updated as timestamp) as updated_at,
    cast(i.due_date as date) as due_date,
    i.labels,
    coalesce(c.comments, cast('[]' as json)) as comments,
    coalesce(c.comment_count, 0) as comment_count
from issues as i
left join people as a on a.scenario_id = i.scenario_id and a.email = lower(i.assignee_email)
left join people as r on r.scenario_id = i.scenario_id and r.email = lower(i.reporter_email)
left join comments as c on c.scenario_id = i.scenario_id and c.issue_key = i.issue_key
