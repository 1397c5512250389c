package text

import (
	"strconv"
	"strings"
	"time"
	"unicode"
)

// A TimeRange is the period a query names ("in May 2023", "last week",
// "в прошлом месяце"): recall raises the facts whose event time falls in
// it. A range is absolute ([From, To), UTC) or, when the query names a
// month or a day without a year ("in June", "on October 13"), periodic:
// that month (and day) of any year, since a replayed or years-long memory
// gives no safe year to assume.
type TimeRange struct {
	From, To time.Time
	// Month (1-12) and Day (1-31, 0: the whole month) of a periodic range;
	// Month 0 means the range is absolute.
	Month time.Month
	Day   int
	// Phrase is the query's words that named the range, as written.
	Phrase string
}

// Periodic reports whether the range recurs every year.
func (r TimeRange) Periodic() bool { return r.Month != 0 }

// Contains reports whether t falls in the range.
func (r TimeRange) Contains(t time.Time) bool {
	t = t.UTC()
	if r.Periodic() {
		return t.Month() == r.Month && (r.Day == 0 || t.Day() == r.Day)
	}
	return !t.Before(r.From) && t.Before(r.To)
}

// Span is the length of the range (a periodic one's in its year).
func (r TimeRange) Span() time.Duration {
	if r.Periodic() {
		if r.Day != 0 {
			return 24 * time.Hour
		}
		return 31 * 24 * time.Hour
	}
	return r.To.Sub(r.From)
}

// Distance is how far t lies outside the range (0 inside).
func (r TimeRange) Distance(t time.Time) time.Duration {
	t = t.UTC()
	if r.Contains(t) {
		return 0
	}
	from, to := r.From, r.To
	if r.Periodic() {
		// The occurrence of the period in t's year.
		from = time.Date(t.Year(), r.Month, max(1, r.Day), 0, 0, 0, 0, time.UTC)
		if r.Day != 0 {
			to = from.AddDate(0, 0, 1)
		} else {
			to = from.AddDate(0, 1, 0)
		}
	}
	if t.Before(from) {
		return from.Sub(t)
	}
	return t.Sub(to) + time.Nanosecond
}

// ParseTimeRange finds the first period a query names, in English or
// Russian, resolving relative expressions ("yesterday", "last month",
// "two years ago", "вчера", "в прошлом году") against now: the caller's
// clock, or a replay's reference time. ok is false when the query names
// no period. Month names that are also words ("may", "march") count only
// beside a day, a year or a preposition ("in May").
func ParseTimeRange(q string, now time.Time) (r TimeRange, ok bool) {
	now = now.UTC()
	if r, ok := isoDate(q); ok {
		return r, true
	}
	ws := timeWords(q)
	for i := range ws {
		if r, n, ok := absoluteAt(ws, i); ok {
			r.Phrase = phrase(ws[i : i+n])
			return r, true
		}
		if r, n, ok := relativeAt(ws, i, now); ok {
			r.Phrase = phrase(ws[i : i+n])
			return r, true
		}
	}
	return TimeRange{}, false
}

func phrase(ws []string) string { return strings.Join(ws, " ") }

