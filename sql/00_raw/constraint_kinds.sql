-- Every constraint kind the oracle knows, the source it belongs to, and how it behaves when a
-- source is removed for the necessity check (DESIGN.md section 3):
-- is_frame: working hours frame the grid and stay when the policy is removed;
-- uses_calendar: the constraint is computed from participants' events, so it goes when the calendar goes.
-- bit: the kind's bit in a candidate's violation mask (int_slot_violation_masks).
create table constraint_kinds (
    constraint_kind varchar primary key,
    source varchar not null,
    is_frame boolean not null,
    uses_calendar boolean not null,
    bit integer not null unique
);

insert into constraint_kinds values
    ('busy', 'calendar', false, true, 1),
    ('working_hours', 'policy', true, false, 2),
    ('blackout', 'policy', false, false, 4),
    ('buffer', 'policy', false, true, 8),
    ('no_meeting_weekdays', 'policy', false, false, 16),
    ('min_notice', 'policy', false, false, 32),
    ('max_meetings_per_day', 'policy', false, true, 64),
    ('deadline', 'threads', false, false, 128),
    ('ban', 'threads', false, false, 256),
    ('ooo', 'threads', false, false, 512),
    ('no_room', 'rooms', false, false, 1024);

-- Which sources each level requires (the necessity rule).
create table level_sources (
    level integer not null,
    source varchar not null,
    primary key (level, source)
);

insert into level_sources values
    (1, 'calendar'), (1, 'policy'),
    (2, 'calendar'), (2, 'policy'), (2, 'threads'),
    (3, 'calendar'), (3, 'policy'), (3, 'threads'), (3, 'rooms');
