-- The constraint-kind registry: every constraint kind the oracle knows, one row each. The oracle
-- reads it (int_violations, int_slot_violation_masks, int_kept_constraint_kinds), and so does the
-- Python around it (mpcbench/kinds.py): the union int_framed_violations (one view
-- int_violations_<kind> per kind), config validation, the world JSON Schema's rule types (a
-- test checks the schema file against it), the agent's system prompt, the get_policy tool's
-- description and the feedback text. A new policy rule kind is one row here, one view
-- int_violations_<kind>.sql, one prose renderer entry (RULE_PROSE) and one golden world.
--
-- source: the source the constraint belongs to (docs/semantics.md, "Constraints").
-- is_frame: working hours frame the grid and stay when the policy is removed.
-- uses_calendar: computed from participants' events, so it goes when the calendar goes.
-- bit: the kind's bit in a candidate's violation mask (int_slot_violation_masks).
-- first_level: the first level whose worlds have it (participant_hours: level 4); the system prompt
--   of a lower level leaves it out.
-- params: a policy rule's parameters (the config keys and the rule's JSON params), each with its
--   type: clock (HH:MM), integer (from minimum to maximum; a null maximum is 2147483647) or
--   weekdays (a non-empty list of distinct Mon .. Sun). Null for kinds that are not policy rules.
-- prompt_text: what the kind means, as the agent's system prompt and get_policy say it.
-- feedback_text: what breaking it means, as feedback says it ("<candidate> ...").
create table constraint_kinds (
    constraint_kind varchar primary key,
    source varchar not null,
    is_frame boolean not null,
    uses_calendar boolean not null,
    bit integer not null unique,
    first_level integer not null,
    params struct(name varchar, type varchar, minimum integer, maximum integer)[],
    prompt_text varchar not null,
    feedback_text varchar not null
);

insert into constraint_kinds values
    ('busy', 'calendar', false, true, 1, 1, null,
     'no participant may have a confirmed or tentative event that overlaps the meeting (cancelled events do not count)',
     'overlaps a participant''s confirmed or tentative event'),
    ('working_hours', 'policy', true, false, 2, 1,
     [{'name': 'start', 'type': 'clock', 'minimum': null, 'maximum': null},
      {'name': 'end', 'type': 'clock', 'minimum': null, 'maximum': null},
      {'name': 'days', 'type': 'weekdays', 'minimum': null, 'maximum': null}],
     'working hours and days (the meeting lies within the hours, on a working day the policy names; other days, weekends included, are closed)',
     'is not within the policy''s working hours and days, or starts before the request was sent'),
    ('blackout', 'policy', false, false, 4, 1,
     [{'name': 'start', 'type': 'clock', 'minimum': null, 'maximum': null},
      {'name': 'end', 'type': 'clock', 'minimum': null, 'maximum': null}],
     'blackout windows (no overlap, every day)',
     'overlaps the policy''s daily blackout window'),
    ('buffer', 'policy', false, true, 8, 1,
     [{'name': 'minutes', 'type': 'integer', 'minimum': 0, 'maximum': 720}],
     'buffer (that many minutes between the meeting and each participant''s confirmed or tentative events; exactly that many is enough: with 10, an event ending 09:50 allows 10:00; out-of-office and bans need no gap)',
     'leaves less than the policy''s buffer before or after a participant''s event'),
    ('no_meeting_weekdays', 'policy', false, false, 16, 1,
     [{'name': 'weekdays', 'type': 'weekdays', 'minimum': null, 'maximum': null}],
     'no-meeting weekdays',
     'falls on a weekday the policy keeps free of meetings'),
    ('min_notice', 'policy', false, false, 32, 1,
     [{'name': 'hours', 'type': 'integer', 'minimum': 0, 'maximum': null}],
     'minimum notice (the start is at least that many hours after now)',
     'gives less notice than the policy''s minimum'),
    ('max_meetings_per_day', 'policy', false, true, 64, 1,
     [{'name': 'count', 'type': 'integer', 'minimum': 1, 'maximum': null}],
     'maximum meetings per day (no participant already has that many confirmed or tentative calendar entries of any kind starting that day)',
     'falls on a day when a participant already has the policy''s maximum of meetings'),
    ('max_consecutive_minutes', 'policy', false, true, 1024, 1,
     [{'name': 'minutes', 'type': 'integer', 'minimum': 1, 'maximum': 1440}],
     'maximum back-to-back minutes (no participant''s run of touching or overlapping calendar entries of any kind, the meeting included, may last longer)',
     'would give a participant more back-to-back meeting time than the policy allows'),
    ('deadline', 'threads', false, false, 128, 1, null,
     'deadline (the meeting ends by then)',
     'ends after the project''s deadline'),
    ('ban', 'threads', false, false, 256, 1, null,
     'ban (no overlap with the banned period)',
     'overlaps a period the project''s threads rule out'),
    ('ooo', 'threads', false, false, 512, 1, null,
     'out-of-office (that participant is away: no overlap)',
     'overlaps a participant''s out-of-office time'),
    ('participant_hours', 'calendar', false, true, 2048, 4, null,
     'each participant''s own working hours (level 4; the meeting lies within them)',
     'is outside a participant''s working hours in their own time zone');
