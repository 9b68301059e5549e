# ruff: noqa: E501, RUF001  (word lists in other scripts; dense generator templates)
"""Deterministic, seeded text for tests and benchmarks (no network, no randomness beyond ``seed``).

``generate(kind, n, seed)`` returns ``n`` texts of one kind, each sized for roughly 20-2,000
``o200k_base`` tokens (log-uniform). Kinds:

* ``prose`` — contiguous spans of real English from the interpreter's own documentation
  (``pydoc_data.topics``) and stdlib docstrings.
* ``code`` — contiguous line spans of real stdlib ``.py`` source files.
* ``chat`` — synthetic chat turns: conversational templates filled with names, numbers, dates,
  contractions, markdown, URLs, inline code and sentences of real prose.
* ``json`` — random JSON documents (nested objects/arrays, ids, timestamps, floats), compact or
  indented.
* ``logs`` — application/server log lines (timestamps, levels, loggers, IPs, paths, latencies).
* ``cjk``, ``cyrillic``, ``arabic``, ``devanagari`` — sentences built from small lists of common
  words of Chinese/Japanese, Russian, Arabic and Hindi, with native punctuation and some digits
  and Latin words mixed in (word salad: less realistic than the Latin kinds).
* ``emoji`` — English chat turns with heavy emoji use (ZWJ sequences, skin tones, flags).
"""

from __future__ import annotations

import functools
import json
import math
import random
import sysconfig
from pathlib import Path

__all__ = ["KINDS", "LATIN_KINDS", "generate"]

LATIN_KINDS = ("chat", "prose", "code", "json", "logs")
KINDS = (*LATIN_KINDS, "cjk", "cyrillic", "arabic", "devanagari", "emoji")

# Rough chars per token, only used to aim the text sizes at 20-2,000 tokens.
_CHARS_PER_TOKEN = {
    "chat": 4.2, "prose": 4.5, "code": 3.6, "json": 3.0, "logs": 3.0, "cjk": 1.2,
    "cyrillic": 4.5, "arabic": 3.5, "devanagari": 3.0, "emoji": 3.0,
}  # fmt: skip


def _target_chars(rng: random.Random, kind: str) -> int:
    tokens = math.exp(rng.uniform(math.log(22), math.log(1800)))
    return int(tokens * _CHARS_PER_TOKEN[kind])


@functools.cache
def _prose_paragraphs() -> tuple[str, ...]:
    import pydoc_data.topics

    paras: list[str] = []
    for key in sorted(pydoc_data.topics.topics):
        for block in pydoc_data.topics.topics[key].split("\n\n"):
            text = " ".join(line.strip() for line in block.splitlines()).strip()
            if len(text) > 60 and sum(c.isalpha() for c in text) > 0.7 * len(text):
                paras.append(text)
    import ast

    for path in _code_files()[:120]:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Module):
                doc = ast.get_docstring(node)
                if doc and len(doc) > 80:
                    paras.append(doc)
    return tuple(paras)


@functools.cache
def _code_files() -> tuple[Path, ...]:
    lib = Path(sysconfig.get_paths()["stdlib"])
    files = [p for p in sorted(lib.glob("*.py")) if p.stat().st_size > 4000]
    files += [p for p in sorted(lib.glob("json/*.py")) + sorted(lib.glob("asyncio/*.py"))]
    return tuple(files)


@functools.cache
def _code_lines(path: Path) -> tuple[str, ...]:
    return tuple(path.read_text(encoding="utf-8", errors="replace").splitlines())


@functools.cache
def _sentences() -> tuple[str, ...]:
    out = []
    for p in _prose_paragraphs():
        for s in p.split(". "):
            if 20 < len(s) < 200:
                out.append(s.rstrip(".") + ".")
    return tuple(out)


def _prose(rng: random.Random, size: int) -> str:
    paras = _prose_paragraphs()
    i = rng.randrange(len(paras))
    parts: list[str] = []
    while sum(map(len, parts)) < size:
        parts.append(paras[i % len(paras)])
        i += 1
    text = "\n\n".join(parts)
    start = rng.randrange(0, max(1, len(text) - size)) if len(text) > size else 0
    start = text.find(" ", start) + 1 if start else 0
    return text[start : start + size].strip()


