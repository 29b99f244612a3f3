-- name: eval_candidate_checks
-- Every predicted candidate (temp table eval_predictions, filled by mpcbench/scoring.py) checked
-- against the oracle: is its key in the gold answer, is it feasible at all, and every constraint
-- it breaks with the source row behind it. Besides the constraint views' kinds:
--   source 'answer': unreadable, utc_offset, off_grid, room_missing (what the parser found),
--                    out_of_window (a start on a day outside the instance's window);
--   source 'rooms' (level 3, readable starts in the window): unknown_room, room_unfit (capacity,
--                    features or building),
--                    room_booked (one row per overlapping booking), room_tie_break (the room fits
--                    and is free, but the tie-break rule picks another one).
-- A candidate the parser flagged is never in the gold answer, whatever its digits say.
with predictions as (
    select
        p.instance_id,
        p.trial,
        p.turn,
        p.position,
        p.starts_at,
        p.room_id,
        p.problem_kinds,
        p.is_duplicate,
        i.level,
        i.world_id,
        i.window_start,
        i.window_end,
        i.duration_minutes,
        i.tie_break,
        p.starts_at is not null
            and cast(p.starts_at as date) between i.window_start and i.window_end as is_in_window
    from eval_predictions as p
    join stg_instances as i on i.instance_id = p.instance_id
),

answer_problems as (
    select
        p.instance_id, p.trial, p.turn, p.position,
        k.kind as constraint_kind,
        'answer' as source,
        k.kind as constraint_id,
        'answer' as source_table,
        cast(p.position as varchar) as source_row_id
    from predictions as p, unnest(p.problem_kinds) as k(kind)
    union all
    select
        p.instance_id, p.trial, p.turn, p.position,
        'out_of_window', 'answer', 'out_of_window', 'instances', p.instance_id
    from predictions as p
    where p.starts_at is not null and not p.is_in_window
),

time_violations as (
    select
        p.instance_id, p.trial, p.turn, p.position,
        v.constraint_kind,
        v.source,
        v.constraint_id,
        v.source_table,
        v.source_row_id
    from predictions as p
    join int_violations as v on v.instance_id = p.instance_id and v.starts_at = p.starts_at
),

room_checks as (
    select
        p.*,
        r.room_id is not null as is_known_room,
        fit.room_id is not null as is_fitting_room,
        choice.room_id as chosen_room_id
    from predictions as p
    left join stg_rooms as r on r.world_id = p.world_id and r.room_id = p.room_id
    left join int_room_static_fits as fit on fit.instance_id = p.instance_id and fit.room_id = p.room_id
    left join int_room_choice as choice on choice.instance_id = p.instance_id and choice.starts_at = p.starts_at
    where p.level = 3 and p.is_in_window and len(p.problem_kinds) = 0 and p.room_id is not null
),

bookings as (
    select
        c.instance_id, c.trial, c.turn, c.position,
        b.booking_id
    from room_checks as c
    join stg_room_bookings as b
        on b.world_id = c.world_id
        and b.room_id = c.room_id
        and b.starts_at < c.starts_at + interval '1' minute * c.duration_minutes
        and c.starts_at < b.ends_at
),

room_violations as (
    select
        c.instance_id, c.trial, c.turn, c.position,
        'unknown_room' as constraint_kind, 'rooms' as source, c.room_id as constraint_id,
        'rooms' as source_table, c.room_id as source_row_id
    from room_checks as c
    where not c.is_known_room
    union all
    select
        c.instance_id, c.trial, c.turn, c.position,
        'room_unfit', 'rooms', c.room_id, 'rooms', c.room_id
    from room_checks as c
    where c.is_known_room and not c.is_fitting_room
    union all
    select
        b.instance_id, b.trial, b.turn, b.position,
        'room_booked', 'rooms', c.room_id, 'room_bookings', b.booking_id
    from bookings as b
    join room_checks as c
        on c.instance_id = b.instance_id and c.trial = b.trial and c.turn = b.turn and c.position = b.position
    union all
    select
        c.instance_id, c.trial, c.turn, c.position,
        'room_tie_break', 'rooms', 'tie_break=' || c.tie_break, 'rooms', c.chosen_room_id
    from room_checks as c
    where c.is_fitting_room
        and c.chosen_room_id is not null
        and c.chosen_room_id <> c.room_id
        and not exists (
            select 1 from bookings as b
            where b.instance_id = c.instance_id and b.trial = c.trial and b.turn = c.turn and b.position = c.position
        )
),

all_violations as (
    select * from answer_problems
    union all
    select * from time_violations
    union all
    select * from room_violations
),

source_order as (
    select * from (values ('answer', 0), ('calendar', 1), ('policy', 2), ('threads', 3), ('rooms', 4))
        as o(source, source_rank)
),

violation_lists as (
    select
        v.instance_id, v.trial, v.turn, v.position,
        list(
            struct_pack(
                constraint_kind := v.constraint_kind,
                source := v.source,
                constraint_id := v.constraint_id,
                source_table := v.source_table,
                source_row_id := v.source_row_id
            )
            order by coalesce(o.source_rank, 9), v.constraint_kind, v.constraint_id, v.source_row_id
        ) as violations
    from all_violations as v
    left join source_order as o on o.source = v.source
    group by v.instance_id, v.trial, v.turn, v.position
),

gold as (
    select instance_id, rank, starts_at, room_id from oracle_answers
)

select
    p.instance_id,
    p.trial,
    p.turn,
    p.position,
    p.is_duplicate,
    len(p.problem_kinds) = 0 and g.rank is not null as in_gold,
    case when len(p.problem_kinds) = 0 then g.rank end as gold_rank,
    len(p.problem_kinds) = 0 and c.rank is not null as feasible,
    coalesce(v.violations, []) as violations
from predictions as p
left join gold as g
    on g.instance_id = p.instance_id
    and g.starts_at = p.starts_at
    and (p.level < 3 or g.room_id = p.room_id)
left join oracle_candidates as c
    on c.instance_id = p.instance_id
    and c.starts_at = p.starts_at
    and (p.level < 3 or c.room_id = p.room_id)
left join violation_lists as v
    on v.instance_id = p.instance_id and v.trial = p.trial and v.turn = p.turn and v.position = p.position
order by p.instance_id, p.trial, p.turn, p.position
