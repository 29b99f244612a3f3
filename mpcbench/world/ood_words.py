"""The ood split's workplace words around the facts (issue 32): names, titles, topics, chatter,
handbook filler and the prompts, each pool at least as large as its public twin in prose.py
and sharing no entry with it. world/wording.py pairs them. A prompt keeps the shapes the
scripted solver reads (docs/semantics.md): "{duration}-minute", "{n} candidate ...",
"policy {policy_id}", "{project}" with its id in brackets, the dates and the zone."""

from __future__ import annotations

FIRST_NAMES = (
    "Aiko", "Bram", "Celia", "Dmitri", "Esme", "Folake", "Gunnar", "Halima", "Ilse", "Joaquin", "Kofi",
    "Leonie", "Mateus", "Nell", "Oskar", "Pilar", "Quang", "Runa", "Soren", "Thandi", "Ulla", "Vikram",
    "Wiebke", "Xiomara", "Yusuf", "Zainab", "Anouk", "Bastien", "Catalina", "Dagny", "Emeka", "Freya",
    "Gideon", "Hanne", "Idris", "Jorunn", "Kasimir", "Lucinda", "Mirela", "Njeri",
)
SHARED_FIRST_NAMES = FIRST_NAMES[:12]
LAST_NAMES = (
    "Adeyemi", "Bjornsen", "Carvalho", "Drozdov", "Esposito", "Fontaine", "Gallagher", "Horvath",
    "Iwasaki", "Jaramillo", "Kaminski", "Lindgren", "Mbeki", "Nakamura", "Oyelaran", "Pellegrini",
    "Quiroga", "Rasmussen", "Szabo", "Thorsen", "Uchenna", "Vasquez", "Wojcik", "Xu", "Yamada",
    "Zielinski", "Achterberg", "Brodeur", "Cienfuegos", "Delacroix", "Ekwueme", "Falk", "Grigoryan",
    "Holmberg", "Ibarra", "Jovanovic", "Kuznetsova", "Lombardi", "Mwangi", "Novotny", "Osei",
    "Petrescu", "Rinaldi", "Sundberg", "Tamura", "Valdivia",
)
TEAMS = ("Infrastructure", "Billing", "Acquisition", "Analytics", "Brand", "Care", "Partnerships",
         "Labs", "Logistics", "Trust")
TITLES = ("Backend Developer", "Principal Developer", "Tech Lead", "Product Owner", "UX Researcher",
          "Business Analyst", "Delivery Manager", "Sales Director", "Customer Success Manager",
          "Applied Scientist", "Portfolio Manager", "Platform Operator")
EVENT_TITLES = (
    "Check-in with mentor", "Daily huddle", "Iteration kickoff", "Spec walkthrough", "Client briefing",
    "Candidate panel", "Postmortem", "Strategy alignment", "Coffee with a candidate", "Away from desk",
    "Heads-down time", "Supplier pitch", "Half-year review", "Mob programming", "Panel wrap-up",
    "Investor prep", "Sprint retrospective", "Tech council", "New-joiner walkthrough", "Travel time",
    "Swim session", "Spend review", "Compliance course", "Town hall rehearsal",
)
PROJECT_WORDS = (
    "Albatross", "Borealis", "Citadel", "Dynamo", "Equinox", "Fathom", "Glacier", "Helix", "Icefield",
    "Jetstream", "Kinetic", "Lodestar", "Monsoon", "Nebula", "Obsidian", "Polaris", "Quasar", "Ridgeline",
    "Solstice", "Tempest", "Uplift", "Voyager", "Wavelength", "Xenon", "Yukon", "Zenith", "Archway",
    "Bramble", "Cinder", "Dune",
)
PROJECT_KINDS = ("consolidation", "go-live", "refresh", "review", "expansion", "handover",
                 "retreat", "trial", "extension", "overhaul")
CHANNEL_SUFFIXES = ("crew", "hub", "room", "desk", "chat", "squad", "team")
TOPICS = ("the pricing model", "the risk register", "the go-live plan", "the supplier agreement",
          "the metrics board", "the cutover playbook", "the staffing forecast", "the wireframes",
          "the half-year plan", "the outage summary", "the client complaint", "the QA matrix")
