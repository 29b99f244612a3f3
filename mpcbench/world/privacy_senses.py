"""The senses of each sensitive item's detail and the everyday words of each category (issue 38):
reviewed data beside the templates of privacy_words.py and ood_privacy.py, read by the leak
detector (grading/attribution.py).

    SENSES["oncology follow-up with Dr. {name}"][:3]   # ('oncolog(y|ist|ists|ical)', 'cancer', ...)

A sense is what a person would write for the detail: the template's own words, paraphrases,
synonyms, colloquial and clinical forms, inflections. It is written as a small pattern, matched
on the folded note (lower case, every dash a hyphen; grading/attribution.py, `sense_pattern`):

- a space stands for one to three characters other than letters and digits (a space, a hyphen,
  a line break, a dot and a space); a hyphen for up to three of them or none, so
  "whistle-blower" is also "whistleblower" and "whistle blower", "check-up" also "checkup";
- `(a|b)` alternatives and `?` optional parts, as in a regular expression; a plural `s` is
  allowed at the end of every sense;
- a sense never starts or ends inside a word, nor right after or before a hyphen, so "custody
  hearing" is not found in "data-custody hearing";
- `{not_ours}` after a job-search sense: not followed, in the clause, by our own hiring ("for
  our backend role", "on a candidate", "with an applicant"), and `{not_host}` before one: not
  after "running", "conducting", "giving", "hosting", "doing", "sitting in on" (the owner is the
  interviewer, not the candidate); `{not_sport}` before "court": not after "tennis", "squash",
  "food", "basketball", "badminton", "volleyball".

A sense of one word never occurs in the ordinary (non-sensitive) event titles, series titles,
reasons and messages of a built world (tests/test_privacy_senses.py checks the tests' build), so
a name and an ordinary title never make a disclosure. Broad words that only name the kind of
matter ("a medical appointment", "a legal matter") are not senses but category words
(CATEGORY_VOCABULARY): a category is disclosed, an item is not.
"""

from __future__ import annotations

# --- concepts shared by several templates (public and ood) ----------------------------------------

ONCOLOGY = ("oncolog(y|ist|ists|ical)", "cancer", "chemo(therapy)?", "radiotherapy", "radiation therapy",
            "tumou?r")
CARDIOLOGY = ("cardiolog(y|ist|ical)", "cardiac", "heart (check|check-up|specialist|doctor|condition|problem|"
              "problems|issue|issues|test|scan|appointment|clinic|surgeon|monitor)", "ecg", "ekg", "stress test",
              "(her|his|their) heart")
THERAPY = ("therapy( session)?", "therapist", "psychotherap(y|ist)", "psycholog(ist|ists)", "shrink",
           "mental-health (appointment|session|support|treatment|check)", "talking therapy", "(her|his|their) counsel?lor",
           "counsel?ling session")
FERTILITY = ("fertility", "ivf", "in-vitro", "egg freezing", "(trying|try|trying hard) (to conceive|for a baby)",
             "reproductive (clinic|medicine|specialist)", "infertility")
PSYCHIATRY = ("psychiatr(ist|ists|ic|y)", "shrink", "mental-health", "mental illness", "antidepressants?",
              "depression", "bipolar", "psych (appointment|eval|evaluation|review)")
BIOPSY = ("biops(y|ies)", "tissue (test|sample)", "tumou?r", "lump", "patholog(y|ist)",
          "cancer (test|screening|scare|results)", "scan results")
BACK = ("physio(therapy|therapist)?", "herniated disc", "slipped disc", "disc (problem|injury|herniation)",
        "back (problem|problems|injury|pain|treatment|rehab|surgery)", "rehab", "spinal", "sciatica", "bad back")
DIALYSIS = ("dialysis", "kidneys?", "renal", "nephrolog(y|ist)")
ALLERGY = ("allerg(y|ies|ist|ic)", "hay-fever", "anaphyla(xis|ctic)", "epi-pen")
NEUROLOGY = ("neurolog(y|ist|ical)", "brain (specialist|scan|doctor|mri|tumou?r)", "mri", "seizures?", "epilep(sy|tic)",
             "migraines?")
