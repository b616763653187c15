"""Date and period guard: years, months, quarters, halves, calendar dates and weekdays.

>>> g = DateGuard.from_rules(load_rules()["date"])
>>> side = lambda t, lang="ko", at=None: GuardInput(title=t, text=t, lang=lang, published_at=at)
>>> g.check(side("3월 수출 5% 증가"), side("4월 수출 5% 증가")).evidence
'date: month Mar != Apr'
>>> g.check(side("2025년 3분기 실적"), side("Q3 2025 results", "en")).evidence
'date: year 2025 == 2025; quarter Q3 == Q3'
>>> from datetime import datetime, timezone
>>> at = datetime(2025, 3, 9, 8, tzinfo=timezone.utc)
>>> g.check(side("어제 코스피 급락", at=at), side("KOSPI plunges on March 8", "en")).evidence
'date: month Mar == Mar; date Mar 8 == Mar 8'
>>> g.check(side("올해 수출 7% 증가"), side("Exports rose 7% last year", "en")).evidence
'date: relative year this year != last year'
"""

from __future__ import annotations

import calendar
import functools
import re
from datetime import date, datetime, timedelta

from service.guards.base import GuardInput, prepare, step_aside, trie_regex
from service.guards.rules import Rules, int_setting, load_rules, number, str_list, table
from service.types import GuardVerdict

__all__ = ["SLOTS", "DateGuard", "load_rules"]

# Slots in evidence order. A slot value is an int (year, month, quarter, half, weekday) or a
# (month, day) tuple (the time slot: (hour, minute) on a 24-hour clock; the day slot: a day of the
# month, also read from a Korean date without its month, "16일 개최"). The relative slots hold offsets ("지난해" -1, "this month" 0) of a text
# read without a publication time: two such texts are taken as written at the same time.
SLOTS = ("year", "month", "quarter", "half", "date", "day", "time", "weekday", "relative year", "relative month",
         "relative day")
_RELATIVE_WORDS = {
    "relative year": {-1: "last year", 0: "this year", 1: "next year"},
    "relative month": {-1: "last month", 0: "this month", 1: "next month"},
    "relative day": {-1: "yesterday", 0: "today", 1: "tomorrow"},
}
_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
SlotValue = int | tuple[int, int]

Extracted = dict[str, frozenset]
_DIGIT_RE = re.compile(r"\d")


def _fmt(slot: str, value: SlotValue) -> str:
    if slot == "time" and isinstance(value, tuple):
        return f"{value[0]:02d}:{value[1]:02d}"
    if isinstance(value, tuple):  # the date slot: (month, day)
        m, d = value
        return f"{calendar.month_abbr[m]} {d}"
    if slot == "month":
        return calendar.month_abbr[value]
    if slot == "quarter":
        return f"Q{value}"
    if slot == "half":
        return f"H{value}"
    if slot == "weekday":
        return _WEEKDAYS[value]
    if slot in _RELATIVE_WORDS:
        return _RELATIVE_WORDS[slot].get(value, f"{value:+d} {slot.split()[1]}s")
    return str(value)


def _add_months(day: date, offset: int) -> tuple[int, int]:
    index = day.year * 12 + (day.month - 1) + offset
    return index // 12, index % 12 + 1


