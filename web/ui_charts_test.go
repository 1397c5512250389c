package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/holomem/holomem"
)

var chartBarRE = regexp.MustCompile(`<rect class="(bar-[a-z]+)" x="[0-9.]+" y="[0-9.]+" width="[0-9.]+" height="([0-9.]+)"><title>([^<]*)</title></rect>`)

func TestUI_StatusCharts(t *testing.T) {
	b, st := newBrowserWithStore(t)
	now := time.Now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.UTC)
	for i, age := range []int{0, 0, 3, 40} { // the 40-day-old fact is outside the chart
		b.rememberFact(&holomem.Fact{Content: fmt.Sprintf("chart fact %d", i), CreatedAt: today.AddDate(0, 0, -age), UpdatedAt: today})
	}
	ts := st.(holomem.TelemetryStore)
	for _, inj := range []struct {
		age     int
		outcome string
	}{{0, holomem.InjectionInjected}, {0, holomem.InjectionInjected}, {0, holomem.InjectionTimeout}, {1, holomem.InjectionEmpty}, {2, holomem.InjectionFailed}, {20, holomem.InjectionInjected}} {
		if err := ts.LogInjection(t.Context(), holomem.Injection{At: today.AddDate(0, 0, -inj.age), Namespace: "default", Outcome: inj.outcome}); err != nil {
			t.Fatal(err)
		}
	}
	r := b.get("/status")
	if r.status != http.StatusOK {
		t.Fatalf("status: %d %.300s", r.status, r.body)
	}
	got := map[string]string{}
	for _, m := range chartBarRE.FindAllSubmatch(r.body, -1) {
		got[string(m[3])] = string(m[1])
	}
	day := func(age int) string { return today.AddDate(0, 0, -age).Format("2006-01-02") }
	want := map[string]string{
		day(0) + ": 2 facts": "bar-facts", day(3) + ": 1 facts": "bar-facts",
		day(0) + ": 2 injected": "bar-injected", day(0) + ": 1 timeout": "bar-timeout",
		day(1) + ": 1 empty": "bar-empty", day(2) + ": 1 failed": "bar-failed",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("chart bars = %v\nwant %v", got, want)
	}
	for _, s := range []string{`id="chart-facts"`, `id="chart-hook"`, "3 in all, at most 2 a day", "5 in all, at most 3 a day"} {
		if !bytes.Contains(r.body, []byte(s)) {
			t.Errorf("status page lacks %q", s)
		}
	}
	// The tallest bar of a chart reaches the top tick's share of the plot.
	for _, m := range chartBarRE.FindAllSubmatch(r.body, -1) {
		if string(m[3]) == day(0)+": 2 facts" && string(m[2]) != "150" {
			t.Errorf("2 facts of a top tick of 2: height %s, want the whole plot (150)", m[2])
		}
	}
}

// TestUI_StatusChartsEscaping: the namespace is in the chart's title and
// summary; markup in it stays text.
func TestUI_StatusChartsEscaping(t *testing.T) {
	b, _ := newBrowserWithStore(t)
	ns := `n<script>alert(1)</script>"><svg onload=alert(2)>`
	b.rememberFact(&holomem.Fact{Content: "a fact", Namespace: ns})
	r := b.get("/status?namespace=" + url.QueryEscape(ns))
	if r.status != http.StatusOK {
		t.Fatalf("status: %d", r.status)
	}
	for _, raw := range []string{"<script>alert", "<svg onload", `"><svg`} {
		if bytes.Contains(r.body, []byte(raw)) {
			t.Errorf("%q is in the page unescaped", raw)
		}
	}
	if !bytes.Contains(r.body, []byte("Facts per day in n&lt;script&gt;alert(1)&lt;/script&gt;")) {
		t.Error("the namespace is not shown as text in the chart title")
	}
}