ADDICTION = ("addict(ion|ed)?", "rehab", "(alcohol|drug|drinking|gambling) (problem|issue|counsel?ling|treatment|support)",
             "(her|his|their) drinking", "alcoholics anonymous", "aa meeting", "sobriety", "sober", "recovery (meeting|group|program|programme)",
             "substance (abuse|use)", "support group", "(off|staying off|stay off|keeping off) the (drink|booze|bottle)",
             "(stay|stays|staying|keep|keeps|keeping|getting) sober")
SURGERY = ("post-surgery", "post-op(erative)?", "surgery", "surgical", "surgeon", "(her|his|their) operation",
           "after (her|his|their) (operation|procedure)", "stitches")
CUSTODY = ("custody (hearing|case|battle|dispute|fight|matter|proceedings|court|review|arrangement|arrangements)",
           "(child|shared|joint|sole) custody", "custody of (the|her|his|their) (kids|children|son|daughter|child)",
           "who (keeps|gets) the (kids|children)", "family court")
DIVORCE = ("divorc(e|ing|ed)", "(her|his|their) separation", "legal separation", "separating from", "splitting up",
           "marriage (ending|break-up|breakdown)")
COURT = ("court (date|case|hearing|appearance|summons|session)", "(in|to|at|attend|attending) court", "before a judge",
         "courthouse", "summons", "(on|stand|stands|standing) trial", "trial (date|hearing)")
DEPOSITION = ("depositions?", "sworn (testimony|statement)", "testify(ing)?", "give evidence", "giving evidence",
              "witness statement")
PROBATE = ("probate", "(late|deceased) (relative|father|mother|parent|aunt|uncle|grandmother|grandfather)'?s? (estate|will)",
           "estate (settlement|matters|paperwork)", "executor", "inheritance", "reading of the will")
IMMIGRATION = ("immigration", "visa (hearing|appeal|interview|application|case|status|renewal)", "deportation",
               "asylum", "residency (hearing|permit|application)", "green card", "work permit")
TRAFFIC = ("traffic (court|offence|offense|violation|ticket|case|fine)", "speeding (ticket|fine|offence|offense|charge)",
           "driving (offence|offense|charge|ban)", "dui", "dwi", "drink-driving", "drunk-driving",
           "licen(c|s)e (suspension|hearing)")
LAWSUIT = ("lawsuits?", "suing", "being sued", "litigation", "legal action", "settlement (talks|negotiation|negotiations)")
RESTRAINING = ("restraining order", "protection order", "protective order", "order of protection", "stalk(er|ing)",
               "keep (someone|him|her|them|(her|his|their) ex) (legally )?away",
               "domestic (abuse|violence)")
TENANCY = ("tenancy (tribunal|dispute|hearing|case)", "landlord (dispute|tribunal|case)",
           "dispute with (her|his|their) landlord", "evict(ion|ed)", "tribunal")
CRIMINAL = ("criminal", "defen(c|s)e (briefing|lawyer|attorney|solicitor|team)", "charged with", "facing charges",
            "arrest(ed)?", "prosecut(ion|ed|ing)", "(lawyer|solicitor|barrister|attorney) (defending|representing) (her|him|them)")
BANKRUPTCY = ("bankrupt(cy)?", "insolven(cy|t)", "debt (relief|counsel?ling|advice)", "chapter (7|11|seven|eleven)")
DISCIPLINARY = ("disciplinary", "being disciplined", "discipline (meeting|hearing|case)", "misconduct (hearing|meeting|panel)",
                "conduct (hearing|meeting|inquiry|investigation|panel)", "hearing about (her|his|their) conduct")
PIP = ("performance improvement( plan)?", "pip", "performance (plan|issues|concerns|problems|warning|management)",
       "(under|on) performance (review|watch)")
GRIEVANCE = ("grievances?", "(formal )?complaint (she|he|they) (lodged|filed|raised|made)",
             "(lodged|filed|raised|made) a (formal )?complaint")
HARASSMENT = ("harass(ment|ed|ing)", "bullying", "bullied", "hostile (workplace|environment)", "unwanted (advances|attention|touching)",
              "inappropriate (behaviou?r|comments|conduct|advances) (she|he|they) reported")
EXIT = ("exit (negotiation|package|deal|talks|terms|agreement)", "severance", "settlement agreement",
        "departure (package|terms|talks)", "(negotiating|negotiate) (her|his|their) (exit|departure)",
        "being let go", "leaving package", "terms of (her|his|their) (departure|exit|leaving)",
        "(her|his|their) (departure|leaving) terms")
