"""The extraction grammar: tokeniser, pattern notation, guards, operations and corrections."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from remem.controller.extraction import ExtractionContext
from remem.errors import InvalidArgumentError
from remem.extraction import RuleExtractor, extract_statements
from remem.extraction.grammar.casing import likely_name
from remem.extraction.grammar.pattern import compile_pattern
from remem.extraction.grammar.rule import rule
from remem.extraction.grammar.tokens import sentences, tokenise
from remem.models import TranscriptEntry

AT = datetime(2026, 5, 14, 12, 0, tzinfo=UTC)


def facts(text: str) -> set[tuple[str, str, str, str]]:
    return {(s.subject, s.attribute, s.value, s.operation) for s in extract_statements(text, AT)}


def entry(n: int, text: str) -> TranscriptEntry:
    return TranscriptEntry(
        id=f"t{n}",
        session_id="s",
        turn_number=n,
        user_message=text,
        assistant_message="ok",
        created_at=AT,
    )


@pytest.mark.parametrize("name", ["Óscar", "Zoë", "O'Brien", "Jean-Luc", "Łukasz", "Ørjan"])
def test_names_in_any_script_are_one_capitalised_token(name: str) -> None:
    [token] = tokenise(name)
    assert (token.text, token.cap, token.kind) == (name, True, "word")
    assert facts(f"my cousin {name} is visiting") == {("user", "relative", name, "set")}


def test_contractions_and_possessives_are_split_so_no_name_keeps_them() -> None:
    assert [t.low for t in tokenise("I'm sure Sam's dog can't")] == [
        "i",
        "'m",
        "sure",
        "sam",
        "'s",
        "dog",
        "can",
        "n't",
    ]
    assert [t.low for t in tokenise("im ok dont worry")] == ["i", "'m", "ok", "do", "n't", "worry"]
    assert facts("my brother's name is Sam") == {("user", "sibling", "Sam", "set")}


def test_clauses_split_at_a_new_subject_but_not_inside_a_list() -> None:
    [s] = sentences("I'm allergic to peanuts, shellfish and cats, and my sister lives in York")
    assert [[t.low for t in c][:3] for c in s.clauses] == [
        ["i", "'m", "allergic"],
        ["my", "sister", "lives"],
    ]
    [joint] = sentences("Sam and I split up")
    assert len(joint.clauses) == 1


def test_an_email_and_a_phone_number_are_single_tokens() -> None:
    kinds = [(t.text, t.kind) for t in tokenise("mail a.b+c@d.co.uk or +44 7700 900123 in 2019")]
    assert ("a.b+c@d.co.uk", "email") in kinds
    assert ("+44 7700 900123", "phone") in kinds
    assert ("2019", "num") in kinds


def test_the_pattern_notation_and_its_errors() -> None:
    p = compile_pattern("{who} @adv* moved|relocated to {v:place}")
    m = p.match(tokenise("I just moved to New York"), 0)
    assert m is not None
    assert m.slots["v"][2] == "New York"
    assert p.match(tokenise("I painted the fence"), 0) is None
    with pytest.raises(InvalidArgumentError, match="unknown word class"):
        compile_pattern("@nosuchclass {v:place}")
    with pytest.raises(InvalidArgumentError, match="unknown slot type"):
        compile_pattern("to {v:planet}")
    with pytest.raises(InvalidArgumentError, match="no fixed value"):
        rule("move", "city", "i moved", "{S} moved.")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my friend moved to Berlin", set()),
        ("she moved to Rome", set()),
        ("Ana moved to Berlin", {("Ana", "city", "Berlin", "set")}),
        ("if I moved to Paris I'd learn French", set()),
        ("should I quit?", set()),
        ("should i quit my job", set()),
        ("I'm thinking about moving to Berlin", set()),
        ("I don't live in Paris", set()),
        ("I don't live in Paris anymore", {("user", "city", "Paris", "end")}),
        ("I'm not doing keto any more", {("user", "diet", "keto", "end")}),
        ("I no longer work at Amazon", {("user", "employer", "Amazon", "end")}),
    ],
)
def test_guards_subject_question_hypothetical_and_negation(
    text: str, expected: set[tuple[str, str, str, str]]
) -> None:
    assert facts(text) == expected


def test_the_phrasings_the_persona_harness_missed() -> None:
    assert facts("so I've switched to pescatarian") == {("user", "diet", "pescatarian", "set")}
    assert facts("Sam and I split up in the spring") == {("user", "partner", "Sam", "end")}
    assert facts("gave my notice at Acme... starting at Globex next week") == {
        ("user", "employer", "Acme", "end"),
        ("user", "employer", "Globex", "set"),
    }
    assert facts("we've got the keys to the new place in Leeds") == {
        ("user", "city", "Leeds", "set")
    }
    assert facts("Our old dog Rex died and we adopted two kittens, Mochi and Miso") == {
        ("user", "pet", "Rex", "end"),
        ("user", "pet", "Mochi", "set"),
        ("user", "pet", "Miso", "set"),
    }
    assert facts("took Pepper the beagle to the vet") == {("user", "pet", "Pepper", "set")}
    assert facts("The user's brother is called Sam's.") == set()


def test_a_correction_replaces_the_misstatement_in_the_message() -> None:
    [s] = extract_statements(
        "my interview is on Wednesday. sorry, Thursday, not Wednesday — I misread the invite", AT
    )
    assert (s.subject, s.attribute, s.value, s.operation, s.previous) == (
        "interview",
        "date",
        "Thursday",
        "correct",
        "Wednesday",
    )
    assert extract_statements("not Monday, Tuesday", AT) == []  # corrects nothing known


async def test_a_correction_in_a_later_turn_finds_what_it_corrects() -> None:
    extractor = RuleExtractor()
    ctx = ExtractionContext("s", AT)
    await extractor.extract([entry(1, "I work at Oracle")], context=ctx)
    result = await extractor.extract([entry(2, "I misspoke, it's Cisco not Oracle")], context=ctx)
    [m] = result.memories
    assert (m.attribute, m.value, m.operation, m.previous) == (
        "employer",
        "Cisco",
        "correct",
        "Oracle",
    )
    other = await extractor.extract(
        [entry(3, "I misspoke, it's Cisco not Oracle")], context=ExtractionContext("other", AT)
    )
    assert other.memories == ()  # another session has nothing to correct


async def test_an_ending_is_a_keyed_memory_without_an_edge_and_others_keep_their_subject() -> None:
    result = await RuleExtractor().extract(
        [entry(1, "Sam and I split up. My sister Ana moved to Rome")],
        context=ExtractionContext("s", AT),
    )
    by_attr = {(m.subject, m.attribute): m for m in result.memories}
    ended = by_attr[("user", "partner")]
    assert (ended.value, ended.operation) == ("Sam", "end")
    assert by_attr[("Ana", "city")].value == "Rome"
    edges = {(r.source, r.relation_type, r.target) for r in result.relationships}
    assert edges == {("user", "sibling", "Ana"), ("Ana", "lives_in", "Rome")}


def test_vaping_and_smoking_are_different_habits() -> None:
    assert facts("I don't vape anymore") == {("user", "habit", "vaping", "end")}
    assert facts("I don't smoke anymore") == {("user", "habit", "smoking", "end")}


def test_a_trailing_time_phrase_does_not_make_a_phrase_unfinished() -> None:
    assert facts("I'm into gardening these days") == {("user", "hobby", "gardening", "set")}
    assert facts("I love the sound of that") == set()


def test_an_animal_named_in_two_words_reads_as_one() -> None:
    assert facts("we got two guinea pigs, Salt and Vinegar") == {
        ("user", "pet", "Salt", "set"),
        ("user", "pet", "Vinegar", "set"),
    }
    assert facts("my bearded dragon is called Spike") == {("user", "pet", "Spike", "set")}


def test_a_capitalised_gerund_opening_a_sentence_is_not_a_person() -> None:
    assert facts("Cooking keto at home is easy, eating out is the hard part.") == set()
    assert facts("Running is my therapy") == set()
    assert facts("Ana is vegan") == {("Ana", "diet", "vegan", "set")}
    assert facts("Xiao-Ling is vegan") == {("Xiao-Ling", "diet", "vegan", "set")}


def test_classes_signed_up_for_and_a_group_joined_are_a_pastime_taken_up() -> None:
    assert facts("Signed up for salsa dancing classes, first one was great") == {
        ("user", "habit", "salsa dancing", "set")
    }
    assert facts("I started pottery lessons last week") == {("user", "habit", "pottery", "set")}
    assert facts("I have joined a choir!") == {("user", "habit", "choir", "set")}
    assert facts("joined the local running club lol") == {
        ("user", "habit", "local running club", "set")
    }
    assert facts("signed up for a newsletter") == set()  # no class, no pastime
    assert facts("I joined the queue") == set()  # not a group
    assert facts("I joined Globex last week") == {("user", "employer", "Globex", "set")}


def test_a_habit_named_with_one_word_before_its_gerund_can_be_given_up() -> None:
    assert facts("I have given up the sea swimming, the jellyfish won.") == {
        ("user", "habit", "sea swimming", "end")
    }
    assert facts("I started wild swimming every morning") == {
        ("user", "habit", "wild swimming", "set")
    }
    assert facts("I quit smoking") == {("user", "habit", "smoking", "end")}


def test_a_diet_from_now_on_and_a_capitalised_verb_that_is_no_person() -> None:
    assert facts("Pescatarian from now on.") == {("user", "diet", "pescatarian", "set")}
    # "Tried" opening a clause is a verb, never a person who "is vegan"
    assert facts("Tried a vegan recipe from a video, surprisingly good.") == set()
    assert facts("Ordered jollof rice again tonight") == set()


def test_a_first_or_last_day_at_a_workplace_starts_or_ends_the_employer() -> None:
    # typed without capitals: the workplace's capital is restored (remem.extraction.grammar.casing)
    assert facts("first week at stonebridge was wild") == {
        ("user", "employer", "Stonebridge", "set")
    }
    assert facts("First day at Globex tomorrow!") == {("user", "employer", "Globex", "set")}
    assert facts("My last day at Acme is Friday") == {("user", "employer", "Acme", "end")}
    assert facts("my first week at uni was fun") == set()  # a school is no employer
    assert facts("first week at home with the baby") == set()


def test_a_weekday_opening_a_clause_is_when_not_who_and_a_badge_handed_in_is_notice() -> None:
    assert facts("Handed in my badge at Oakmere School. Monday I start at Copperleaf Games!") == {
        ("user", "employer", "Oakmere School", "end"),
        ("user", "employer", "Copperleaf Games", "set"),
    }
    assert facts("Tomorrow I start at Globex") == {("user", "employer", "Globex", "set")}
    assert facts("Monday was awful") == set()


def test_an_elided_subject_is_whoever_the_sentence_named_last() -> None:
    """The second clause has no subject of its own: it is the sister's (dropped, unnamed) or
    Tom's, never the user's."""
    assert facts("my sister moved to Leeds and started at Asda") == set()
    assert facts("Tom moved to Leeds and started at Asda") == {
        ("Tom", "city", "Leeds", "set"),
        ("Tom", "employer", "Asda", "set"),
    }
    assert facts("moved to Bath, started at Dyson") == {
        ("user", "city", "Bath", "set"),
        ("user", "employer", "Dyson", "set"),
    }


def test_leaving_a_named_place_is_a_job_ending_only_beside_a_new_job() -> None:
    """ "left Costa" alone may be a town; with a new job in the same message it is the old job
    (a row's ``needs``), and "we left Glasgow" stays a place."""
    assert facts("I left Leeds last year") == set()
    assert facts("left Costa, starting at Greggs on monday") == {
        ("user", "employer", "Costa", "end"),
        ("user", "employer", "Greggs", "set"),
    }
    assert facts("we left Glasgow and I started at Tesco") == {("user", "employer", "Tesco", "set")}


def test_the_name_one_goes_by_wins_over_the_given_name_in_the_same_sentence() -> None:
    assert facts("my name is Elizabeth but everybody calls me Libby") == {
        ("user", "name", "Libby", "set")
    }
    assert facts("my name is Elizabeth") == {("user", "name", "Elizabeth", "set")}


def test_agreeing_with_someone_is_not_a_partner() -> None:
    assert facts("I'm with Jake on that one") == set()
    assert facts("I've been with Carla for six years") == {("user", "partner", "Carla", "set")}
    assert facts("I'm not with Ben anymore") == {("user", "partner", "Ben", "end")}


def test_a_date_with_a_month_drops_its_article_and_a_holiday_is_a_day() -> None:
    assert facts("my birthday is on the 3rd of June") == {
        ("user", "birthday", "3rd of June", "set")
    }
    assert facts("my exam is on the 21st") == {("exam", "date", "the 21st", "set")}
    assert facts("i was born on christmas eve") == {("user", "birthday", "christmas eve", "set")}
    assert facts("my gp appt is on monday") == {("gp appointment", "date", "monday", "set")}


def test_a_time_word_before_an_inversion_makes_a_statement_not_a_question() -> None:
    assert facts("yesterday was my last day at Wickes") == {("user", "employer", "Wickes", "end")}
    assert facts("was my last day at Wickes") == set()  # asked without "?"


def test_leaving_for_no_employer_ends_the_job_and_an_unknown_needed_class_is_refused() -> None:
    assert facts("left the agency. freelancing now") == {("user", "employer", "agency", "end")}
    assert facts("left the agency") == set()  # a place or a job: nothing said beside it
    with pytest.raises(InvalidArgumentError, match="@nonsense"):
        rule("job", "employer", "left {v:org}", "{S} left {v}.", needs="@nonsense")


def test_a_row_that_needs_a_phrase_counts_only_when_another_clause_says_it() -> None:
    """``needs="~pattern"``: the other half of the fact is a phrase, anywhere in the message."""
    assert facts("Met Elena at a friend's gig, we're an item!") == {
        ("user", "partner", "Elena", "set")
    }
    assert facts("Met Jo through work. We are officially a couple now") == {
        ("user", "partner", "Jo", "set")
    }
    assert facts("met Kim at the pub, we were a couple of idiots all night") == set()
    assert facts("met Sam at the station, we grabbed a coffee") == set()
    made = rule("job", "employer", "left {v:org}", "{S} left {v}.", needs="~new job")
    assert made.needs_phrase is not None
    assert made.needs_phrase.source == "new job"


def test_a_scan_row_that_needs_something_counts_only_beside_it() -> None:
    """Rows tried at every token honour ``needs`` too (they used to be taken as matched)."""
    assert facts("We relocated in March and Lisbon already feels like home") == {
        ("user", "city", "Lisbon", "set")
    }
    assert facts("Spent a week in Portugal and Lisbon already feels like home") == set()


def test_a_place_read_as_school_and_employer_in_one_clause_is_the_school() -> None:
    assert facts("I quit Sussex in my final year") == {("user", "school", "Sussex", "end")}
    assert facts("I'm at Tesco doing the big shop") == set()
    assert facts("I'm at Cardiff studying law") == {("user", "school", "Cardiff", "set")}


def test_presence_negated_ends_a_city_only_when_it_stopped() -> None:
    assert facts("we're not in Brighton any more") == {("user", "city", "Brighton", "end")}
    assert facts("I'm not in Leeds") == set()
    assert facts("I'm in Rome till Sunday") == set()


def test_a_chat_word_after_a_value_and_a_possessive_kept_as_typed() -> None:
    assert facts("i'm allergic to kiwi fyi") == {("user", "allergy", "kiwi", "set")}
    assert ("user", "employer", "St James'", "set") in facts("I'm a cleaner at St James'")
    assert facts("my uncle Ravi is retiring") == {("user", "relative", "Ravi", "set")}


def test_a_negation_that_is_the_phrasing_is_kept_and_a_negated_vice_ends_the_habit() -> None:
    assert facts("I can't stand marmite") == {("user", "dislike", "marmite", "set")}
    assert facts("my sister can't stand cats") == set()
    assert facts("not smoking anymore, 3 weeks now") == {("user", "habit", "smoking", "end")}
    assert facts("I'm not running late anymore") == set()  # a gerund, not a habit
    assert facts("I'm not smoking today") == set()  # denied, not stopped


def test_a_pet_put_to_sleep_by_name_or_mourned_with_its_animal_word_is_ended() -> None:
    assert facts("had Mittens put to sleep this morning") == {("user", "pet", "Mittens", "end")}
    assert facts("RIP Bonnie, the best cat in the world") == {("user", "pet", "Bonnie", "end")}
    assert facts("RIP Prince, what a musician") == set()


def test_only_presupposed_rows_state_a_fact_inside_a_question() -> None:
    """A question states nothing (the question guard) except what a ``presupposed`` row takes
    as given ("… a pescatarian like me?"); the other guards still apply to those rows."""
    diet = ("user", "diet", "pescatarian", "set")
    assert facts("Somewhere good for a pescatarian like me?") == {diet}
    assert facts("somewhere good for a pescatarian like me") == {diet}
    # the question guard still drops every other row of a question
    assert facts("so I've switched to pescatarian?") == set()
    assert facts("so I've switched to pescatarian") == {diet}
    # someone else's diet, a plan and a negation are no fact of the user's
    assert facts("anything here for a pescatarian like you?") == set()
    assert facts("would this suit a pescatarian like me?") == set()
    assert facts("I'm not a pescatarian like my sister") == set()
    # the role one speaks as; a diet word before a noun is no role
    assert facts("As a pescatarian, I'm fine with the fish") == {diet}
    assert facts("as a pescatarian option the salmon works") == set()
    # ended by a comma or a colon, said "speaking as", or "a … person"
    assert facts("As a pescatarian, the menu was tiny") == {diet}
    assert facts("speaking as a pescatarian person: fine") == {diet}
    assert facts("as a pescatarian dish, it works") == set()


def test_names_typed_without_capitals_get_their_capital_back() -> None:
    assert facts("my boyfriend callum is making risotto tonight") == {
        ("user", "partner", "Callum", "set")
    }
    assert facts("nico and i broke up last night") == {("user", "partner", "Nico", "end")}
    assert facts("my cat mochi knocked my coffee over again") == {("user", "pet", "Mochi", "set")}
    assert facts("tomasz moved to gdansk") == {("Tomasz", "city", "Gdansk", "set")}
    # a correction typed in lower case names the corrected value as a name too
    assert facts("my cat's name is luna. sorry, lena!") == {("user", "pet", "Lena", "correct")}
    # English words, chat shorthand and the grammar's own words are never taken for names
    assert facts("my boyfriend really wants a dog lol") == set()
    assert facts("my bf finally proposed omg") == set()
    assert facts("haha my brother is such an idiot") == set()
    # right after "I'm" a word describes: "im knackered" is not someone called Knackered
    assert facts("tbh im knackered") == set()
    # a dish stays as typed
    assert facts("pho again tonight, obsessed") == facts("Pho again tonight, obsessed") == set()


def test_a_message_with_any_capital_is_read_as_typed() -> None:
    # the writer uses case, so a lower-case word is no name
    assert facts("My boyfriend callum is making risotto tonight") == set()
    assert facts("my boyfriend Callum is making risotto tonight") == {
        ("user", "partner", "Callum", "set")
    }


@pytest.mark.parametrize(
    ("word", "name"),
    [
        ("callum", True),
        ("ottilie", True),
        ("rose", False),  # also a word: left alone, a name missed rather than invented
        ("finally", False),
        ("ngl", False),  # chat shorthand
        ("pescatarian", False),  # the grammar's own lexicon
        ("tuesday", False),
        ("sooo", False),  # a letter typed three times over
        ("al", False),  # too short to tell
    ],
)
def test_which_lower_case_words_are_likely_names(word: str, name: bool) -> None:
    assert likely_name(word) is name


def test_wish_me_luck_is_a_sign_off_not_a_wish() -> None:
    assert facts("I'm vegan now, wish me luck") == {("user", "diet", "vegan", "set")}
    assert facts("starting at Oakfield Consulting on monday, wish us luck") == {
        ("user", "employer", "Oakfield Consulting", "set")
    }
    assert facts("I wish I lived in Lisbon") == set()
    assert facts("I wish I was vegan, wish me luck") == set()  # the first wish still counts
