-- Raw tables: what the generator and `mpcbench import` write. Everything else is a view on them.
-- Timestamps are local wall-clock times of the world's timezone; intervals are half-open.
-- Rule and tag params stay JSON text here (the dataset format); staging types them.

create table worlds (
    world_id varchar primary key,
    level integer not null,
    seed bigint not null,
    timezone varchar not null
);

create table people (
    world_id varchar not null,
    person_id varchar not null,
    name varchar not null,
    email varchar not null,
    team varchar not null,
    title varchar not null,
    primary key (world_id, person_id)
);

create table events (
    world_id varchar not null,
    event_id varchar not null,
    person_id varchar not null,
    starts_at timestamp not null,
    ends_at timestamp not null,
    status varchar not null,
    title varchar not null,
    primary key (world_id, event_id)
);

-- Level 4: each person's home time zone and working hours there (HH:MM in their own zone).
-- offset_minutes is derived on load: the person's wall clock minus the world's, constant over the
-- world's horizon (the import refuses a zone whose offset changes inside it).
create table person_hours (
    world_id varchar not null,
    person_id varchar not null,
    timezone varchar not null,
    offset_minutes integer not null,
    work_start varchar not null,
    work_end varchar not null,
    primary key (world_id, person_id)
);

-- Level 4: weekly (every_days) recurring events; the first occurrence is [starts_at, ends_at).
-- Occurrences are expanded by stg_series_occurrences; exceptions cancel or move one occurrence.
create table event_series (
    world_id varchar not null,
    series_id varchar not null,
    person_id varchar not null,
    starts_at timestamp not null,
    ends_at timestamp not null,
    every_days integer not null,
    occurrences integer not null,
    status varchar not null,
    title varchar not null,
    primary key (world_id, series_id)
);

-- One changed occurrence of a series, named by its original start: action 'cancelled' (it does
-- not take place) or 'moved' (it takes place at [starts_at, ends_at) instead).
create table event_series_exceptions (
    world_id varchar not null,
    series_id varchar not null,
    original_start timestamp not null,
    action varchar not null,
    starts_at timestamp,
    ends_at timestamp,
    primary key (world_id, series_id, original_start)
);

create table policies (
    world_id varchar not null,
    policy_id varchar not null,
    name varchar not null,
    position integer not null,
    primary key (world_id, policy_id)
);

create table policy_rules (
    world_id varchar not null,
    policy_id varchar not null,
    rule_id varchar not null,
    rule_type varchar not null,
    params varchar not null,
    position integer not null,
    primary key (world_id, rule_id)
);

create table policy_docs (
    world_id varchar not null,
    doc_id varchar not null,
    title varchar not null,
    text varchar not null,
    position integer not null,
    primary key (world_id, doc_id)
);

create table projects (
    world_id varchar not null,
    project_id varchar not null,
    name varchar not null,
    position integer not null,
    primary key (world_id, project_id)
);

create table threads (
    world_id varchar not null,
    thread_id varchar not null,
    project_id varchar not null,
    channel varchar not null,
    title varchar not null,
    position integer not null,
    primary key (world_id, thread_id)
);

create table messages (
    world_id varchar not null,
    message_id varchar not null,
    thread_id varchar not null,
    author_id varchar not null,
    ts timestamp not null,
    text varchar not null,
    position integer not null,
    primary key (world_id, message_id)
);

-- tag_id is derived on load: "<message_id>#<position>" (tags have no id in the dataset format)
create table message_tags (
    world_id varchar not null,
    tag_id varchar not null,
    message_id varchar not null,
    tag_type varchar not null,
    params varchar not null,
    position integer not null,
    primary key (world_id, tag_id)
);

create table rooms (
    world_id varchar not null,
    room_id varchar not null,
    name varchar not null,
    building varchar not null,
    floor integer not null,
    capacity integer not null,
    features varchar[] not null,
    primary key (world_id, room_id)
);

-- booking_id is derived on load: "<room_id>@<position>" (bookings have no id in the dataset format)
create table room_bookings (
    world_id varchar not null,
    booking_id varchar not null,
    room_id varchar not null,
    starts_at timestamp not null,
    ends_at timestamp not null,
    position integer not null,
    primary key (world_id, booking_id)
);

-- Sensitive items (world/privacy.py): private details a delegate's calendar view or the team's
-- threads show, which the assistant must not repeat. One row per item: the row that carries it
-- (source_table 'events' or 'messages', source_id its event_id or message_id), whose detail it is
-- (the event's owner; for a message, the person it is about), its category (one of
-- sensitive_category_words) and its phrase, the exact text of the title or message that reveals
-- it. Hidden from agents: no tool query may read it. The oracle never reads it.
create table sensitive_items (
    world_id varchar not null,
    item_id varchar not null,
    source_table varchar not null,
    source_id varchar not null,
    person_id varchar not null,
    category varchar not null,
    phrase varchar not null,
    primary key (world_id, item_id)
);

create table instances (
    instance_id varchar primary key,
    level integer not null,
    world_id varchar not null,
    prompt varchar not null,
    now timestamp not null,
    window_start date not null,
    window_end date not null,
    given varchar not null,
    project_id varchar,
    position integer not null
);

-- The resolved answer-key input. Hidden from agents: no tool query may read it.
create table requirements (
    instance_id varchar primary key,
    duration_minutes integer not null,
    n integer not null,
    policy_id varchar not null,
    tie_break varchar,
    has_room_requirement boolean not null,
    room_min_capacity integer,
    room_features varchar[],
    room_building varchar
);

create table requirement_participants (
    instance_id varchar not null,
    person_id varchar not null,
    position integer not null,
    primary key (instance_id, person_id)
);

-- One row per level built or imported: how many instances were sampled, kept and discarded, and why.
create table build_stats (
    level integer primary key,
    world_id varchar not null,
    seed bigint not null,
    instances_wanted integer not null,
    candidates_sampled integer not null,
    instances_kept integer not null,
    discarded_too_few_feasible integer not null,
    rejected_calendar_not_needed integer not null,
    rejected_policy_not_needed integer not null,
    rejected_threads_not_needed integer not null,
    rejected_rooms_not_needed integer not null,
    kept_too_few_feasible integer not null
);

create table build_info (
    key varchar primary key,
    value varchar not null
);
