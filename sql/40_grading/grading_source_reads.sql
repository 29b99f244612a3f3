-- Which sources an episode had read by each of its answers: a source counts as read at a turn
-- when a tool of that source (grading_tool_sources) answered without error at that turn or
-- before.
-- column: instance_id  The instance.
-- column: trial  The episode's trial.
-- column: turn  The answer's turn.
-- column: source  A source read by then: calendar, policy, threads, rooms or directory.
select distinct
    e.instance_id,
    e.trial,
    e.turn,
    s.source
from grading_episodes as e
join grading_tool_calls as c
    on c.instance_id = e.instance_id and c.trial = e.trial and c.turn <= e.turn
join grading_tool_sources as s on s.tool = c.tool
where c.error is null
order by e.instance_id, e.trial, e.turn, s.source
