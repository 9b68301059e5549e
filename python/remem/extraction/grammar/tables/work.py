"""Fact table: work (``job``) — employers and job titles, starting, leaving, promotion."""

from __future__ import annotations

from remem.extraction.grammar.rule import END, Rule, rule
from remem.extraction.grammar.tables.common import PRE as _PRE

__all__ = ["JOB"]

_WORKS = "{S} works at {v}."
_LEFT = "{S} no longer works at {v}."
_JOBSTART = f"{_PRE} @start|@get a|an|my|the|this? new? @job_adj* @job_noun"
JOB: tuple[Rule, ...] = (
    rule(
        "job",
        "employer",
        f"{_JOBSTART} as? {{t:job}}? at|with {{v:org}}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule("job", "job_title", f"{_JOBSTART} as {{v:job}}", "{S} works as {a} {v}.", event=True),
    rule(
        "job",
        "employer",
        f"{_PRE} work|works|working @adv* as? {{t:job}}? at|for {{v:org}}",
        _WORKS,
        entity="org",
        negated="end",
    ),
    rule("job", "employer", f"{_PRE} employed by|at {{v:org}}", _WORKS, entity="org"),
    rule(
        "job",
        "employer",
        f"{_PRE} work|works|working in {{t:phrase1}} at|for {{v:corg}}",
        _WORKS,
        entity="org",
        negated="end",
    ),
    rule(
        "job",
        "employer",
        # a post named by where one stands: "started on the tills at Tesco", "starting on
        # the front desk at the climbing gym", "started behind the bar at the Crown"
        f"{_PRE} started|start|starting|began on|at|behind the front|main? "
        "desk|tills|till|reception|bar|counter|checkouts|checkout|door|floor|ward at {v:org}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} started|start|starting|began|begin|joined|joining|join at|with? {{v:corg}}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} got|been|was hired by|at {{v:org}}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} @start|starting working|work at|for {{v:org}}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "job_title",
        f"{_PRE} started|start|starting|began|begin|joined|joining|join at|with? {{o:corg}} "
        "as {v:job}",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule(
        "job",
        "job_title",
        f"{_PRE} got|been|was|being|be? made|making a? partner",
        "{S} is a partner.",
        event=True,
        fixed="partner",
    ),
    rule(
        "job",
        "job_title",
        "they|work|management|my|the|firm|boss* made|make|makes me a? partner",
        "{S} is a partner.",
        event=True,
        fixed="partner",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} got|been|was|being|be? made|making a? partner at|in {{v:org}}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        "they|work|management|my|the|firm|boss* made|make|makes me a? partner at|in {v:org}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule("job", "employer", "{who} @be @adv* now at {v:org}", _WORKS, entity="org"),
    rule(
        "job",
        "employer",
        "{who} @have? @adv* accepted|took|taking|accepting|signed a|an|"
        "the new? offer|job from|at|with {v:org}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "job_title",
        f"{_PRE} work|works|working as {{v:job}}",
        "{S} works as {a} {v}.",
        negated="end",
    ),
    rule(
        "job",
        "job_title",
        # a career's length, the subject left out: "Ten years as a nurse and …", "I've done
        # six years as a teacher"
        f"{_PRE} done|spent|put|clocked? in? @num_word|{{n:num}} years|months as {{v:job}}",
        "{S} works as {a} {v}.",
    ),
    rule(
        "job",
        "job_title",
        "new|first week|day|month* working|job|role|position|post as {v:job}",
        "{S} works as {a} {v}.",
        event=True,
        scan=True,  # "It's official: new role as a nurse from Monday", "first week working as …"
    ),
    rule(
        "job",
        "job_title",
        # the job as a gerund subject: "Being a nurse means …", "some days being a teacher is …"
        "being a|an {v:job} means|is|'s|has|makes|can",
        "{S} works as {a} {v}.",
        scan=True,
    ),
    rule(
        "job",
        "job_title",
        f"{_PRE} done|finished|through with? being a|an {{v:job}}",
        "{S} no longer works as {a} {v}.",
        op=END,
    ),
    rule(
        "job",
        "job_title",
        f"{_PRE} got|been|was|getting promoted to {{v:job}}",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule("job", "job_title", f"{_PRE} promoted to {{v:job}}", "{S} works as {a} {v}.", event=True),
    rule(
        "job",
        "job_title",
        f"{_PRE} got|been|was|being made a|an|the? {{v:job}} $",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule(
        "job",
        "job_title",
        "they|work|management|my|the boss? promoted|made me a|an? {v:job}",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule(
        "job",
        "job_title",
        "they|work|management|my|the boss? promoted me to {v:job}",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule(
        "job",
        "job_title",
        f"{_PRE} became|become|becoming a|an|the new? {{v:job}}",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule(
        "job",
        "job_title",
        "{who} @be @adv* a|an|the {v:job}",
        "{S} works as {a} {v}.",
        negated="end",
    ),
    rule(
        "job",
        "employer",
        "{who} @be @adv* a|an|the new? {t:job} at|for {v:org}",
        _WORKS,
        entity="org",
    ),
    rule(
        "job",
        "job_title",
        "my|our new? job? title|role|position|job is|'s now? a|an? {v:job}",
        "{S} works as {a} {v}.",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} gave|give|giving|handed|hand|handing|put|putting|"
        "turned|turning in? my|in|the? in? @notice in? at|to {v:org}",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} gave|give|giving|handed|hand|handing|put|putting|"
        "turned|turning in? my|in|the? in? @notice",
        _LEFT,
        op=END,
        fixed="none",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} resigned|resigning|resign from? {{v:org}}",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        # "is retiring", "I'm resigning": a plan, not yet an ending
        f"{_PRE} resigned|retired|resign|retire",
        _LEFT,
        op=END,
        fixed="none",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} @leave|lost|losing my|the|his|her|their job|role|position at|with {{v:org}}",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} @leave|lost|losing my|the|his|her|their job|role|position",
        _LEFT,
        op=END,
        fixed="none",
    ),
    rule("job", "employer", f"{_PRE} quit {{v:corg}}", _LEFT, op=END, entity="org"),
    rule(
        "job",
        "employer",
        "i? @adv* @have? @adv* @be? @adv* left|leaving {v:corg}",  # "we left Glasgow": a city
        _LEFT,
        op=END,
        entity="org",
        needs="employer",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} left {{v:corg}} and|to @adv* joined|join|start|started",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        # leaving one employer for a job at another: "I'm leaving Acme for a job at Globex",
        # "quit Boots for a new role with Superdrug" (bare "leaving Leeds for York" is a move)
        f"{_PRE} left|leaving|quit|quitting {{v:corg}} for a|an|my? new? @job_noun at|with "
        "{o:corg}",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} left|leaving|quit|quitting {{o:corg}} for a|an|my? new? @job_noun at|with "
        "{v:corg}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} got|been|was|being laid|let off|go from? {{v:org}}?",
        _LEFT,
        op=END,
        fixed="none",
        entity="org",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} got|been|was|being made? fired|sacked|redundant from|by? {{v:org}}?",
        _LEFT,
        op=END,
        fixed="none",
        entity="org",
    ),
    rule(
        "job",
        "employer",
        # "friday is my last day at Boots", "it was my last shift at Pret"
        "it|today|tomorrow|tonight|@weekday? @be? my|our|the? last day|shift|week at {v:org}",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        # leaving a place of work for no employer at all: "left the agency, freelancing now"
        f"{_PRE} left|leaving|quit|quitting {{v:org}}",
        _LEFT,
        op=END,
        entity="org",
        needs="@work_status",
    ),
    rule(
        "job",
        "employer",
        f"{_PRE} finished|finishing at {{v:corg}}",
        _LEFT,
        op=END,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        # "my colleagues at Brightline", "coworkers at Acme are great": the speaker's workplace
        "my|our|the|all? @workmates @adv* at|in {v:org}",
        _WORKS,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        "my|our team|boss|manager|office at|in {v:org}",
        _WORKS,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        # "everyone at Brightline is dreading the review": a workplace only when the message
        # talks about work (else it is a shop, a gym, a party)
        "everyone|everybody|someone|somebody @adv* at|in {v:org}",
        _WORKS,
        entity="org",
        needs="@work_talk",
    ),
    rule(
        "job",
        "employer",
        # a workplace's own events: "Payroll at Copperleaf messed up my overtime again",
        # "All-hands at Halden ran over", "Quarter-end at Acme means nobody leaves before
        # eight" — beside work talk ("the standup at the Comedy Store" is comedy, not a meeting;
        # "layoffs at Meta" is news, so no such word is an event here)
        "the|our? @work_event @adv* at|in {v:org}",
        _WORKS,
        entity="org",
        needs="@work_talk",
    ),
    rule(
        "job",
        "job_title",
        # "my first shift as a paramedic", "first month as head chef"
        "my|the? first|second|third day|week|shift|month as a|an? {v:job}",
        "{S} works as {a} {v}.",
        event=True,
    ),
    rule(
        "job",
        "employer",
        "my|our|the? first day|week|shift|month at {v:org}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        # a new job told by its first-day kit: "Got my badge and laptop at Meridian"
        f"{_PRE} got|picked|collected|getting|picking|collecting up? my|a|the|our? new? @work_kit "
        "and|,? my|a|the? new? @work_kit? at|from {v:org}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        # "my new team at Halden is lovely", "the new team at Meridian took me for lunch"
        "my|our new team|colleagues|boss|manager|office at {v:org}",
        _WORKS,
        event=True,
        entity="org",
    ),
    rule(
        "job",
        "employer",
        "the new team|colleagues|crew at {v:org} took|welcomed|showed|gave me",
        _WORKS,
        event=True,
        entity="org",
    ),
)