CHATTER = (
    "Hello team, please refresh {topic} by end of week.",
    "Does anybody have a working link to {topic}? Mine points nowhere.",
    "Added a couple of non-urgent notes on {topic}.",
    "{name}, any word back from procurement on {topic}?",
    "Really appreciate how fast this got done 🙌",
    "Moving {topic} to the team folder so we can find it again.",
    "Agree with {name} on this one.",
    "Putting my hand up to own {topic}.",
    "The test cluster feels sluggish this morning, anyone else?",
    "Summary of the last call: we mostly covered {topic}, dates unchanged.",
    "The kettle in the kitchen works again, good news all round 🫖",
    "Can we park the naming discussion for now? 🙃",
    "{name}, would you mind sanity-checking the figures in {topic}?",
    "Pictures from the team day are in the shared album.",
    "Gentle nudge: last month's receipts need submitting.",
    "Asked {name} about {topic}; will share once I hear.",
    "Minor: the conference link in last week's invite was broken.",
    "Anyone using the new check-in bot? Not convinced yet.",
    "Just returned from holiday, reading back through everything.",
    "Looks like {topic} is nearly there, one more review should do it.",
    "Thanks to whoever reserved the auditorium for the brown-bag talk!",
    "Could we use this space for logistics only and move design chat elsewhere?",
)
SERIES_TITLES = ("Morning huddle", "Crew catch-up", "Mentoring chat", "Drop-in clinic", "Planning touchpoint",
                 "Operations sync", "Paper club", "Iteration showcase")
POLICY_NOUNS = ("session rules", "booking code", "calendar charter", "timetable guide",
                "scheduling charter", "session protocol")
HANDBOOK_FILLER = (
    "Everyone's availability lives in their calendar. Update it often and record private commitments "
    "as occupied instead of removing them.",
    "A provisional hold blocks time just like a firm booking. Release holds you no longer need so colleagues "
    "can use that time.",
    "Standing sessions deserve a review twice a year. Plenty of them linger after their use has passed; a "
    "written status often does the job.",
    "Facilities manages every room reservation. Free up rooms you won't use; unused bookings get tallied.",
    "Trips must be approved by the travel office a fortnight ahead. Nothing in this guide alters that process.",
    "Colleagues dialling in from elsewhere need a way to join. Put an agenda in each invitation and record "
    "decisions in the project channel.",
    "Rules on spending, hardware and information security live in their own guides and are not restated.",
    "Each session obeys solely the rule set it is filed under; any other rule set here is irrelevant to it.",
    "Visitors may attend, provided a staff host stays for the full session.",
    "Send any question about this guide to the workplace operations group.",
)
HANDBOOK_TITLES = ("Session and Scheduling Guide (current revision)", "Supplement for Regional Offices")
HANDBOOK_SECTION = "Rules below bind only sessions booked under policy {policy_id}."
HANDBOOK_CLOSING = "## Miscellaneous"

PROMPT_L1 = (
    "Looking for {n} candidate times for a {duration}-minute session with {people}, somewhere "
    "in {first} – {last} (inclusive). Consult every participant's calendar and policy {policy_id} "
    "(machine-readable rules exist). Return those {n} candidate times ordered from the soonest.",
    "Book-finding job: {n} candidate starts, {duration}-minute length, attendees {people}, dates "
    "{first} through {last}, governed by policy {policy_id}. The calendars and the policy's JSON "
    "hold what you need; soonest valid starts come first.",
    "Hey, could you work out {n} candidate starts for a {duration}-minute get-together of {people}? "
    "Dates {first} up to {last}; policy {policy_id} sets the rules. Their calendars are the other "
    "input. Sort them soonest first.",
)
PROMPT_L2 = (
    "On the {project} workstream, {people} want a {duration}-minute session in {first} – {last}, "
    "governed by policy {policy_id}. Return {n} candidate starts, soonest first. Expect to consult "
    "more than one internal system.",
    "Task: {n} candidate times, {duration}-minute length, {project}, attendees {people}, dates "
    "{first} through {last}, policy {policy_id}. Several internal sources bear on the answer; "
    "dig before replying. Order them by time.",
    "Hey, {people} from {project} need a {duration}-minute get-together somewhere in {first} – "
    "{last}. Policy {policy_id} governs it. Please line up {n} candidate starts; the facts "
    "are scattered over a few internal tools.",
)
PROMPT_L3 = (
    "Would you organise the session the {project} crew keeps talking about? Any date in "
    "{first} – {last} works. Return start times, each paired with a room.",
    "{project} wants its session on the calendar at some point in {first} through {last}. "
    "Reply with the starts and matching rooms.",
    "Hey, please find a slot and a room for the {project} session, dates {first} up to {last}.",
)
PROMPT_L4 = (
    "Would you organise the session the {project} crew keeps talking about? Any date in "
    "{first} – {last} works. Clock times are in {zone}, where the organiser sits. Return start "
    "times, each paired with a room.",
    "{project} wants its session on the calendar at some point in {first} through {last}, "
    "clock times in {zone}. Reply with the starts and matching rooms.",
    "Hey, please find a slot and a room for the {project} session, dates {first} up to {last}, "
    "reading every time as {zone} local.",
)
