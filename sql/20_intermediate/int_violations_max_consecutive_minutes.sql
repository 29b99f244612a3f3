-- A candidate that would give a participant a run of back-to-back meetings longer than the
-- policy's `minutes`. A participant's blocking events chain into blocks where they overlap or
-- touch (one ends exactly when the next starts); the candidate's run is the candidate joined with
-- every block it overlaps or touches, from the earliest start to the latest end, the candidate
-- itself included. A candidate longer than `minutes` breaks the rule for every participant; a
-- shorter one only with a block it touches, so only those pairs are joined and grouped. A block
-- is matched on each day from the day before its start to the day of its end (a candidate lasts
-- less than a day), so the range join stays an equi-join on the day.
with events as (
    select world_id, person_id, starts_at, ends_at from stg_blocking_events
),

ordered as (
    select
        world_id,
        person_id,
        starts_at,
        ends_at,
        max(ends_at) over (
            partition by world_id, person_id order by starts_at, ends_at
            rows between unbounded preceding and 1 preceding
        ) as previous_end
    from events
),

numbered as (
    select
        world_id,
        person_id,
        starts_at,
        ends_at,
        sum(case when previous_end is null or starts_at > previous_end then 1 else 0 end) over (
            partition by world_id, person_id order by starts_at, ends_at rows unbounded preceding
        ) as block_number
    from ordered
),

blocks as (
    select world_id, person_id, block_number, min(starts_at) as starts_at, max(ends_at) as ends_at
    from numbered
    group by world_id, person_id, block_number
),

block_days as (
    select b.world_id, b.person_id, b.starts_at, b.ends_at, cast(d.day_start as date) as day
    from blocks as b,
        unnest(generate_series(
            cast(cast(b.starts_at as date) as timestamp) - interval '1' day,
            cast(cast(b.ends_at as date) as timestamp), interval '1' day
        )) as d(day_start)
),

rule_instances as (
    select i.instance_id, i.world_id, i.duration_minutes, r.rule_id, r.minutes
    from stg_instances as i
    join stg_policy_rules as r
        on r.world_id = i.world_id and r.policy_id = i.policy_id and r.rule_type = 'max_consecutive_minutes'
),

pairs as (
    select
        g.instance_id,
        g.world_id,
        g.day,
        g.starts_at,
        g.ends_at,
        ri.rule_id,
        ri.minutes,
        ri.duration_minutes,
        p.person_id
    from rule_instances as ri
    join int_framed_grid as g on g.instance_id = ri.instance_id
    join stg_participants as p on p.instance_id = ri.instance_id
),

runs_with_blocks as (
    select
        g.instance_id,
        g.starts_at,
        g.rule_id,
        g.minutes,
        g.person_id,
        least(g.starts_at, min(b.starts_at)) as run_start,
        greatest(g.ends_at, max(b.ends_at)) as run_end
    from pairs as g
    join block_days as b
        on b.world_id = g.world_id and b.person_id = g.person_id and b.day = g.day
        and b.starts_at <= g.ends_at and g.starts_at <= b.ends_at
    where g.duration_minutes <= g.minutes
    group by g.instance_id, g.starts_at, g.ends_at, g.rule_id, g.minutes, g.person_id
),

violating as (
    select instance_id, starts_at, rule_id, person_id from pairs where duration_minutes > minutes
    union all
    select instance_id, starts_at, rule_id, person_id from runs_with_blocks
    where run_end > run_start + interval '1' minute * minutes
)

select
    instance_id,
    starts_at,
    'max_consecutive_minutes' as constraint_kind,
    rule_id as constraint_id,
    'people' as source_table,
    person_id as source_row_id
from violating
