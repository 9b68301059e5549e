"""Labelled first-person statements: what RuleExtractor must find about the user (the first
table of cases; the labelled corpus in ``data/`` is the larger one). "I have two cats" no longer
gives the pet "cats" (a pet fact holds a name; nothing is made up) and "I do not live in Paris
anymore" now ends a fact (see the corpus)."""

from __future__ import annotations

Fact = tuple[str, str]

POSITIVE: list[tuple[str, set[Fact]]] = [
    # where the user lives / comes from
    ("I moved to Lisbon last month", {("city", "Lisbon")}),
    ("We just relocated to Porto.", {("city", "Porto")}),
    ("I've moved to Berlin with my wife", {("city", "Berlin")}),
    ("I live in New York", {("city", "New York")}),
    ("i live in lisbon", {("city", "Lisbon")}),
    ("Actually, I'm living in Madrid these days", {("city", "Madrid")}),
    ("I'm based in Amsterdam for work", {("city", "Amsterdam")}),
    ("We live in Rio de Janeiro now", {("city", "Rio de Janeiro")}),
    ("I'm originally from Porto", {("hometown", "Porto")}),
    ("I grew up in Manchester", {("hometown", "Manchester")}),
    ("I come from the Netherlands", {("hometown", "Netherlands")}),
    # work
    ("I started a new job at a design studio", {("employer", "design studio")}),
    ("I just got a job at Google!", {("employer", "Google")}),
    ("I work at Acme Corp", {("employer", "Acme Corp")}),
    ("I've been working for Siemens since 2019", {("employer", "Siemens")}),
    ("I work as a nurse", {("job_title", "nurse")}),
    (
        "I work as a software engineer at Spotify",
        {("job_title", "software engineer"), ("employer", "Spotify")},
    ),
    ("I got a new job as an architect", {("job_title", "architect")}),
    # family, partner
    ("my sister is called Ana", {("sibling", "Ana")}),
    ("My older brother's name is Tom", {("sibling", "Tom")}),
    ("I have a younger sister named Maria", {("sibling", "Maria")}),
    ("my mum is called Helen", {("parent", "Helen")}),
    ("My dad's name is João", {("parent", "João")}),
    ("my daughter is named Lily", {("child", "Lily")}),
    ("My sister Ana is visiting next week", {("sibling", "Ana")}),
    ("Ana is my sister", {("sibling", "Ana")}),
    ("my girlfriend is called sophie", {("partner", "Sophie")}),
    ("My wife Ana doesn't like the cold", {("partner", "Ana")}),
    ("I'm dating Marco", {("partner", "Marco")}),
    ("I married Sam in 2015", {("partner", "Sam")}),
    ("I broke up with my boyfriend", {("partner", "none")}),
    ("My partner and I split up last week", {("partner", "none")}),
    # pets
    ("I have a dog named Rex", {("pet", "Rex")}),
    ("We adopted a kitten called Miso", {("pet", "Miso")}),
    ("My cat's name is Luna", {("pet", "Luna")}),
    ("I have two cats, Salt and Pepper", {("pet", "Salt"), ("pet", "Pepper")}),
    # food and health
    ("I'm vegetarian", {("diet", "vegetarian")}),
    ("I am a vegan", {("diet", "vegan")}),
    ("I went vegan last year", {("diet", "vegan")}),
    ("I'm allergic to peanuts", {("allergy", "peanuts")}),
    (
        "I am severely allergic to shellfish and cats",
        {("allergy", "shellfish"), ("allergy", "cats")},
    ),
    ("I have a nut allergy", {("allergy", "nut")}),
    ("I was diagnosed with asthma", {("health", "asthma")}),
    ("my favourite food is sushi", {("favourite_food", "sushi")}),
    ("My favorite dish is pad thai", {("favourite_food", "pad thai")}),
    # likes
    ("I love hiking", {("hobby", "hiking")}),
    ("I really enjoy painting and cooking", {("hobby", "painting"), ("hobby", "cooking")}),
    ("I like to swim", {("hobby", "swim")}),
    ("I love jazz", {("preference", "jazz")}),
    ("I'm really into climbing", {("hobby", "climbing")}),
    ("I play tennis on weekends", {("hobby", "tennis")}),
    ("My favourite colour is green", {("preference", "favourite colour: green")}),
    ("I love going to the beach", {("hobby", "going to the beach")}),
    ("I like watching movies with my husband", {("hobby", "watching movies")}),
    ("I moved to Lisbon, if you remember", {("city", "Lisbon")}),
    ("I started working at Acme", {("employer", "Acme")}),
    # who the user is
    ("My birthday is on March 3rd", {("birthday", "March 3rd")}),
    ("Hi, my name is Ada", {("name", "Ada")}),
    ("I'm 34 years old", {("age", "34")}),
    # several facts in one message
    (
        "I moved to Lisbon and I started a new job at a design studio.",
        {("city", "Lisbon"), ("employer", "design studio")},
    ),
    (
        "So, I'm vegetarian. My sister is called Ana, and I have a cat named Tom.",
        {("diet", "vegetarian"), ("sibling", "Ana"), ("pet", "Tom")},
    ),
]

NEGATIVE: list[str] = [
    "I don't live in Paris",
    "I do not live in Paris",
    "I never lived in Rome",
    "I'm not from London",
    "Do you live in Paris?",
    "Where do you live?",
    "Have you ever moved to Rome?",
    "If I moved to Rome I would learn Italian",
    "I'd love to live in Tokyo",
    "I wish I lived in Barcelona",
    "I'm thinking about moving to Berlin",
    "Maybe I moved to Rome in another life",
    "My friend moved to Rome",
    "My sister lives in Madrid",
    "She said she works at Google",
    "Ana is allergic to peanuts",
    "I used to live in Paris",
    "I don't work at Google",
    "I'm not vegetarian",
    "I like it",
    "I love you",
    "I like my new flat",
    "I live in a small flat",
    "I moved to a new apartment",
    "I'm seeing someone",
    "I don't have a dog named Rex",
    "What is your favourite food?",
    "The weather is nice today",
    "You work at Google, right",
    "I work at home",
    "I play with my kids",
    "Maybe you remember: I moved to Lisbon",
]

ASSISTANT_ONLY = "You live in Lisbon and you work at a design studio."