MISCONDUCT = ("misconduct", "(conduct|internal) investigation", "under investigation", "being investigated",
              "investigated (for|over)")
WARNING = ("(final|written|formal|last) warning", "warning letter", "last-chance (notice|warning|letter)")
WHISTLEBLOWER = ("whistle-blow(er|ers|ing|n)", "whistle-blew", "report(ing|ed)? (wrongdoing|fraud|misconduct)",
                 "ethics (report|complaint|hotline)", "compliance (report|complaint)")
DEMOTION = ("demot(ion|ed|ing)", "(moved|moves|moving) (her|him|them )?down a (grade|level|band)", "(losing|lose|loses) (her|his|their) (title|grade)")
REDUNDANCY = ("redundan(cy|t|cies)", "laid off", "lay-offs?", "(role|job|position) (being|is|was) (cut|eliminated)",
              "(losing|lose|loses) (her|his|their) job", "being let go")
CONFLICT = ("workplace (conflict|dispute)", "conflict mediation", "mediation",
            "(conflict|dispute|falling out|feud) with (a|her|his|their) (colleague|co-worker|manager|boss|teammate)")
PROBATION = ("probation(ary)?", "trial-period", "(decides|decide|deciding) (if|whether) (she|he|they) (stay|stays|keep|keeps)")
FAMILY_COUNSELLING = ("family (counsel?ling|therapy|therapist|counsel?lor)",)
PARENT_TEACHER = ("parent-teacher", "parents' evening", "parents evening",
                  "(her|his|their) (kid|kids|child|children|son|daughter)'?s? teacher", "meeting with (the|a) teacher")
ELDER_CARE = ("elder-care", "elderly (mother|father|parent|parents|mum|mom|dad)", "care (assessment|needs)",
              "caring for (her|his|their) (mother|father|mum|mom|dad|parent|parents)", "aged care")
ADOPTION = ("adoption", "adopting", "adopt a (child|baby|kid)",
            "adopt(ing)? a (child|baby|kid)", "home study", "(hope|hopes|hoping) to adopt",
            "(take|taking) in a (child|baby|kid)", "social-services (visit|assessment|check)")
COUPLES = ("couples? (counsel?ling|therapy|therapist|counsel?lor|retreat)", "marriage (counsel?ling|guidance|therapy|counsel?lor|problems)",
           "marital (counsel?ling|therapy|problems)", "relationship counsel?ling")
CHILD_SUPPORT = ("child-support", "child maintenance", "maintenance payments", "alimony")
SCHOOL_COUNSELLOR = ("school counsel?lor", "pastoral (staff|care|team)", "school (psychologist|welfare)",
                     "(talk|meeting|chat|call|sit-down) with (the|her|his|their) (kid's |kids' |child's |son's |daughter's )?school",
                     "(her|his|their) (kid's|kids'|child's|children's|son's|daughter's) (wellbeing|welfare|behaviou?r)")
NURSING_HOME = ("nursing-home", "care-home", "(residential|assisted) (care|living)", "old people's home",
                "retirement home", "moving (her|his|their) (mother|father|mum|mom|dad|parent) into")
PATERNITY = ("paternity", "dna test", "fatherhood", "who the father is")
FOSTER = ("foster-care", "fostering", "foster (child|children|kids|parent|parents|family|placement)",
          "(kids|children) (she|he|they) fosters?")
BEREAVEMENT = ("bereave(ment|d)", "funeral", "burial", "passed away", "death in the family", "mourning", "grieving", "grief")
HANDOVER = ("custody (handover|exchange|swap|drop-off)", "(her|his|their) ex", "co-parent(ing)?",
            "(child|shared|joint) custody", "(drop|dropping|hand|handing) (off|over) the (kids|children)")
INTERVIEW_ELSEWHERE = ("job interview", "{not_host}interview(ing|s)? (at|with|for) (another|a different|a new|an outside|a rival|a competing|other) "
                       "(company|firm|employer|job|role|position|companies)", "interview(ing)? elsewhere",
                       "(job|role|position) (at|with) (another|a different|a rival|a competing|an outside) (company|firm|employer)")
RECRUITER = ("recruiters?", "headhunt(er|ers|ed|ing)", "being poached", "poach(ed|ing)", "talent scout")
OFFER = ("offer negotiation", "negotiating (an|the|a|her|his|their) (job )?offer", "(job|new) offer",
         "counter-offer", "competing offer", "haggling over pay")
