-- name: eval_source_reads
-- Which sources an episode read by each of its answers: a source counts as read at a turn when a
-- tool of that source (temp table eval_tool_sources) answered without error at that turn or
-- before (temp tables eval_episodes and eval_tool_calls, filled by mpcbench/scoring.py).
select distinct
    e.instance_id,
    e.trial,
    e.turn,
    s.source
from eval_episodes as e
join eval_tool_calls as c
    on c.instance_id = e.instance_id and c.trial = e.trial and c.turn <= e.turn
join eval_tool_sources as s on s.tool = c.tool
where c.error is null
order by e.instance_id, e.trial, e.turn, s.source
