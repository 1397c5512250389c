package retrieve

import (
	"fmt"
	"math"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// queryPeriod is the period q names, resolved against the memory's clock.
func (m *Memory) queryPeriod(q string) (text.TimeRange, bool) {
	return text.ParseTimeRange(q, m.opts.Now())
}

// scoreTime sets each candidate's time score from its fact's event time
// (CreatedAt: when it happened, which imports set to the record's own
// date): 1 inside the period, halving with every period's length outside
// it, so "in May 2023" still favours early June over December.
//
// The facts inside the period do not decay with their age: the question
// asks for that time, so a fact of May 2023 is not staler for "in May
// 2023" than yesterday's. A periodic period ("in May") counts the years
// between its occurrences instead, so the latest May's facts come first.
func scoreTime(cands map[int64]*candidate, r text.TimeRange) {
	span := max(r.Span().Hours(), 24)
	var latest time.Time
	for _, c := range cands {
		if c.fact == nil || c.fact.CreatedAt.IsZero() {
			continue
		}
		d := r.Distance(c.fact.CreatedAt).Hours()
		c.set(holomem.ChannelTime, math.Pow(0.5, d/span))
		if d == 0 {
			c.inPeriod = true
			if e := periodEnd(r, c.fact.CreatedAt); e.After(latest) {
				latest = e
			}
		}
	}
	for _, c := range cands {
		if c.inPeriod {
			c.periodAge = latest.Sub(periodEnd(r, c.fact.CreatedAt))
		}
	}
}

// timeNote tells which period the time channel read from the query.
func timeNote(r text.TimeRange) string {
	switch {
	case r.Periodic() && r.Day != 0:
		return fmt.Sprintf("time: %q read as %s %d of any year", r.Phrase, r.Month, r.Day)
	case r.Periodic():
		return fmt.Sprintf("time: %q read as %s of any year", r.Phrase, r.Month)
	}
	return fmt.Sprintf("time: %q read as %s to %s", r.Phrase, r.From.Format("2006-01-02"), r.To.Add(-1).Format("2006-01-02"))
}

// periodEnd is the end of the occurrence of r that holds t: the range's
// end, or for a periodic range the end of that month (day) in t's year.
func periodEnd(r text.TimeRange, t time.Time) time.Time {
	if !r.Periodic() {
		return r.To
	}
	t = t.UTC()
	if r.Day != 0 {
		return time.Date(t.Year(), r.Month, r.Day, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
	}
	return time.Date(t.Year(), r.Month, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0)
}