// timeWords splits q into lower-case words of letters or digits ("13th"
// stays one word, "2023-05-03" three).
func timeWords(q string) []string {
	return strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// isoDate finds a YYYY-MM-DD date.
func isoDate(q string) (TimeRange, bool) {
	for i := 0; i+10 <= len(q); i++ {
		s := q[i : i+10]
		if s[4] != '-' || s[7] != '-' || (i > 0 && isDigit(q[i-1])) || (i+10 < len(q) && isDigit(q[i+10])) {
			continue
		}
		t, err := time.Parse("2006-01-02", s)
		if err == nil {
			return TimeRange{From: t, To: t.AddDate(0, 0, 1), Phrase: s}, true
		}
	}
	return TimeRange{}, false
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// month returns the month a word names (English names and abbreviations,
// Russian names in any case); ambiguous is set for words that are also
// common words ("may", "march", "mar", "jan"?), which count only in context.
func month(w string) (m time.Month, ambiguous bool) {
	switch w {
	case "january", "jan", "январь", "января", "январе":
		return time.January, w == "jan"
	case "february", "feb", "февраль", "февраля", "феврале":
		return time.February, false
	case "march", "mar", "март", "марта", "марте":
		return time.March, w == "march" || w == "mar"
	case "april", "apr", "апрель", "апреля", "апреле":
		return time.April, false
	case "may", "май", "мая", "мае":
		return time.May, w == "may"
	case "june", "jun", "июнь", "июня", "июне":
		return time.June, false
	case "july", "jul", "июль", "июля", "июле":
		return time.July, false
	case "august", "aug", "август", "августа", "августе":
		return time.August, false
	case "september", "sep", "sept", "сентябрь", "сентября", "сентябре":
		return time.September, false
	case "october", "oct", "октябрь", "октября", "октябре":
		return time.October, false
	case "november", "nov", "ноябрь", "ноября", "ноябре":
		return time.November, false
	case "december", "dec", "декабрь", "декабря", "декабре":
		return time.December, false
	}
	return 0, false
}

// day parses "13" or "13th" (1-31).
func day(w string) (int, bool) {
	for _, suf := range []string{"st", "nd", "rd", "th", "го"} {
		if len(w) > len(suf) && strings.HasSuffix(w, suf) {
			w = strings.TrimSuffix(w, suf)
			break
		}
	}
	if len(w) == 0 || len(w) > 2 {
		return 0, false
	}
	n, err := strconv.Atoi(w)
	return n, err == nil && n >= 1 && n <= 31
}

// year parses a four-digit year 1900-2099.
func year(w string) (int, bool) {
	if len(w) != 4 || (w[:2] != "19" && w[:2] != "20") {
		return 0, false
	}
	n, err := strconv.Atoi(w)
	return n, err == nil
}

// at returns ws[i], "" past the end.
func at(ws []string, i int) string {
	if i >= 0 && i < len(ws) {
		return ws[i]
	}
	return ""
}

// timePrepositions introduce a period: "in June", "during 2022", "в мае".
var timePrepositions = map[string]bool{
	"in": true, "on": true, "during": true, "since": true, "of": true, "by": true, "early": true, "late": true, "mid": true, "until": true,
	"в": true, "во": true, "с": true, "до": true, "к": true,
}

// absoluteAt parses a calendar date, month or year starting at ws[i] and
// returns how many words it took.
func absoluteAt(ws []string, i int) (TimeRange, int, bool) {
	w := ws[i]
	// D Month [Year] ("3 May 2023", "13 октября")
	if d, ok := day(w); ok {
		if m, _ := month(at(ws, i+1)); m != 0 {
			if y, ok := year(at(ws, i+2)); ok {
				return dayRange(y, m, d), 3, true
			}
			return TimeRange{Month: m, Day: d}, 2, true
		}
		return TimeRange{}, 0, false
	}
	if m, ambiguous := month(w); m != 0 {
		// Month D [Year] ("May 3, 2023", "October 13")
		if d, ok := day(at(ws, i+1)); ok {
			if y, ok := year(at(ws, i+2)); ok {
				return dayRange(y, m, d), 3, true
			}
			return TimeRange{Month: m, Day: d}, 2, true
		}
		// Month Year ("May 2023")
		if y, ok := year(at(ws, i+1)); ok {
			from := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
			return TimeRange{From: from, To: from.AddDate(0, 1, 0)}, 2, true
		}
		// Month alone, after a preposition ("in June") or unambiguous.
		if !ambiguous || timePrepositions[at(ws, i-1)] {
			return TimeRange{Month: m}, 1, true
		}
		return TimeRange{}, 0, false
	}
	// A year after a preposition ("in 2022"), or before "year"/"году".
	if y, ok := year(w); ok && (timePrepositions[at(ws, i-1)] || at(ws, i+1) == "year" || at(ws, i+1) == "году" || at(ws, i+1) == "год") {
		from := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		return TimeRange{From: from, To: from.AddDate(1, 0, 0)}, 1, true
	}
	return TimeRange{}, 0, false
}

func dayRange(y int, m time.Month, d int) TimeRange {
	from := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return TimeRange{From: from, To: from.AddDate(0, 0, 1)}
}

// numberWords are the counts "two years ago" and "два года назад" use.
var numberWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
	"couple": 2, "few": 3, "several": 3,
	"один": 1, "одну": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6, "семь": 7, "восемь": 8, "девять": 9, "десять": 10,
	"несколько": 3, "пару": 2,
}

// unit maps a period word to (years, months, days).
func unit(w string) (y, m, d int, ok bool) {
	switch w {
	case "day", "days", "день", "дня", "дней":
		return 0, 0, 1, true
	case "week", "weeks", "неделю", "недели", "недель", "неделя":
		return 0, 0, 7, true
	case "month", "months", "месяц", "месяца", "месяцев":
		return 0, 1, 0, true
	case "year", "years", "год", "года", "лет":
		return 1, 0, 0, true
	}
	return 0, 0, 0, false
}

// relativeAt parses a period relative to now starting at ws[i].
func relativeAt(ws []string, i int, now time.Time) (TimeRange, int, bool) {
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	days := func(from, n int) TimeRange {
		f := today.AddDate(0, 0, from)
		return TimeRange{From: f, To: f.AddDate(0, 0, n)}
	}
	weekStart := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7)) // Monday
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	yearStart := time.Date(now.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	w, next := ws[i], at(ws, i+1)
	switch w {
	case "yesterday", "вчера":
		return days(-1, 1), 1, true
	case "позавчера":
		return days(-2, 1), 1, true
	case "today", "сегодня":
		return days(0, 1), 1, true
	case "last", "past", "previous", "прошлой", "прошлом", "прошлый", "прошлую":
		switch next {
		case "week", "неделе", "неделю":
			return TimeRange{From: weekStart.AddDate(0, 0, -7), To: weekStart}, 2, true
		case "weekend", "выходных", "выходные":
			sat := weekStart.AddDate(0, 0, -2)
			return TimeRange{From: sat, To: sat.AddDate(0, 0, 2)}, 2, true
		case "month", "месяце", "месяц":
			return TimeRange{From: monthStart.AddDate(0, -1, 0), To: monthStart}, 2, true
		case "year", "году", "год":
			return TimeRange{From: yearStart.AddDate(-1, 0, 0), To: yearStart}, 2, true
		}
	case "this", "этой", "этом", "этот", "эту":
		switch next {
		case "week", "неделе":
			return TimeRange{From: weekStart, To: weekStart.AddDate(0, 0, 7)}, 2, true
		case "month", "месяце":
			return TimeRange{From: monthStart, To: monthStart.AddDate(0, 1, 0)}, 2, true
		case "year", "году":
			return TimeRange{From: yearStart, To: yearStart.AddDate(1, 0, 0)}, 2, true
		}
	}
	// "N units ago" / "N единиц назад", and "a year ago" / "год назад".
	n, isNum := numberWords[w]
	if !isNum {
		if v, err := strconv.Atoi(w); err == nil && v > 0 && v < 1000 {
			n, isNum = v, true
		}
	}
	if isNum {
		if y, m, d, ok := unit(next); ok && (at(ws, i+2) == "ago" || at(ws, i+2) == "назад") {
			return agoRange(today, n, y, m, d), 3, true
		}
		return TimeRange{}, 0, false
	}
	if y, m, d, ok := unit(w); ok && (next == "ago" || next == "назад") && !(w == "day" || w == "days") {
		return agoRange(today, 1, y, m, d), 2, true
	}
	return TimeRange{}, 0, false
}

// agoRange is the period n units before today, as wide as one unit.
func agoRange(today time.Time, n, y, m, d int) TimeRange {
	from := today.AddDate(-n*y, -n*m, -n*d)
	return TimeRange{From: from, To: from.AddDate(y, m, d)}
}