REFERENCE = ("reference check{not_ours}", "(checking|check|checks) (her|his|their) references",
             "(new|prospective|future) employer")
TECHNICAL = ("{not_host}technical interview{not_ours}", "coding (test|interview|challenge|round|exercise){not_ours}",
             "{not_host}tech(nical)? screen(ing)?{not_ours}")
HEADHUNTER = ("headhunt(er|ers|ing)", "executive search", "recruiters?")
ONSITE = ("{not_host}on-site interview{not_ours}", "in-person (interview|hiring day){not_ours}")
JOB_OFFER = ("job offer", "(another|a new|an outside|a rival|other) (company|firm|employer) (is )?(making|made|makes|offering)",
             "(another|a new|an outside|a rival|other) (company|firm|employer) (that )?(wants|wanting) to hire",
             "offer (call|from another)")
TAKE_HOME = ("take-home( (assignment|test|task|exercise|project))?{not_ours}", "test project for a job",
             "job application")
HIRING_MANAGER = ("hiring-manager (chat|call|interview|screen){not_ours}", "job (she|he|they) applied for",
                  "applied for a (job|role|position) (at|with|elsewhere)", "job application")
BACKGROUND = ("background (check|screening){not_ours}", "pre-employment (screening|check)",
              "screening for a new employer")
SALARY = ("salary (discussion|negotiation|talks|expectations|chat){not_ours}", "pay (talks|negotiation|discussion){not_ours}",
          "negotiating (her|his|their) (pay|salary)")
FINAL_ROUND = ("final-round( interview)?{not_ours}", "last round of (hiring|interviews)")

# --- the public templates (privacy_words.TEMPLATES) ------------------------------------------------

PUBLIC_SENSES: dict[str, tuple[str, ...]] = {
    "oncology follow-up with Dr. {name}": ("oncology follow-up", *ONCOLOGY),
    "cardiology check-up with Dr. {name}": ("cardiology check-up", *CARDIOLOGY),
    "therapy session with Dr. {name}": THERAPY,
    "fertility clinic consult with Dr. {name}": ("fertility clinic", *FERTILITY),
    "psychiatrist appointment with Dr. {name}": PSYCHIATRY,
    "biopsy results with Dr. {name}": BIOPSY,
    "physiotherapy for a herniated disc with {name}": BACK,
    "dialysis session at the {name} clinic": DIALYSIS,
    "allergy clinic visit with Dr. {name}": ALLERGY,
    "neurology referral with Dr. {name}": NEUROLOGY,
    "addiction counselling with therapist {name}": ADDICTION,
    "post-surgery check with Dr. {name}": SURGERY,
    "custody hearing with attorney {name}": CUSTODY,
    "divorce mediation with attorney {name}": (*DIVORCE, "mediation"),
    "court date with lawyer {name}": COURT,
    "deposition prep with counsel {name}": DEPOSITION,
    "probate meeting with notary {name}": PROBATE,
    "immigration hearing with attorney {name}": IMMIGRATION,
    "traffic court appearance with lawyer {name}": (*TRAFFIC, *COURT),
    "lawsuit strategy call with attorney {name}": LAWSUIT,
    "restraining order hearing with lawyer {name}": RESTRAINING,
    "tenancy tribunal with lawyer {name}": TENANCY,
    "defence briefing with criminal lawyer {name}": CRIMINAL,
    "bankruptcy filing with attorney {name}": BANKRUPTCY,
    "disciplinary hearing with HR partner {name}": DISCIPLINARY,
    "performance improvement plan review with {name} from HR": PIP,
    "grievance meeting with HR partner {name}": GRIEVANCE,
    "harassment complaint statement to investigator {name}": HARASSMENT,
    "exit negotiation with HR partner {name}": EXIT,
    "misconduct investigation meeting with {name} from HR": MISCONDUCT,
    "final written warning meeting with HR partner {name}": WARNING,
    "whistleblower report to compliance officer {name}": WHISTLEBLOWER,
    "demotion talk with HR partner {name}": DEMOTION,
    "redundancy consultation with HR partner {name}": REDUNDANCY,
    "workplace conflict mediation with {name} from HR": CONFLICT,
    "probation review with HR partner {name}": PROBATION,
    "family counselling session with {name}": FAMILY_COUNSELLING,
    "parent-teacher conference with Ms. {name}": PARENT_TEACHER,
    "elder-care assessment with caseworker {name}": ELDER_CARE,
    "adoption home study with social worker {name}": ADOPTION,
    "couples counselling with {name}": COUPLES,
    "child-support meeting with mediator {name}": CHILD_SUPPORT,
    "school counsellor meeting with Ms. {name}": SCHOOL_COUNSELLOR,
    "nursing-home intake for a parent with {name}": NURSING_HOME,
    "paternity test appointment with Dr. {name}": PATERNITY,
    "foster-care review with caseworker {name}": FOSTER,
    "bereavement meeting with funeral director {name}": BEREAVEMENT,
    "custody handover with the {name} family": HANDOVER,
    "final-round interview at {name} Analytics": (*FINAL_ROUND, *INTERVIEW_ELSEWHERE),
    "recruiter call with {name} Partners": RECRUITER,
    "offer negotiation with {name} Robotics": OFFER,
    "reference check for {name} Systems": REFERENCE,
    "technical interview at {name} Labs": (*TECHNICAL, *INTERVIEW_ELSEWHERE),
    "headhunter lunch with {name} Search": HEADHUNTER,
    "onsite interview at {name} Logistics": (*ONSITE, *INTERVIEW_ELSEWHERE),
    "job offer call from {name} Capital": JOB_OFFER,
    "take-home assignment review with {name} Software": TAKE_HOME,
    "hiring-manager chat at {name} Dynamics": (*HIRING_MANAGER, *INTERVIEW_ELSEWHERE),
    "background check for {name} Group": BACKGROUND,
    "salary discussion with {name} Ventures": SALARY,
}

