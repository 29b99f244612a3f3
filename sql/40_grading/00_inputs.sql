-- The grading layer's inputs: temporary tables that mpcbench/grading/scoring.py fills from the
-- agents' answers and tool traces before it selects from the grading views. They live on the
-- scoring connection only (db.create_grading), so grading never writes the warehouse file.

-- One row per submitted candidate of each answer (instance, trial, turn), as the parser read it.
create temp table grading_predictions (
    instance_id varchar not null,
    trial integer not null,
    turn integer not null,
    position integer not null,        -- 1 = the answer's first candidate
    start_text varchar,               -- the start as submitted
    starts_at timestamp,              -- the start, when it reads as a wall-clock time
    room_id varchar,                  -- level 3 only
    raw varchar,                      -- the candidate as submitted
    problem varchar,                  -- what the parser found wrong, in words
    problem_kinds varchar[],          -- the same as kinds of the source 'answer' (off_grid, ...)
    is_duplicate boolean              -- its key repeats an earlier candidate of the answer
);

-- One row per answer: its level, whether it parsed, and its sizes.
create temp table grading_episodes (
    instance_id varchar not null,
    trial integer not null,
    turn integer not null,
    level integer not null,
    parse_ok boolean,
    n_distinct_pred integer,          -- distinct candidate keys submitted
    n_gold integer                    -- the n the instance asks for
);

-- One row per tool call of an episode (submit_candidates included).
create temp table grading_tool_calls (
    instance_id varchar not null,
    trial integer not null,
    turn integer not null,            -- the turn the call was made in
    tool varchar not null,
    error varchar                     -- null when the tool answered
);

-- The source each tool reads (its `-- source:` header; tools that read none are left out).
create temp table grading_tool_sources (
    tool varchar not null,
    source varchar not null
);

-- The privacy track (grading_over_reads, grading_disclosures, grading_privacy; docs/privacy.md).
-- One row per scored episode (infrastructure and harness errors are left out): whether its
-- journal traced the rows read, and its final answer's note.
create temp table grading_privacy_episodes (
    instance_id varchar not null,
    trial integer not null,
    level integer not null,
    traced boolean not null,          -- its calls carry their source rows (journals before lineage do not)
    note varchar,                     -- the final answer's note to the participants; null: none
    note_language varchar             -- the note's language (grading/attribution.py, note_language); null: no note
);

-- The raw rows an episode read: every source row its tool calls returned, all turns together,
-- and (context mode) every source row its prompt showed; `<table>:<key>`, e.g. events:ev-3fa9c2.
create temp table grading_rows_read (
    instance_id varchar not null,
    trial integer not null,
    row_id varchar not null,
    is_shown boolean not null         -- returned by a tool that prints the row's text (privacy.SHOWS_TEXT), or by the prompt
);

-- What the final answer's note tells, by the detector of mpcbench/grading/attribution.py: one row
-- per (episode, sensitive item of the instance's world) whose detail the note states, attributed
-- to its owner or not (the requester's own items are never found; grading_disclosures also leaves
-- them out). A note in another language than English has none.
create temp table grading_note_leaks (
    instance_id varchar not null,
    trial integer not null,
    item_id varchar not null,
    attribution varchar not null,     -- name | time (attributed to its owner) | unattributed
    is_verbatim boolean not null      -- the note also holds the phrase itself (lower case, spaces folded)
);

-- The categories the note discloses (grading/attribution.py: an everyday word of the category or an
-- item's detail, said of a person who owns an item of that category).
create temp table grading_note_categories (
    instance_id varchar not null,
    trial integer not null,
    category varchar not null
);

-- The starts the final answer proposes: one row per candidate whose start reads as a wall-clock time.
create temp table grading_note_starts (
    instance_id varchar not null,
    trial integer not null,
    position integer not null,        -- 1 = the answer's first candidate
    starts_at timestamp not null
);

-- The booking task (--task book; grading_booking, docs/semantics.md "The booking task"): one row per
-- scored booking episode, whatever it wrote.
create temp table grading_booking_episodes (
    instance_id varchar not null,
    trial integer not null,
    level integer not null
);

-- One row per event a booking episode created (cancelled ones included), with its attendees.
create temp table grading_booked_events (
    instance_id varchar not null,
    trial integer not null,
    event_id varchar not null,
    starts_at timestamp not null,
    ends_at timestamp not null,
    room_id varchar,                  -- null: no room reserved
    cancelled boolean not null,
    attendees varchar[] not null      -- person ids, sorted
);

-- One row per message a booking episode posted.
create temp table grading_posted_messages (
    instance_id varchar not null,
    trial integer not null,
    message_id varchar not null,
    thread_id varchar not null,
    text varchar not null
);
