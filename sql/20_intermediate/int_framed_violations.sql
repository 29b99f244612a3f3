-- Every (candidate, constraint) pair that removes a candidate inside working hours, with the
-- source row that kills it. Rooms are judged later, on feasible starts only.
select * from int_violations_busy
union all select * from int_violations_blackout
union all select * from int_violations_buffer
union all select * from int_violations_no_meeting_weekdays
union all select * from int_violations_min_notice
union all select * from int_violations_max_meetings_per_day
union all select * from int_violations_deadline
union all select * from int_violations_ban
union all select * from int_violations_ooo
