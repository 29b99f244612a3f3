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
