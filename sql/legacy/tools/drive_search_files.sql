-- name: drive_search_files
-- description: Drive.search_files - files whose name or content contains a text
--   (case-insensitive), latest modified first, with where the text was found and a snippet.
--   Drive.read_file gives a file's whole content.
-- render: json
-- items: files
-- param: query (string, required, minLength=2, maxLength=200) Text to look for.
select
    file_id,
    name,
    owner,
    modified_at as modified,
    contains(lower(name), lower($query)) as in_name,
    left(content, 200) as snippet
from stg_legacy_drive_files
where scenario_id = $scenario_id
    and (contains(lower(name), lower($query)) or contains(lower(content), lower($query)))
order by modified_at desc, file_id
