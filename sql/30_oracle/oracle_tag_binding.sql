-- For each instance and each thread-tag kind (deadline, ban, ooo) said in its project's threads:
-- does that kind bind? changes_answer: some start earlier than the last gold start breaks that
-- kind and nothing else (and at level 3 has a free room), so without the kind's tags the answer
-- would differ; rejects_feasible: some start in the window breaks that kind and nothing else.
-- A deadline can reject feasible starts but never change an earliest-N answer: it only removes
-- starts later than the ones it keeps.
-- column: instance_id  The instance (instances.instance_id).
-- column: level  The instance's level, 2 or 3 (levels with threads).
-- column: constraint_kind  A thread-tag kind said in the project's threads: deadline, ban or ooo.
-- column: changes_answer  Some start earlier than the last gold start breaks this kind and
--   nothing else: without the kind's tags the answer would differ.
-- column: rejects_feasible  Some start in the window breaks this kind and nothing else.
with said as (
    select distinct i.instance_id, i.level, t.tag_type as constraint_kind
    from stg_instances as i
    join stg_thread_tags as t on t.world_id = i.world_id and t.project_id = i.project_id
    join constraint_kinds as k on k.constraint_kind = t.tag_type and k.source = 'threads'
),

last_gold as (
    select instance_id, max(starts_at) as last_start
    from oracle_answers
    group by instance_id
),

killed_by_one_kind as (
    select m.instance_id, m.starts_at, k.constraint_kind
    from int_slot_violation_masks as m
    join constraint_kinds as k on k.bit = m.violated_mask
),

would_be_feasible as (
    select o.instance_id, o.starts_at, o.constraint_kind
    from killed_by_one_kind as o
    join stg_instances as i on i.instance_id = o.instance_id
    left join int_room_choice as rc on rc.instance_id = o.instance_id and rc.starts_at = o.starts_at
    where i.level < 3 or rc.room_id is not null
)

select
    s.instance_id,
    s.level,
    s.constraint_kind,
    coalesce(bool_or(w.starts_at < g.last_start), false) as changes_answer,
    count(w.starts_at) > 0 as rejects_feasible
from said as s
left join last_gold as g on g.instance_id = s.instance_id
left join would_be_feasible as w
    on w.instance_id = s.instance_id and w.constraint_kind = s.constraint_kind
group by s.instance_id, s.level, s.constraint_kind
