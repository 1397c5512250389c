package text

import (
	"testing"
	"time"
)

func TestParseTimeRange(t *testing.T) {
	now := time.Date(2024, 3, 14, 15, 0, 0, 0, time.UTC) // a Thursday
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		q        string
		from, to time.Time
		month    time.Month
		day      int
		phrase   string
	}{
		{q: "Who did Maria have dinner with on May 3, 2023?", from: d(2023, 5, 3), to: d(2023, 5, 4), phrase: "may 3 2023"},
		{q: "What did Gina find on 1 February, 2023?", from: d(2023, 2, 1), to: d(2023, 2, 2), phrase: "1 february 2023"},
		{q: "What setback did Melanie face in October 2023?", from: d(2023, 10, 1), to: d(2023, 11, 1), phrase: "october 2023"},
		{q: "When did Melanie go camping in June?", month: time.June, phrase: "june"},
		{q: "What painting did she show on October 13?", month: time.October, day: 13, phrase: "october 13"},
		{q: "How many times has Melanie gone to the beach in 2023?", from: d(2023, 1, 1), to: d(2024, 1, 1), phrase: "2023"},
		{q: "deploy notes 2024-02-29 rollback", from: d(2024, 2, 29), to: d(2024, 3, 1), phrase: "2024-02-29"},
		{q: "what broke yesterday", from: d(2024, 3, 13), to: d(2024, 3, 14), phrase: "yesterday"},
		{q: "what did we ship last week", from: d(2024, 3, 4), to: d(2024, 3, 11), phrase: "last week"},
		{q: "incidents last month", from: d(2024, 2, 1), to: d(2024, 3, 1), phrase: "last month"},
		{q: "Where did John go on a road trip last year?", from: d(2023, 1, 1), to: d(2024, 1, 1), phrase: "last year"},
		{q: "what did we decide two years ago", from: d(2022, 3, 14), to: d(2023, 3, 14), phrase: "two years ago"},
		{q: "what changed 3 days ago", from: d(2024, 3, 11), to: d(2024, 3, 12), phrase: "3 days ago"},
		{q: "что сломалось вчера", from: d(2024, 3, 13), to: d(2024, 3, 14), phrase: "вчера"},
		{q: "что мы выпустили в прошлом месяце", from: d(2024, 2, 1), to: d(2024, 3, 1), phrase: "прошлом месяце"},
		{q: "релиз 8 мая 2023", from: d(2023, 5, 8), to: d(2023, 5, 9), phrase: "8 мая 2023"},
		{q: "что было в мае", month: time.May, phrase: "мае"},
		{q: "что решили два года назад", from: d(2022, 3, 14), to: d(2023, 3, 14), phrase: "два года назад"},
		{q: "what happened in March", month: time.March, phrase: "march"},
	} {
		r, ok := ParseTimeRange(tc.q, now)
		if !ok {
			t.Errorf("%q: no range", tc.q)
			continue
		}
		if !r.From.Equal(tc.from) || !r.To.Equal(tc.to) || r.Month != tc.month || r.Day != tc.day || r.Phrase != tc.phrase {
			t.Errorf("%q = %+v, want from %v to %v month %v day %d phrase %q", tc.q, r, tc.from, tc.to, tc.month, tc.day, tc.phrase)
		}
	}
	for _, q := range []string{
		"What may be the reason for the outage?",
		"We march on with the migration",
		"port 5432 and 2023 other numbers",
		"how do we deploy nginx",
		"the last deploy failed",
		"",
	} {
		if r, ok := ParseTimeRange(q, now); ok {
			t.Errorf("%q names no period, got %+v", q, r)
		}
	}
}

func TestTimeRange_ContainsDistance(t *testing.T) {
	june := TimeRange{Month: time.June}
	for _, tc := range []struct {
		t    time.Time
		in   bool
		dist time.Duration
	}{
		{time.Date(2019, 6, 30, 23, 0, 0, 0, time.UTC), true, 0},
		{time.Date(2023, 7, 2, 0, 0, 0, 0, time.UTC), false, 24*time.Hour + time.Nanosecond},
		{time.Date(2023, 5, 31, 0, 0, 0, 0, time.UTC), false, 24 * time.Hour},
	} {
		if june.Contains(tc.t) != tc.in || june.Distance(tc.t) != tc.dist {
			t.Errorf("june at %v: contains %v distance %v, want %v %v", tc.t, june.Contains(tc.t), june.Distance(tc.t), tc.in, tc.dist)
		}
	}
}

func FuzzParseTimeRange(f *testing.F) {
	for _, s := range []string{"in May 2023", "3 days ago", "31 February 2023", "вчера", "2023-13-45", "may 0 2023"} {
		f.Add(s)
	}
	now := time.Date(2024, 3, 14, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, q string) {
		r, ok := ParseTimeRange(q, now)
		if ok && !r.Periodic() && !r.From.Before(r.To) {
			t.Fatalf("%q: empty range %+v", q, r)
		}
	})
}
