-- One row per candidate that breaks anything: the bits of every constraint kind it breaks.
select
    v.instance_id,
    v.starts_at,
    bit_or(k.bit) as violated_mask
from int_framed_violations as v
join constraint_kinds as k on k.constraint_kind = v.constraint_kind
group by v.instance_id, v.starts_at
