-- A candidate that would give a participant a run of back-to-back meetings longer than the
-- policy's `minutes`. A participant's blocking events chain into blocks where they overlap or
-- touch (one ends exactly when the next starts); the candidate's run is the candidate joined with
-- every block it overlaps or touches, from the earliest start to the latest end, the candidate
-- itself included. A candidate longer than `minutes` breaks the rule for every participant. For
-- a shorter one only the blocks matter: per person and meeting length in use, the grid starts
-- whose candidate touches a block (from the block's start minus the length to its end) are
-- enumerated once per world with their run, then joined to the instances' candidates.
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

lengths as (
    select distinct world_id, duration_minutes from stg_instances
),

touching as (
    select
        b.world_id,
        b.person_id,
        l.duration_minutes,
        b.starts_at as block_start,
        b.ends_at as block_end,
        b.starts_at - interval '1' minute * l.duration_minutes as earliest_start,
        cast(cast(b.starts_at - interval '1' minute * l.duration_minutes as date) as timestamp) as anchor
    from blocks as b
    join lengths as l on l.world_id = b.world_id
),

touching_starts as (
    select
        t.world_id,
        t.person_id,
        t.duration_minutes,
        t.block_start,
        t.block_end,
        t.anchor + interval '15' minute * k.slot_index as starts_at
    from touching as t,
        unnest(generate_series(
            cast(ceil(date_diff('minute', t.anchor, t.earliest_start) / 15) as bigint),
            cast(floor(date_diff('minute', t.anchor, t.block_end) / 15) as bigint)
        )) as k(slot_index)
),

runs as (
    select
        world_id,
        person_id,
        duration_minutes,
        starts_at,
        least(min(block_start), starts_at) as run_start,
        greatest(max(block_end), starts_at + interval '1' minute * duration_minutes) as run_end
    from touching_starts
    group by world_id, person_id, duration_minutes, starts_at
),

-- materialized: otherwise the planner may join the runs to the rules on the world alone
rule_participants as materialized (
    select i.instance_id, i.world_id, i.duration_minutes, r.rule_id, r.minutes, p.person_id,
           i.window_start, i.window_end
    from stg_instances as i
    join stg_policy_rules as r
        on r.world_id = i.world_id and r.policy_id = i.policy_id and r.rule_type = 'max_consecutive_minutes'
    join stg_participants as p on p.instance_id = i.instance_id
),

violating as (
    select g.instance_id, g.starts_at, rp.rule_id, rp.person_id
    from rule_participants as rp
    join int_framed_grid as g on g.instance_id = rp.instance_id
    where rp.duration_minutes > rp.minutes
    union all
    select g.instance_id, g.starts_at, rp.rule_id, rp.person_id
    from rule_participants as rp
    join runs as r
        on r.world_id = rp.world_id and r.person_id = rp.person_id and r.duration_minutes = rp.duration_minutes
        and r.run_end > r.run_start + interval '1' minute * rp.minutes
        and r.starts_at >= rp.window_start and r.starts_at < rp.window_end + interval '1' day
    join int_framed_grid as g on g.instance_id = rp.instance_id and g.starts_at = r.starts_at
    where rp.duration_minutes <= rp.minutes
)

select
    instance_id,
    starts_at,
    'max_consecutive_minutes' as constraint_kind,
    rule_id as constraint_id,
    'people' as source_table,
    person_id as source_row_id
from violating
