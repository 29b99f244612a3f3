-- Drive files with a typed modification time and the owner's name.
with files as (
    select * from legacy_drive_files
),
people as (
    select * from stg_legacy_people
)
select
    f.scenario_id,
    f.file_id,
    f.name,
    f.mime_type,
    coalesce(p.name, f.owner_email) as owner,
    cast(f.modified as timestamp) as modified_at,
    f.content
from files as f
left join people as p on p.scenario_id = f.scenario_id and p.email = lower(f.owner_email)