def _code(rng: random.Random, size: int) -> str:
    files = _code_files()
    lines = _code_lines(files[rng.randrange(len(files))])
    start = rng.randrange(max(1, len(lines) - 10))
    out: list[str] = []
    total = 0
    for line in lines[start:]:
        if total >= size:
            break
        out.append(line)
        total += len(line) + 1
    return "\n".join(out).strip("\n") or "pass"


_NAMES = ("Alice", "Bob", "Priya", "Chen", "María", "Olek", "Fatima", "Kenji", "Sam", "Noor")
_PLACES = ("Berlin", "Lisbon", "Toronto", "Osaka", "Nairobi", "the office", "my mom's place")
_TOPICS = (
    "the migration", "my sourdough starter", "the quarterly report", "our trip", "the API",
    "the dentist appointment", "that bug in prod", "the playlist", "my thesis", "the lease",
)  # fmt: skip
_OPENERS = (
    "Hey! ", "Hi {name}, ", "Ok so ", "Thanks, that helps. ", "Quick question: ", "", "", "",
    "Sure — ", "Honestly, ", "lol ", "Good morning! ", "Got it. ", "Hmm, ",
)  # fmt: skip
_TEMPLATES = (
    "I'm meeting {name} in {place} on {date} at {time}, can you remind me?",
    "What's the best way to handle {topic}? I've tried {n} things already and none worked.",
    "Can you summarize {topic} in {n} bullet points?",
    "It didn't work :( I got `{code}` when I ran it.",
    "My budget is ${money} for {topic}, does that sound reasonable?",
    "Remember that {name} is allergic to peanuts and prefers tea over coffee.",
    "We're moving {topic} to {date}. Let's sync with {name} before then.",
    "You said earlier that {topic} was due {date} — is that still right?",
    "I'll be in {place} from {date} until the {day}th. My number is +1 555-{n4}.",
    "Here's the link: https://example.com/{slug}/{n4}?ref=chat",
    "Sounds good! I'd love that. What time works for you?",
    "No worries, we can do it tomorrow. I've got {n} meetings today anyway.",
    "Could you rewrite this so it's more polite? \"{sentence}\"",
    "Why does `{code}` return {n} instead of {n2}?",
    "Ugh, {topic} again... I'm SO tired of it.",
)  # fmt: skip
_CODES = (
    "len(items)",
    "df.groupby('user_id').sum()",
    "git rebase -i HEAD~3",
    "npm run build",
    "SELECT * FROM users WHERE id = 42;",
    "KeyError: 'name'",
    "x = [i**2 for i in range(10)]",
)