class DateGuard:
    """Blocks when a calendar slot is filled on both sides with disjoint values."""

    name = "date"

    def __init__(self, rules: Rules) -> None:
        where = "date rules"
        settings = table(rules, "settings", where)
        self.months = {k.casefold(): int(number(v, f"{where}: months.{k}")) for k, v in table(rules, "months", where).items()}
        for k, v in self.months.items():
            if not 1 <= v <= 12:
                raise ValueError(f"{where}: months.{k} must be 1..12, got {v}")
        self.weekdays = {k.casefold(): int(number(v, f"{where}: weekdays.{k}")) for k, v in table(rules, "weekdays", where).items()}
        self.ordinals = {k.casefold(): int(number(v, f"{where}: ordinals.{k}")) for k, v in table(rules, "ordinals", where).items()}
        self.rel_days = {k.casefold(): int(number(v, f"{where}: relative_days.{k}")) for k, v in table(rules, "relative_days", where).items()}
        self.rel_months = {k.casefold(): int(number(v, f"{where}: relative_months.{k}")) for k, v in table(rules, "relative_months", where).items()}
        self.rel_years = {k.casefold(): int(number(v, f"{where}: relative_years.{k}")) for k, v in table(rules, "relative_years", where).items()}
        self.ambiguous = frozenset(s.casefold() for s in str_list(settings.get("ambiguous_months", []), f"{where}: ambiguous_months"))
        preps = str_list(settings.get("month_prepositions", ["in"]), f"{where}: month_prepositions")
        units = str_list(settings.get("relative_untimed", []), f"{where}: relative_untimed")
        for unit in units:
            if unit not in ("year", "month", "day"):
                raise ValueError(f"{where}: relative_untimed takes year, month, day; got {unit!r}")
        self.relative_untimed = frozenset(f"relative {unit}" for unit in units)
        self.min_year = int_setting(settings, "min_year", 1900, where)
        self.max_year = int_setting(settings, "max_year", 2099, where)

        month_alt = trie_regex(set(self.months))  # tries: these run on every text (base.trie_regex)
        ord_alt = "|".join(re.escape(o) for o in sorted(self.ordinals, key=len, reverse=True))
        prep_alt = "|".join(re.escape(p) for p in preps)
        flags = re.IGNORECASE
        self._iso = re.compile(r"(?<![\d.])(\d{4})[-./](\d{1,2})[-./](\d{1,2})(?![\d.]\d)")
        self._ko_year = re.compile(r"(?<![\d.,])(\d{4})\s?년")
        self._ko_date = re.compile(r"(?<![\d.,])(\d{1,2})\s?월\s?(\d{1,2})\s?일")
        # "3월" but not "3월급"/"3월세" (salary, rent) and not "13개월" (a duration).
        # A day of the month without its month ("16일 도쿄서 개최"), not a count of days ("3일간",
        # "10일째", "30일 만에", "45일로 연장", "주 5일 근무", "3일 전", "30일 휴전", "30일 유예", "선거를 30일 앞두고"). Third frames pass
        # (tests/data/frame_pairs_3.jsonl: "Dec. 15" / "16일"); measured on every dev pair.
        self._ko_day = re.compile(
            r"(?<![\d.,~∼\-])(?<!주)(?<!주\s)([1-9]|[12]\d|3[01])\s?일(?=에|부터|까지|께|엔|의|자\b|오전|오후|새벽|밤|[^가-힣]|$)(?!\s?(?:간|째|만|동안|이내|내|씩|치|분|가량|이상|미만|전|후|로|으로|새|여|당|연속|평균|휴전|유예|연휴|격리|구류|정직|체류|무비자|휴가|단식|일정|앞두|앞둔|안에|\d|[~∼\-]))"
        )
        # Times of day: "7 p.m." / "7 a.m.", "오후 7시" / "오전 7시" (hour and minute, 24-hour clock).
        self._en_time = re.compile(r"(?<![\d:.])(1[0-2]|0?[1-9])(?::([0-5]\d))?\s?([ap])\.?m(?:\.|(?![a-z]))", flags=re.IGNORECASE)
        self._ko_time = re.compile(r"(오전|새벽|아침|오후|저녁|밤|낮)\s*(1[0-2]|0?[1-9])\s*시(?![간대작장])(?:\s*([0-5]?\d)\s*분|\s*(반))?")
        self._ko_month = re.compile(r"(?<![\d.,])(\d{1,2})\s?월(?![급세])")
        self._ko_quarter = re.compile(r"(?<![\d.,])([1-4])\s?분기")
        self._ko_half = re.compile(r"(상|하)반기")
        # A bare year: not glued to a word, a currency sign, a separator or a unit ("2,025명").
        self._en_year = re.compile(r"(?<![\w.,$€£₩#/-])((?:19|20)\d\d)(?![\w%]|[.,]\d)")
        self._en_date_md = re.compile(
            rf"(?<![A-Za-z])({month_alt})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?![\d,.]\d|\d)(?:,?\s+((?:19|20)\d\d))?", flags
        )
        self._en_date_dm = re.compile(rf"(?<![\d.])(\d{{1,2}})(?:st|nd|rd|th)?\s+({month_alt})(?![A-Za-z])", flags)
        self._en_month = re.compile(rf"(?<![A-Za-z])({month_alt})(?![A-Za-z])\.?", flags)
        self._en_month_prep = re.compile(rf"(?:{prep_alt})[\s-]+$", flags)
        self._en_month_year = re.compile(r"^\.?,?\s+(?:of\s+)?(?:19|20)\d\d(?!\d)")
        self._en_quarter = re.compile(
            rf"(?<![A-Za-z0-9])(?:Q([1-4])|([1-4])Q)(?![A-Za-z0-9])|(?<![A-Za-z])({ord_alt})[\s-]quarter", flags
        )
        self._en_half = re.compile(rf"(?<![A-Za-z0-9])H([12])(?![A-Za-z0-9])|(?<![A-Za-z])({ord_alt})[\s-]half", flags)
        self._weekday = re.compile(rf"(?<![A-Za-z])(?:{trie_regex(set(self.weekdays))})(?![A-Za-z])", flags)
        rel = {**self.rel_days, **self.rel_months, **self.rel_years}
        self._relative = re.compile(rf"(?<![A-Za-z])(?:{trie_regex(set(rel))})(?![A-Za-z])", flags) if rel else None
        self.extract = functools.lru_cache(maxsize=65536)(self._extract)

    @classmethod
    def from_rules(cls, rules: Rules) -> DateGuard:
        return cls(rules)

    def _year_ok(self, y: int) -> bool:
        return self.min_year <= y <= self.max_year

    def _extract(self, text: str, published: date | None) -> Extracted:
        text = prepare(text)
        out: dict[str, set] = {slot: set() for slot in SLOTS}

        def add_date(m: int, d: int) -> None:
            if 1 <= m <= 12 and 1 <= d <= 31:
                out["date"].add((m, d))
                out["month"].add(m)
                out["day"].add(d)

        # Cheap substring gates before each regex scan: most texts have no dates at all.
        has_digit = _DIGIT_RE.search(text) is not None
        lower = text.casefold()
        for m in self._iso.finditer(text) if has_digit else ():
            y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
            if self._year_ok(y) and 1 <= mo <= 12:
                out["year"].add(y)
                add_date(mo, d)
        for m in self._ko_year.finditer(text) if has_digit and "년" in text else ():
            if self._year_ok(int(m.group(1))):
                out["year"].add(int(m.group(1)))
        has_wol = has_digit and "월" in text
        for m in self._ko_date.finditer(text) if has_wol else ():
            add_date(int(m.group(1)), int(m.group(2)))
        for m in self._ko_month.finditer(text) if has_wol else ():
            if 1 <= int(m.group(1)) <= 12:
                out["month"].add(int(m.group(1)))
        for m in self._ko_day.finditer(text) if has_digit and "일" in text else ():
            out["day"].add(int(m.group(1)))
        for m in self._en_time.finditer(text) if has_digit and "m" in lower else ():
            hour = int(m.group(1)) % 12 + (12 if m.group(3).casefold() == "p" else 0)
            out["time"].add((hour, int(m.group(2) or 0)))
        for m in self._ko_time.finditer(text) if has_digit and "시" in text else ():
            hour, part = int(m.group(2)) % 12, m.group(1)
            if part in ("오후", "저녁") or (part == "낮" and hour < 6) or (part == "밤" and hour >= 6):
                hour += 12
            out["time"].add((hour, 30 if m.group(4) else int(m.group(3) or 0)))
        for m in self._ko_quarter.finditer(text) if has_digit and "분기" in text else ():
            out["quarter"].add(int(m.group(1)))
        for m in self._ko_half.finditer(text) if "반기" in text else ():
            out["half"].add(1 if m.group(1) == "상" else 2)
        for m in self._en_year.finditer(text) if has_digit else ():
            y = int(m.group(1))
            if self._year_ok(y):
                out["year"].add(y)
        dated: list[tuple[int, int]] = []
        month_hits = list(self._en_month.finditer(text))
        for m in self._en_date_md.finditer(text) if month_hits and has_digit else ():
            add_date(self.months[m.group(1).casefold()], int(m.group(2)))
            dated.append(m.span(1))
        for m in self._en_date_dm.finditer(text) if month_hits and has_digit else ():
            add_date(self.months[m.group(2).casefold()], int(m.group(1)))
            dated.append(m.span(2))
        for m in month_hits:
            name = m.group(1).casefold()
            if m.span(1) in dated:
                continue
            if name in self.ambiguous and not (
                self._en_month_prep.search(text, 0, m.start()) or self._en_month_year.match(text, m.end(1))
            ):
                continue  # "Fed May Have to...": a verb, not a month
            out["month"].add(self.months[name])
        for m in self._en_quarter.finditer(text) if "q" in lower else ():
            q = m.group(1) or m.group(2)
            out["quarter"].add(int(q) if q else self.ordinals[m.group(3).casefold()])
        for m in self._en_half.finditer(text) if "h" in lower else ():
            h = int(m.group(1)) if m.group(1) else self.ordinals[m.group(2).casefold()]
            if h in (1, 2):
                out["half"].add(h)
        for m in self._weekday.finditer(text):
            out["weekday"].add(self.weekdays[re.sub(r"\s+", " ", m.group(0)).casefold()])
        for m in self._relative.finditer(text) if self._relative is not None else ():
            phrase = re.sub(r"\s+", " ", m.group(0)).casefold()
            if published is None:
                # No publication time on this side: keep the offset itself (``relative_untimed``),
                # so "올해 수출 7% 증가" / "지난해 수출 7% 증가" differ in a stateless compare.
                for slot, offsets in (("relative day", self.rel_days), ("relative month", self.rel_months),
                                      ("relative year", self.rel_years)):
                    if phrase in offsets and slot in self.relative_untimed:
                        out[slot].add(offsets[phrase])
            elif phrase in self.rel_days:
                day = published + timedelta(days=self.rel_days[phrase])
                add_date(day.month, day.day)
            elif phrase in self.rel_months:
                out["month"].add(_add_months(published, self.rel_months[phrase])[1])
            elif phrase in self.rel_years:
                out["year"].add(published.year + self.rel_years[phrase])
        return {slot: frozenset(v) for slot, v in out.items() if v}

    @staticmethod
    def _published(side: GuardInput) -> date | None:
        at: datetime | None = side.published_at
        return at.date() if at is not None else None

    def check(self, a: GuardInput, b: GuardInput) -> GuardVerdict:
        da = self.extract(a.content, self._published(a))
        db = self.extract(b.content, self._published(b))
        shared = [slot for slot in SLOTS if slot in da and slot in db]
        if "date" in shared:  # a day of the month is read again only where one side names no month
            shared.remove("day")
        if not shared:
            return step_aside(self.name, "no date or period named on both sides")
        clashes: list[str] = []
        matches: list[str] = []
        for slot in shared:
            common = da[slot] & db[slot]
            if common:
                v = _fmt(slot, min(common))
                matches.append(f"{slot} {v} == {v}")
            else:
                xs = "/".join(_fmt(slot, v) for v in sorted(da[slot]))
                ys = "/".join(_fmt(slot, v) for v in sorted(db[slot]))
                clashes.append(f"{slot} {xs} != {ys}")
        if clashes:
            return GuardVerdict(self.name, True, True, f"{self.name}: " + "; ".join(clashes))
        return GuardVerdict(self.name, False, True, f"{self.name}: " + "; ".join(matches))