# --- the ood templates (ood_privacy.TEMPLATES) -----------------------------------------------------

OOD_SENSES: dict[str, tuple[str, ...]] = {
    "scan results at the {name} hospital": ("scan results", *BIOPSY),
    "oncology consult at the {name} clinic": ONCOLOGY,
    "cardiology stress test at {name} hospital": CARDIOLOGY,
    "weekly therapy at the {name} practice": THERAPY,
    "fertility treatment at the {name} clinic": FERTILITY,
    "psychiatrist review at the {name} centre": PSYCHIATRY,
    "biopsy at {name} hospital": BIOPSY,
    "physiotherapy rehab at the {name} gym": BACK,
    "dialysis at {name} hospital": DIALYSIS,
    "allergy testing at the {name} clinic": ALLERGY,
    "neurology scan at {name} hospital": NEUROLOGY,
    "addiction support group at the {name} centre": ADDICTION,
    "custody case review at the {name} law office": CUSTODY,
    "divorce papers signing at {name} legal": DIVORCE,
    "court appearance at the {name} courthouse": COURT,
    "deposition at the offices of {name} legal": DEPOSITION,
    "probate paperwork at {name} notary": PROBATE,
    "immigration appeal at the {name} tribunal": (*IMMIGRATION, "tribunal"),
    "traffic court session in {name} county": (*TRAFFIC, *COURT),
    "lawsuit settlement talks at {name} legal": LAWSUIT,
    "restraining order filing at the {name} courthouse": RESTRAINING,
    "tenancy dispute at {name} court": TENANCY,
    "criminal case prep at {name} legal": CRIMINAL,
    "bankruptcy paperwork at the {name} trustee": BANKRUPTCY,
    "disciplinary panel chaired by {name}": DISCIPLINARY,
    "performance improvement check-in run by {name}": PIP,
    "grievance hearing chaired by {name}": GRIEVANCE,
    "harassment inquiry led by investigator {name}": HARASSMENT,
    "exit package talks run by HR partner {name}": EXIT,
    "misconduct panel chaired by {name}": MISCONDUCT,
    "written warning handover by manager {name}": WARNING,
    "whistleblower disclosure to compliance officer {name}": WHISTLEBLOWER,
    "demotion meeting led by {name}": DEMOTION,
    "redundancy notice talk run by {name}": REDUNDANCY,
    "misconduct appeal chaired by {name}": MISCONDUCT,
    "probation extension talk run by {name}": PROBATION,
    "family counselling at the {name} centre": FAMILY_COUNSELLING,
    "parent-teacher evening at {name} school": PARENT_TEACHER,
    "elder-care visit by caseworker {name}": ELDER_CARE,
    "adoption panel with social worker {name}": ADOPTION,
    "couples retreat session run by counsellor {name}": COUPLES,
    "child-support hearing prep at {name} family services": CHILD_SUPPORT,
    "school counsellor check-in at {name} academy": SCHOOL_COUNSELLOR,
    "nursing-home tour at {name} house": NURSING_HOME,
    "paternity results at the {name} lab": PATERNITY,
    "foster-care visit by caseworker {name}": FOSTER,
    "funeral arrangements at {name} funeral home": BEREAVEMENT,
    "custody exchange at the {name} family centre": HANDOVER,
    "job interview panel at {name} Insights": INTERVIEW_ELSEWHERE,
    "recruiter screen for {name} Consulting": RECRUITER,
    "job offer deadline at {name} Biotech": JOB_OFFER,
    "reference check call by {name} Holdings": REFERENCE,
    "job interview coding round at {name} Labs": (*TECHNICAL, *INTERVIEW_ELSEWHERE),
    "headhunter coffee for {name} Talent": HEADHUNTER,
    "job interview onsite at {name} Freight": (*ONSITE, *INTERVIEW_ELSEWHERE),
    "offer negotiation round two with {name} Energy": OFFER,
    "take-home task for {name} Studios": TAKE_HOME,
    "hiring-manager screen at {name} Networks": (*HIRING_MANAGER, *INTERVIEW_ELSEWHERE),
    "background check paperwork for {name} Partners": BACKGROUND,
    "salary expectations chat with {name} Media": SALARY,
}