def _chat_sentence(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return rng.choice(_sentences())
    return rng.choice(_TEMPLATES).format(
        name=rng.choice(_NAMES), place=rng.choice(_PLACES), topic=rng.choice(_TOPICS),
        date=rng.choice(("Friday", "next Tuesday", f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
                         f"March {rng.randint(1, 31)}")),
        time=f"{rng.randint(1, 12)}:{rng.choice(('00', '15', '30', '45'))} {rng.choice(('am', 'pm'))}",
        n=rng.randint(2, 12), n2=rng.randint(13, 999), n4=rng.randint(1000, 9999),
        money=rng.randint(20, 5000), day=rng.randint(4, 28), code=rng.choice(_CODES),
        slug=rng.choice(("docs", "blog/post", "issues", "share")), sentence=rng.choice(_sentences()),
    )  # fmt: skip


def _chat(rng: random.Random, size: int, emoji: bool = False) -> str:
    parts = [rng.choice(_OPENERS).format(name=rng.choice(_NAMES))]
    while sum(map(len, parts)) < size:
        r = rng.random()
        if r < 0.08:
            parts.append("\n\n" + "\n".join(f"- {_chat_sentence(rng)}" for _ in range(3)) + "\n\n")
        elif r < 0.12:
            parts.append(f"\n```python\n{_code(rng, 120)}\n```\n")
        else:
            parts.append(_chat_sentence(rng) + " ")
        if emoji and rng.random() < 0.7:
            parts.append("".join(rng.choice(_EMOJI) for _ in range(rng.randint(1, 3))) + " ")
    return "".join(parts).strip()


_EMOJI = (
    "😂", "❤️", "🙏", "👍", "😭", "🥺", "✨", "🔥", "😊", "🎉", "💯", "🤔", "👀", "😅", "🙌", "💀",
    "👍🏽", "👩‍💻", "🏳️‍🌈", "🇯🇵", "🇧🇷", "👨‍👩‍👧", "☕", "🚀", "✅", "⚠️", "🤷‍♀️", "🫠",
)  # fmt: skip


def _json_value(rng: random.Random, depth: int) -> object:
    r = rng.random()
    if depth < 3 and r < 0.25:
        keys = (
            "id",
            "user_id",
            "name",
            "email",
            "created_at",
            "tags",
            "score",
            "active",
            "metadata",
            "items",
            "status",
            "count",
            "price",
            "description",
            "url",
            "type",
        )
        return {rng.choice(keys) + ("" if rng.random() < 0.7 else f"_{rng.randint(1, 9)}"):
                _json_value(rng, depth + 1) for _ in range(rng.randint(1, 6))}  # fmt: skip
    if depth < 3 and r < 0.35:
        return [_json_value(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    if r < 0.5:
        return rng.randint(-10, 10 ** rng.randint(1, 9))
    if r < 0.6:
        return round(rng.uniform(-1000, 1000), rng.randint(1, 6))
    if r < 0.67:
        return rng.choice((True, False, None))
    if r < 0.75:
        return f"{rng.getrandbits(128):032x}"
    if r < 0.82:
        return f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z"
    return rng.choice(_sentences())[: rng.randint(5, 80)]


def _json(rng: random.Random, size: int) -> str:
    docs: list[str] = []
    while sum(map(len, docs)) < size:
        obj = {"id": rng.randint(1, 10**6), "data": _json_value(rng, 0)}
        docs.append(json.dumps(obj, ensure_ascii=rng.random() < 0.5, indent=rng.choice((None, 2))))
    return "\n".join(docs)[: max(size, 40)]


_LEVELS = ("INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR")
_LOGGERS = ("app.api", "uvicorn.access", "worker.queue", "db.pool", "auth", "scheduler")
_MSGS = (
    '{ip} - - "GET /api/v1/users/{n}?page={m} HTTP/1.1" {status} {size}',
    '{ip} - - "POST /api/v2/memories HTTP/1.1" {status} {size} {ms}ms',
    "connection pool exhausted (size={m}, waiting={n}); retrying in {ms}ms",
    "job {uuid} finished in {ms}ms with status={word}",
    "user_id={n} session={uuid} action=login ok=true",
    "Traceback (most recent call last): File \"/srv/app/{word}.py\", line {n}, in handler",
    "slow query ({ms} ms): SELECT id, body FROM memories WHERE user_id = {n} LIMIT {m}",
    "cache miss for key=user:{n}:profile ttl={m}s",
)  # fmt: skip


def _logs(rng: random.Random, size: int) -> str:
    lines: list[str] = []
    t = rng.randint(0, 86000)
    while sum(map(len, lines)) < size:
        t += rng.randint(0, 5)
        msg = rng.choice(_MSGS).format(
            ip=".".join(str(rng.randint(1, 254)) for _ in range(4)), n=rng.randint(1, 99999),
            m=rng.randint(1, 100), status=rng.choice((200, 200, 201, 204, 404, 500)),
            size=rng.randint(100, 99999), ms=rng.randint(1, 5000), uuid=f"{rng.getrandbits(64):016x}",
            word=rng.choice(("ok", "failed", "timeout", "handlers", "views")),
        )  # fmt: skip
        stamp = (
            f"2024-05-{rng.randint(1, 28):02d} {t // 3600 % 24:02d}:{t // 60 % 60:02d}:{t % 60:02d}"
        )
        lines.append(f"{stamp},{rng.randint(0, 999):03d} {rng.choice(_LEVELS):<7} "
                     f"[{rng.choice(_LOGGERS)}] {msg}")  # fmt: skip
    return "\n".join(lines)


_WORDS = {
    "cjk": ("我们", "今天", "明天", "工作", "朋友", "时间", "问题", "可以", "知道", "喜欢", "吃饭",
            "学习", "公司", "电话", "已经", "还是", "因为", "所以", "非常", "谢谢", "东京", "会议",
            "記憶", "ありがとう", "です", "ます", "今日は", "天気", "いい", "私は", "友達", "と",
            "行きます", "の", "を", "が", "に", "は", "什么", "怎么", "这个", "那个", "没有"),
    "cyrillic": ("привет", "сегодня", "завтра", "работа", "друг", "время", "вопрос", "можно",
                 "знаю", "нравится", "встреча", "компания", "телефон", "уже", "потому", "что",
                 "очень", "спасибо", "Москва", "память", "мы", "вы", "он", "она", "не", "и", "в",
                 "на", "с", "это", "был", "будет", "хорошо", "проект", "письмо", "неделю"),
    "arabic": ("مرحبا", "اليوم", "غدا", "العمل", "صديق", "الوقت", "سؤال", "يمكن", "أعرف", "أحب",
               "اجتماع", "الشركة", "هاتف", "لأن", "جدا", "شكرا", "القاهرة", "الذاكرة", "نحن",
               "في", "على", "من", "إلى", "هذا", "كان", "سوف", "مشروع", "رسالة", "الأسبوع"),
    "devanagari": ("नमस्ते", "आज", "कल", "काम", "दोस्त", "समय", "सवाल", "सकते", "जानता", "पसंद",
                   "बैठक", "कंपनी", "फ़ोन", "पहले", "क्योंकि", "बहुत", "धन्यवाद", "दिल्ली", "याद",
                   "हम", "आप", "वह", "नहीं", "और", "में", "पर", "से", "है", "था", "होगा", "परियोजना"),
}  # fmt: skip
_PUNCT = {"cjk": ("，", "。", "！", "？", "、"), "cyrillic": (",", ".", "!", "?"),
          "arabic": ("،", ".", "؟", "!"), "devanagari": (",", "।", "?", "!")}  # fmt: skip


def _script(rng: random.Random, size: int, kind: str) -> str:
    words, punct = _WORDS[kind], _PUNCT[kind]
    sep = "" if kind == "cjk" else " "
    out: list[str] = []
    total = 0
    while total < size:
        r = rng.random()
        w = (str(rng.randint(1, 2030)) if r < 0.04 else rng.choice(("OK", "email", "Zoom", "API"))
             if r < 0.07 else rng.choice(words))  # fmt: skip
        out.append(w)
        if rng.random() < 0.12:
            out.append(rng.choice(punct) + ("" if kind == "cjk" else " "))
        else:
            out.append(sep)
        total += len(w) + 1
    return "".join(out).strip()


def generate(kind: str, n: int, seed: int) -> list[str]:
    """``n`` texts of ``kind`` (one of :data:`KINDS`), the same for the same ``seed``.

    >>> generate("logs", 2, seed=0) == generate("logs", 2, seed=0)
    True
    """
    if kind not in KINDS:
        raise ValueError(f"unknown corpus kind {kind!r}; use one of {KINDS}")
    rng = random.Random(f"{kind}:{seed}")
    out = []
    for _ in range(n):
        size = _target_chars(rng, kind)
        if kind == "prose":
            out.append(_prose(rng, size))
        elif kind == "code":
            out.append(_code(rng, size))
        elif kind in ("chat", "emoji"):
            out.append(_chat(rng, size, emoji=kind == "emoji"))
        elif kind == "json":
            out.append(_json(rng, size))
        elif kind == "logs":
            out.append(_logs(rng, size))
        else:
            out.append(_script(rng, size, kind))
    return out
