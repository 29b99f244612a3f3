-- name: drive_read_file
-- description: Drive.read_file - the whole content of one file, with its name, owner and last
--   modification time.
-- render: file
-- not_found: There is no file {file_id}; Drive.search_files finds file ids.
-- param: file_id (string, required, maxLength=80) The file's id, from Drive.search_files.
select
    file_id,
    name,
    owner,
    modified_at as modified,
    content
from stg_legacy_drive_files
where scenario_id = $scenario_id and file_id = $file_id