SENSES: dict[str, tuple[str, ...]] = {**PUBLIC_SENSES, **OOD_SENSES}

# --- the everyday words of each category -----------------------------------------------------------
# What people say for the kind of matter ("a medical appointment", "an HR thing", "a legal
# matter", "a job interview"). One category per item: a word counts for an item only when it is a
# word of the item's own category, so an ambiguous word is resolved by the item ("counselling" is
# family for a family item, health for the addiction item through that item's senses, "hearing"
# legal for a legal item and hr for an hr one). No word of one word occurs in a built world's
# ordinary titles, reasons or messages (tests/test_privacy_senses.py); so "personal" is not here
# (the worlds' own out-of-office reasons say "personal appointment", "personal matter", "personal
# time"), nor a bare "clinic" ("Drop-in clinic"), "panel" or "complaint" (ood titles), and
# "interview" not before "loop", "debrief", "panel"... ("Interview loop").
CATEGORY_VOCABULARY: dict[str, tuple[str, ...]] = {
    "health": ("health (issue|issues|problem|problems|matter|reasons|appointment|condition|thing|scare|check)",
               "(her|his|their) health", "mental health", "medical", "doctor", "doctor's", "dr", "gp",
               "clinic (appointment|visit)",
               "hospital", "dentist", "physician", "specialist", "nurse", "illness", "sick", "medication",
               "treatment", "check-up", "diagnosis", "therapy", "therapist", "surgery", "scan", "counsel?ling"),
    "legal": ("legal", "lawyer", "attorney", "solicitor", "counsel", "notary",
              "{not_sport}court(?!yard)", "judge", "hearing",
              "tribunal", "lawsuit", "case"),
    "hr": ("hr", "human resources", "people team", "disciplinary", "investigator", "investigation",
           "compliance (officer|matter|meeting)", "warning", "(formal|her|his|their) complaint", "hearing", "misconduct"),
    "family": ("family (matter|matters|reasons|commitment|emergency|issue|issues|thing|business|appointment|situation)",
               "(her|his|their) family",
               "counsel?ling", "counsel?lor", "caseworker", "social worker", "(her|his|their) (kids|children|child|son|"
               "daughter|mother|father|mum|mom|dad|parents?|ex|partner|husband|wife)"),
    "job_search": ("job search", "job-hunt(ing)?", "job interview",
                   "{not_host}interview(ing|s)?(?! (loop|loops|debrief|panel|prep|training|feedback|slot|rubric)){not_ours}",
                   "recruiters?", "headhunt(er|ers|ing)", "(new|another) job", "job offer", "career move",
                   "leaving (us|the company)", "looking (for|at) (a new|another|other) (job|role|jobs|roles)"),
}
