-- Which sources each level requires (the necessity rule).
create table level_sources (
    level integer not null,
    source varchar not null,
    primary key (level, source)
);

insert into level_sources values
    (1, 'calendar'), (1, 'policy'),
    (2, 'calendar'), (2, 'policy'), (2, 'threads'),
    (3, 'calendar'), (3, 'policy'), (3, 'threads'), (3, 'rooms'),
    (4, 'calendar'), (4, 'policy'), (4, 'threads'), (4, 'rooms');
