-- name: contacts_lookup
-- description: Contacts.lookup - address-book entries whose name, email, company, team or title
--   contains a text (case-insensitive), as a table.
-- render: markdown
-- empty: No contact matches.
-- param: query (string, required, minLength=2, maxLength=120) Part of a name, email, company, team or title.
select
    name,
    email,
    phone,
    company,
    team,
    title
from legacy_contacts
where scenario_id = $scenario_id
    and (contains(lower(name), lower($query))
        or contains(lower(email), lower($query))
        or contains(lower(coalesce(company, '')), lower($query))
        or contains(lower(coalesce(team, '')), lower($query))
        or contains(lower(coalesce(title, '')), lower($query)))
order by name, email
