"""The answer-type prior's lexicon: per category, the nouns a question asks for it by, and the
words or phrases that make a text mention an instance of it.

Written by hand from general knowledge (no data set, nothing downloaded): common world cities,
countries, US states and regions; pets and animals; instruments; sports, martial arts and
exercise; foods and dishes; jobs; hobbies and activities; games; books and reading; music
acts. A category's ``instances`` also hold the words that say an instance is being talked
about without naming it ("trip", "visited" for places; "novel", "reading" for books), since
a conversation says "I'm reading a great one" as often as a title. All lower case; a phrase of
several words is matched as a whole (see :mod:`remem.controller.stages.answer_type`).

>>> "rome" in CATEGORIES["place"].instances, "cities" in CATEGORIES["place"].nouns
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["CATEGORIES", "Category"]


@dataclass(frozen=True, slots=True)
class Category:
    """``nouns``: what a question names the category by ("cities", "books"); ``verbs``: the
    verbs of a "where has X …" / "what does X play" question that ask for it; ``instances``:
    what a text mentions an instance by."""

    nouns: frozenset[str]
    verbs: frozenset[str]
    instances: frozenset[str]


def _w(text: str) -> frozenset[str]:
    return frozenset(p.strip() for p in text.split(",") if p.strip())


def _nouns(text: str) -> frozenset[str]:
    """Each noun and its plural (``city`` → ``cities``, ``box`` → ``boxes``)."""
    out: set[str] = set()
    for n in _w(text):
        out.add(n)
        head, _, last = n.rpartition(" ")
        head = f"{head} " if head else ""
        if last.endswith("y") and last[-2:-1] not in "aeiou":
            out.add(head + last[:-1] + "ies")
        elif last.endswith(("s", "x", "ch", "sh")):
            out.add(head + last + "es")
        else:
            out.add(head + last + "s")
    return frozenset(out)


_CITIES = (
    "rome, paris, london, berlin, madrid, barcelona, lisbon, porto, amsterdam, brussels, vienna, "
    "prague, budapest, warsaw, krakow, munich, hamburg, frankfurt, zurich, geneva, milan, venice, "
    "florence, naples, athens, istanbul, dublin, edinburgh, glasgow, manchester, liverpool, "
    "oxford, cambridge, copenhagen, stockholm, oslo, helsinki, reykjavik, moscow, kyiv, seville, "
    "valencia, nice, lyon, marseille, tokyo, kyoto, osaka, seoul, beijing, shanghai, hong kong, "
    "singapore, bangkok, bali, hanoi, mumbai, delhi, new delhi, dubai, cairo, marrakech, "
    "cape town, nairobi, sydney, melbourne, auckland, toronto, vancouver, montreal, quebec, "
    "new york, "
    "new york city, nyc, los angeles, san francisco, chicago, boston, seattle, portland, "
    "miami, orlando, austin, houston, dallas, denver, las vegas, vegas, nashville, new orleans, "
    "atlanta, philadelphia, washington dc, san diego, phoenix, detroit, honolulu, "
    "mexico city, cancun, rio, rio de janeiro, buenos aires, lima, havana"
)
_COUNTRIES = (
    "usa, america, canada, mexico, brazil, argentina, chile, peru, colombia, cuba, "
    "jamaica, england, scotland, wales, ireland, uk, britain, france, germany, spain, portugal, "
    "italy, greece, netherlands, holland, belgium, switzerland, austria, poland, czechia, "
    "czech republic, hungary, sweden, norway, denmark, finland, iceland, russia, ukraine, "
    "turkey, croatia, romania, bulgaria, serbia, egypt, morocco, kenya, south africa, nigeria, "
    "ghana, ethiopia, israel, jordan, india, nepal, china, japan, korea, south korea, thailand, "
    "vietnam, indonesia, philippines, malaysia, australia, new zealand, europe, asia, africa, "
    "south america, north america, caribbean, scandinavia"
)
_STATES = (
    "alabama, alaska, arizona, arkansas, california, colorado, connecticut, delaware, florida, "
    "georgia, hawaii, idaho, illinois, indiana, iowa, kansas, kentucky, louisiana, maine, "
    "maryland, massachusetts, michigan, minnesota, mississippi, missouri, montana, nebraska, "
    "nevada, new hampshire, new jersey, new mexico, north carolina, north dakota, ohio, "
    "oklahoma, oregon, pennsylvania, rhode island, south carolina, south dakota, tennessee, "
    "texas, utah, vermont, virginia, west virginia, wisconsin, wyoming, pacific northwest, "
    "east coast, west coast, midwest, new england"
)
_TRAVEL = (
    "trip, trips, road trip, roadtrip, travel, travelled, traveled, traveling, travelling, "
    "visit, visited, visiting, vacation, vacationed, holiday, holidays, flew, flight, abroad, "
    "sightseeing, tour, toured, getaway"
)

_PLACE = Category(
    nouns=_nouns("city, country, state, place, area, destination, region, town, trip"),
    verbs=_w(
        "travel, travelled, traveled, visit, visited, been, go, gone, went, vacation, "
        "vacationed, fly, flown, flew, tour, toured, moved, move, live, lived, camp, camped"
    ),
    instances=_w(f"{_CITIES}, {_COUNTRIES}, {_STATES}, {_TRAVEL}"),
)
_BOOK = Category(
    nouns=_nouns("book, novel, author, writer, series"),
    verbs=_w("read, reading, recommend, recommended"),
    instances=_w(
        "book, books, novel, novels, read, reading, reread, author, memoir, biography, "
        "paperback, audiobook, kindle, chapter, library, bookstore, poetry, poems, fiction, "
        "fantasy, sci-fi, thriller, harry potter, tolkien, lord of the rings, hobbit"
    ),
)
_PET = Category(
    nouns=_nouns("pet, animal, dog, cat, breed"),
    verbs=frozenset(),
    instances=_w(
        "pet, pets, dog, dogs, puppy, pup, cat, cats, kitten, kitty, rabbit, bunny, hamster, "
        "guinea pig, parrot, bird, horse, pony, turtle, tortoise, snake, lizard, gecko, ferret, "
        "fish, goldfish, chicken, labrador, retriever, poodle, beagle, terrier, husky, pug, "
        "corgi, shepherd, chihuahua, dachshund, adopted, shelter"
    ),
)
_INSTRUMENT = Category(
    nouns=_nouns("instrument, musical instrument"),
    verbs=_w("play, plays, played, playing"),
    instances=_w(
        "guitar, acoustic guitar, electric guitar, bass, piano, keyboard, violin, viola, cello, "
        "drums, drum, flute, clarinet, saxophone, sax, trumpet, trombone, ukulele, harp, "
        "harmonica, banjo, mandolin, accordion, organ, synth"
    ),
)
_SPORT = Category(
    nouns=_nouns("sport, martial art, exercise, workout, activity, outdoor activity, team, game"),
    verbs=_w("play, plays, played, playing, practice, practise, train, trained"),
    instances=_w(
        "football, soccer, basketball, baseball, volleyball, tennis, golf, hockey, rugby, "
        "cricket, badminton, swimming, running, jogging, marathon, 5k, cycling, "
        "biking, hiking, hike, climbing, rock climbing, bouldering, mountaineering, skiing, "
        "snowboarding, surfing, skating, skateboarding, kayaking, rowing, yoga, pilates, "
        "weightlifting, weight training, lifting, circuit training, crossfit, gym, boxing, "
        "kickboxing, karate, judo, taekwondo, jiu-jitsu, jiu jitsu, bjj, kung fu, mma, "
        "wrestling, fencing, archery, dance, dancing, aerobics, spin class, triathlon"
    ),
)
_FOOD = Category(
    nouns=_nouns("food, dish, meal, recipe, dessert, snack, cuisine, food item, treat"),
    verbs=_w("eat, ate, eaten, cook, cooked, bake, baked"),
    instances=_w(
        "pizza, pasta, spaghetti, lasagna, burger, burgers, sandwich, salad, soup, stew, curry, "
        "sushi, ramen, noodles, tacos, burrito, steak, chicken, fish, rice, bread, cake, cakes, "
        "cupcakes, cookies, cookie, pie, brownies, muffins, pancakes, waffles, chocolate, "
        "ice cream, cheese, pastries, pastry, dessert, bbq, barbecue, grill, grilled, baked, "
        "baking, cooked, cooking, recipe, dinner, lunch, breakfast, meal, snacks, smoothie, "
        "marshmallows, s'mores, fruit, vegetables, cuisine, dish"
    ),
)
_JOB = Category(
    nouns=_nouns("job, career, profession, occupation, position, role, business, work"),
    verbs=frozenset(),
    instances=_w(
        "job, career, hired, promoted, promotion, business, startup, engineer, developer, "
        "nurse, teacher, doctor, designer, manager, "
        "lawyer, accountant, architect, chef, writer, scientist, consultant, counselor, "
        "counsellor, therapist, coach, instructor, mentor, coordinator, officer, soldier, "
        "military, army, firefighter, police, volunteer, volunteering, intern, internship, "
        "entrepreneur, owner, artist, musician, photographer, dancer, professor, researcher"
    ),
)
_HOBBY = Category(
    nouns=_nouns("hobby, activity, pastime, outdoor activity, class, art, craft, passion"),
    verbs=_w("enjoy, enjoys, partake, partakes"),
    instances=_w(
        "painting, paint, painted, drawing, sketching, pottery, ceramics, sculpting, "
        "photography, knitting, crocheting, sewing, gardening, cooking, baking, reading, "
        "writing, poetry, journaling, singing, dancing, camping, hiking, fishing, swimming, "
        "running, biking, cycling, yoga, meditation, chess, gaming, video games, board games, "
        "puzzles, music, guitar, piano, volunteering, museum, concert, travel, traveling, "
        "birdwatching, woodworking, calligraphy, scrapbooking, climbing, skiing, surfing"
    ),
)
_GAME = Category(
    nouns=_nouns("game, video game, board game, console"),
    verbs=_w("play, plays, played, playing"),
    instances=_w(
        "game, games, video game, video games, board game, board games, chess, poker, cards, "
        "monopoly, scrabble, minecraft, fortnite, zelda, mario, pokemon, xbox, playstation, "
        "ps5, nintendo, switch, console, gaming, puzzle, puzzles, sudoku, crossword, tournament"
    ),
)
_MUSIC = Category(
    nouns=_nouns("band, musician, singer, artist, musical artist, song, album, concert, genre"),
    verbs=_w("listen, listened, listening, seen, saw"),
    instances=_w(
        "band, bands, singer, song, songs, album, concert, concerts, gig, festival, live music, "
        "tour, playlist, music, musician, rapper, jazz, rock, pop, classical, hip hop, "
        "country music, orchestra, symphony, vinyl"
    ),
)
_PEOPLE = Category(
    nouns=_nouns("name, people, person"),
    verbs=frozenset(),
    instances=frozenset(),  # capitalised names: answer_type.names_someone
)

CATEGORIES: MappingProxyType[str, Category] = MappingProxyType(
    {
        "place": _PLACE,
        "book": _BOOK,
        "pet": _PET,
        "instrument": _INSTRUMENT,
        "sport": _SPORT,
        "food": _FOOD,
        "job": _JOB,
        "hobby": _HOBBY,
        "game": _GAME,
        "music": _MUSIC,
        "people": _PEOPLE,
    }
)
"""The categories by name; ``people`` has no word list (a name is found by its capital)."""
