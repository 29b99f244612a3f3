-- Raw tables of the legacy benchmark's six sources (Slack, Gmail, Calendar, Contacts, Jira,
-- Drive), one row per item of the generated JSON files, keyed by scenario. Timestamps stay
-- the text the generator wrote (local wall-clock, YYYY-MM-DDTHH:MM[:SS]); staging types them.
-- `mpcbench legacy` loads a scenario by deleting its rows and inserting the new ones.

create table if not exists legacy_scenarios (
    scenario_id varchar primary key,
    title varchar not null,
    timezone varchar not null,
    start_date date not null,
    content_sha256 varchar not null
);

create table if not exists legacy_slack_users (
    scenario_id varchar not null,
    user_id varchar not null,
    name varchar not null,
    email varchar not null,
    title varchar,
    primary key (scenario_id, user_id)
);

create table if not exists legacy_slack_channels (
    scenario_id varchar not null,
    channel_id varchar not null,
    name varchar not null,
    topic varchar,
    members varchar[] not null,
    primary key (scenario_id, channel_id)
);

create table if not exists legacy_slack_messages (
    scenario_id varchar not null,
    message_id varchar not null,
    channel_id varchar not null,
    user_id varchar not null,
    ts varchar not null,
    text varchar not null,
    thread_id varchar,
    primary key (scenario_id, message_id)
);

create table if not exists legacy_gmail_threads (
    scenario_id varchar not null,
    thread_id varchar not null,
    subject varchar not null,
    labels varchar[] not null,
    primary key (scenario_id, thread_id)
);

create table if not exists legacy_gmail_messages (
    scenario_id varchar not null,
    message_id varchar not null,
    thread_id varchar not null,
    position integer not null,
    sender varchar not null,
    recipients varchar[] not null,
    cc varchar[] not null,
    sent varchar not null,
    body varchar not null,
    primary key (scenario_id, message_id)
);

create table if not exists legacy_calendar_calendars (
    scenario_id varchar not null,
    calendar_id varchar not null,
    owner_email varchar not null,
    name varchar not null,
    timezone varchar,
    primary key (scenario_id, calendar_id)
);

create table if not exists legacy_calendar_events (
    scenario_id varchar not null,
    event_id varchar not null,
    calendar_id varchar not null,
    title varchar not null,
    starts varchar not null,
    ends varchar not null,
    organizer_email varchar not null,
    attendees varchar[] not null,
    location varchar,
    description varchar,
    status varchar not null,
    primary key (scenario_id, event_id)
);

create table if not exists legacy_contacts (
    scenario_id varchar not null,
    contact_id varchar not null,
    name varchar not null,
    email varchar not null,
    phone varchar,
    company varchar,
    team varchar,
    title varchar,
    notes varchar,
    primary key (scenario_id, contact_id)
);

create table if not exists legacy_jira_projects (
    scenario_id varchar not null,
    project_key varchar not null,
    name varchar not null,
    lead_email varchar not null,
    primary key (scenario_id, project_key)
);

create table if not exists legacy_jira_issues (
    scenario_id varchar not null,
    issue_key varchar not null,
    project_key varchar not null,
    summary varchar not null,
    description varchar,
    status varchar not null,
    priority varchar not null,
    assignee_email varchar,
    assignee_name varchar,
    reporter_email varchar not null,
    created varchar not null,
    updated varchar not null,
    due_date varchar,
    labels varchar[] not null,
    primary key (scenario_id, issue_key)
);

create table if not exists legacy_jira_comments (
    scenario_id varchar not null,
    issue_key varchar not null,
    position integer not null,
    author_email varchar not null,
    created varchar not null,
    body varchar not null,
    primary key (scenario_id, issue_key, position)
);

create table if not exists legacy_drive_files (
    scenario_id varchar not null,
    file_id varchar not null,
    name varchar not null,
    mime_type varchar not null,
    owner_email varchar not null,
    modified varchar not null,
    content varchar not null,
    primary key (scenario_id, file_id)
);
