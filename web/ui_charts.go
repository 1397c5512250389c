package web

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/holomem/holomem"
)

// Status page charts: bar charts drawn on the server as SVG (no script,
// coloured by style.css classes, so the CSP holds).
const (
	chartDays    = 30 // facts per day
	chartHookDay = 14 // hook outcomes per day
	chartW       = 640.0
	chartH       = 180.0
	chartLeft    = 44.0
	chartBottom  = 22.0
	chartTop     = 8.0
)

// chart is one bar chart, laid out in SVG user units.
type chart struct {
	ID, Title string
	W, H      float64
	Bars      []chartBar
	YTicks    []chartTick
	XLabels   []chartTick
	Legend    []chartLegend
	// Total is the sum of all bars; Summary says it in words for readers
	// that do not see the picture.
	Total   int
	Summary string
	// Base is the y of the x axis.
	Base, Left, Right float64
}

type chartBar struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

type chartTick struct {
	X, Y  float64
	Label string
}

type chartLegend struct {
	Class, Label string
	Count        int
}

// series is one stacked part of a day: its label, class and count per day.
type series struct {
	Label, Class string
	Counts       []int
}

// barChart lays out stacked daily bars for days starting at first.
func barChart(id, title string, first time.Time, stack []series) *chart {
	days := len(stack[0].Counts)
	c := &chart{ID: id, Title: title, W: chartW, H: chartH, Base: chartH - chartBottom, Left: chartLeft, Right: chartW - 4}
	maxDay := 0
	for d := range days {
		sum := 0
		for _, s := range stack {
			sum += s.Counts[d]
		}
		maxDay = max(maxDay, sum)
		c.Total += sum
	}
	top := niceCeil(maxDay)
	plotH := c.Base - chartTop
	slot := (c.Right - c.Left) / float64(days)
	bw := math.Max(1, slot*0.75)
	for d := range days {
		day := first.AddDate(0, 0, d)
		y := c.Base
		x := round1(c.Left + float64(d)*slot + (slot-bw)/2)
		for _, s := range stack {
			n := s.Counts[d]
			if n == 0 {
				continue
			}
			h := round1(plotH * float64(n) / float64(top))
			y -= h
			c.Bars = append(c.Bars, chartBar{X: x, Y: round1(y), W: round1(bw), H: h, Class: s.Class,
				Title: fmt.Sprintf("%s: %d %s", day.Format("2006-01-02"), n, s.Label)})
		}
		// A label a week, and the last day's unless the week's is near.
		if d%7 == 0 || (d == days-1 && d%7 > 3) {
			c.XLabels = append(c.XLabels, chartTick{X: round1(c.Left + float64(d)*slot + slot/2), Y: chartH - 6, Label: day.Format("01-02")})
		}
	}
	for _, v := range []int{0, top / 2, top} {
		c.YTicks = append(c.YTicks, chartTick{X: c.Left - 6, Y: round1(c.Base - plotH*float64(v)/float64(top)), Label: strconv.Itoa(v)})
	}
	for _, s := range stack {
		n := 0
		for _, v := range s.Counts {
			n += v
		}
		c.Legend = append(c.Legend, chartLegend{Class: s.Class, Label: s.Label, Count: n})
	}
	last := first.AddDate(0, 0, days-1)
	c.Summary = fmt.Sprintf("%s, %s to %s: %d in all, at most %d a day", title, first.Format("2006-01-02"), last.Format("2006-01-02"), c.Total, maxDay)
	return c
}

// niceCeil rounds n up to 1, 2, 4, 6 or 8 times a power of ten, even and
// at least 2, so the middle tick is a whole number.
func niceCeil(n int) int {
	if n <= 2 {
		return 2
	}
	p := 1
	for p*10 < n {
		p *= 10
	}
	for _, m := range []int{1, 2, 4, 6, 8, 10} {
		if m*p >= n && (m*p)%2 == 0 {
			return m * p
		}
	}
	return 10 * p
}

// statusCharts draws the status page's charts from what the store keeps:
// live facts per day of their event time (a count per day on the browse
// index) and the prompt hook's outcomes per day (the injection log). A
// store without one of them gets no such chart.
func (s *Server) statusCharts(ctx context.Context, ns string, now time.Time) ([]*chart, error) {
	var out []*chart
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	if fb, ok := holomem.As[holomem.FactBrowser](s.store); ok {
		first := today.AddDate(0, 0, 1-chartDays)
		counts := make([]int, chartDays)
		for d := range counts {
			from := first.AddDate(0, 0, d)
			n, err := fb.CountFacts(ctx, holomem.BrowseFilter{Namespace: &ns, CreatedFrom: from, CreatedTo: from.AddDate(0, 0, 1)})
			if err != nil {
				return nil, fmt.Errorf("facts per day: %w", err)
			}
			counts[d] = n
		}
		out = append(out, barChart("chart-facts", "Facts per day in "+ns, first, []series{{Label: "facts", Class: "bar-facts", Counts: counts}}))
	}
	if ts, ok := holomem.As[holomem.TelemetryStore](s.store); ok {
		first := today.AddDate(0, 0, 1-chartHookDay)
		outcomes := []string{holomem.InjectionInjected, holomem.InjectionEmpty, holomem.InjectionTimeout, holomem.InjectionFailed}
		stack := make([]series, len(outcomes))
		for i, o := range outcomes {
			stack[i] = series{Label: o, Class: "bar-" + o, Counts: make([]int, chartHookDay)}
		}
		// InjectionStats counts since a time: a day's runs are the
		// difference between the counts since its start and since the
		// next day's.
		prev := map[string]int{}
		for d := chartHookDay; d >= 0; d-- {
			st, err := ts.InjectionStats(ctx, first.AddDate(0, 0, d))
			if err != nil {
				return nil, fmt.Errorf("hook outcomes: %w", err)
			}
			if d < chartHookDay {
				for i, o := range outcomes {
					stack[i].Counts[d] = st.Outcomes[o] - prev[o]
				}
			}
			prev = st.Outcomes
		}
		out = append(out, barChart("chart-hook", "Prompt hook runs per day (all namespaces)", first, stack))
	}
	return out, nil
}
