package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// Browse page sizes: rows per page by default and at most (the page stays
// under its 80 KB budget at the maximum).
const (
	browsePageLimit = 50
	browseMaxLimit  = 100
	// browseFlagScan bounds the facts one flagged-only page reads: the
	// flag is text.InstructionRisks, computed here and not in the store,
	// so the page scans in order and stops here, with a "next" link that
	// continues the scan.
	browseFlagScan  = 5000
	browseFlagBatch = 500
)

// browseForm is the browse page's state. It round-trips through the URL
// query (see values), so every view can be bookmarked.
type browseForm struct {
	Category, Tag, Source       string
	MinTrust, MaxTrust          string
	TimeField, From, To         string
	Superseded                  string
	Flagged                     bool
	Sort                        string
	Asc                         bool
	Limit                       int
	After                       string
	Orders                      []holomem.BrowseOrder
	SupersededModes, TimeFields []string
}

// browseRow is one listed fact with its instruction-risk flags.
type browseRow struct {
	*holomem.Fact
	Risks []string
}

type browseData struct {
	Form  browseForm
	Rows  []browseRow
	Total int
	// Scanned is how many facts a flagged-only page read.
	Scanned int
	// Next is the URL of the next page, "" on the last.
	Next string
	// First is the URL of the first page when this is a later one.
	First string
}

// handleBrowsePage lists a namespace's facts for curators: every filter
// and the sort in the URL, pages by keyset (the "next" link carries the
// last row's sort key and id), so page 1000 of 100k facts costs what page
// 1 does.
func (s *Server) handleBrowsePage(w http.ResponseWriter, r *http.Request, p *page) error {
	fb, ok := holomem.As[holomem.FactBrowser](s.store)
	if !ok {
		return fmt.Errorf("%w: this store cannot list facts in order", holomem.ErrUnavailable)
	}
	f, flt, err := parseBrowse(r.URL.Query(), p.Namespace)
	if err != nil {
		return err
	}
	d := &browseData{Form: f}
	p.Title, p.Nav, p.Data = "Browse", "browse", d
	ctx := r.Context()
	if d.Total, err = fb.CountFacts(ctx, flt); err != nil {
		return fmt.Errorf("count facts: %w", err)
	}
	order := flt.EffectiveOrder()
	var last *holomem.Fact
	more := false
	if !f.Flagged {
		flt.Limit = f.Limit + 1
		fs, err := fb.BrowseFacts(ctx, flt)
		if err != nil {
			return fmt.Errorf("browse: %w", err)
		}
		if more = len(fs) > f.Limit; more {
			fs = fs[:f.Limit]
		}
		for _, x := range fs {
			d.Rows = append(d.Rows, browseRow{Fact: x, Risks: text.InstructionRisks(x.Category + "\n" + x.Content)})
		}
		if len(fs) > 0 {
			last = fs[len(fs)-1]
		}
	} else {
		flt.Limit = browseFlagBatch
		exhausted := false
	scan:
		for d.Scanned < browseFlagScan {
			fs, err := fb.BrowseFacts(ctx, flt)
			if err != nil {
				return fmt.Errorf("browse: %w", err)
			}
			for _, x := range fs {
				d.Scanned++
				last = x
				if risks := text.InstructionRisks(x.Category + "\n" + x.Content); len(risks) > 0 {
					d.Rows = append(d.Rows, browseRow{Fact: x, Risks: risks})
					if len(d.Rows) == f.Limit {
						break scan
					}
				}
			}
			if len(fs) < flt.Limit {
				exhausted = true
				break
			}
			c := order.CursorOf(fs[len(fs)-1])
			flt.After = &c
		}
		// A full page or a scan cut at its cap may have more after it.
		more = len(d.Rows) == f.Limit || !exhausted
	}
	base := f.values(p.Namespace, s.opts.Namespace)
	if more && last != nil {
		next := cloneValues(base)
		next.Set("after", encodeCursor(order, order.CursorOf(last)))
		d.Next = "/browse?" + next.Encode()
	}
	if f.After != "" {
		d.First = "/browse?" + base.Encode()
	}
	return s.render(w, r, "browse", p)
}

// parseBrowse reads the browse page's query into its form and the store's
// filter; a value that does not parse is an ErrInvalid naming it.
func parseBrowse(v url.Values, ns string) (browseForm, holomem.BrowseFilter, error) {
	g := func(k string) string { return strings.TrimSpace(v.Get(k)) }
	f := browseForm{Category: g("category"), Tag: g("tag"), Source: g("source"), MinTrust: g("min_trust"), MaxTrust: g("max_trust"),
		TimeField: g("time"), From: g("from"), To: g("to"), Superseded: g("superseded"), Flagged: g("flagged") != "",
		Sort: g("sort"), Asc: g("dir") == "asc", Limit: browsePageLimit, After: g("after"),
		Orders: holomem.BrowseOrders, SupersededModes: []string{"", string(holomem.SupersededShow), string(holomem.SupersededOnly)},
		TimeFields: []string{"event", "updated"}}
	flt := holomem.BrowseFilter{Namespace: &ns, Order: holomem.BrowseOrder(f.Sort), Ascending: f.Asc,
		Superseded: holomem.SupersededMode(f.Superseded)}
	if f.Sort == "" {
		f.Sort = string(holomem.BrowseUpdated)
	}
	for _, x := range []struct {
		val string
		dst **string
	}{{f.Category, &flt.Category}, {f.Tag, &flt.Tag}, {f.Source, &flt.Source}} {
		if x.val != "" {
			*x.dst = &x.val
		}
	}
	for _, x := range []struct {
		name, val string
		dst       **float64
	}{{"min trust", f.MinTrust, &flt.MinTrust}, {"max trust", f.MaxTrust, &flt.MaxTrust}} {
		if x.val == "" {
			continue
		}
		t, err := strconv.ParseFloat(x.val, 64)
		if err != nil {
			return f, flt, fmt.Errorf("%w: %s %q is not a number", holomem.ErrInvalid, x.name, x.val)
		}
		*x.dst = &t
	}
	var from, to time.Time
	for _, x := range []struct {
		name, val string
		dst       *time.Time
		days      int
	}{{"from", f.From, &from, 0}, {"to", f.To, &to, 1}} {
		if x.val == "" {
			continue
		}
		t, err := time.Parse("2006-01-02", x.val)
		if err != nil {
			return f, flt, fmt.Errorf("%w: %s date %q is not YYYY-MM-DD", holomem.ErrInvalid, x.name, x.val)
		}
		// "to" is inclusive of its day: the range ends at the next midnight.
		*x.dst = t.AddDate(0, 0, x.days)
	}
	switch f.TimeField {
	case "", "event":
		f.TimeField = "event"
		flt.CreatedFrom, flt.CreatedTo = from, to
	case "updated":
		flt.UpdatedFrom, flt.UpdatedTo = from, to
	default:
		return f, flt, fmt.Errorf("%w: time %q is neither event nor updated", holomem.ErrInvalid, f.TimeField)
	}
	if l := g("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n <= 0 || n > browseMaxLimit {
			return f, flt, fmt.Errorf("%w: limit %q is not a number in 1..%d", holomem.ErrInvalid, l, browseMaxLimit)
		}
		f.Limit = n
	}
	if f.After != "" {
		c, err := decodeCursor(flt.EffectiveOrder(), f.After)
		if err != nil {
			return f, flt, err
		}
		flt.After = &c
	}
	if err := flt.Validate(); err != nil {
		return f, flt, err
	}
	return f, flt, nil
}

// values is the form as a URL query without the cursor, leaving out what
// is at its default so links stay short.
func (f browseForm) values(ns, defaultNS string) url.Values {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	if ns != defaultNS {
		set("namespace", ns)
	}
	set("category", f.Category)
	set("tag", f.Tag)
	set("source", f.Source)
	set("min_trust", f.MinTrust)
	set("max_trust", f.MaxTrust)
	if f.From != "" || f.To != "" {
		set("time", f.TimeField)
	}
	set("from", f.From)
	set("to", f.To)
	set("superseded", f.Superseded)
	if f.Flagged {
		v.Set("flagged", "1")
	}
	if f.Sort != string(holomem.BrowseUpdated) {
		set("sort", f.Sort)
	}
	if f.Asc {
		v.Set("dir", "asc")
	}
	if f.Limit != browsePageLimit {
		v.Set("limit", strconv.Itoa(f.Limit))
	}
	return v
}

// TagURL is the current view narrowed to one tag.
func (f browseForm) TagURL(ns, tag string) string {
	v := f.values(ns, "")
	v.Set("tag", tag)
	return "/browse?" + v.Encode()
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, x := range v {
		out[k] = append([]string(nil), x...)
	}
	return out
}

// encodeCursor writes a cursor as "KEY_ID" with the key of order o: unix
// nanoseconds for times, the shortest exact decimal for trust, the count
// for retrievals, nothing for id.
func encodeCursor(o holomem.BrowseOrder, c holomem.BrowseCursor) string {
	id := strconv.FormatInt(c.ID, 10)
	switch o {
	case holomem.BrowseUpdated, holomem.BrowseEvent:
		return strconv.FormatInt(c.Time.UnixNano(), 10) + "_" + id
	case holomem.BrowseTrust:
		return strconv.FormatFloat(c.Trust, 'g', -1, 64) + "_" + id
	case holomem.BrowseRetrievals:
		return strconv.FormatInt(c.Retrievals, 10) + "_" + id
	}
	return id
}

// decodeCursor reads what encodeCursor wrote for order o.
func decodeCursor(o holomem.BrowseOrder, s string) (holomem.BrowseCursor, error) {
	var c holomem.BrowseCursor
	bad := fmt.Errorf("%w: page cursor %q does not fit sort %q; start from the first page", holomem.ErrInvalid, s, o)
	key, idText, found := strings.Cut(s, "_")
	if !found {
		key, idText = "", s
	}
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id < 0 {
		return c, bad
	}
	c.ID = id
	switch o {
	case holomem.BrowseUpdated, holomem.BrowseEvent:
		n, err := strconv.ParseInt(key, 10, 64)
		if err != nil {
			return c, bad
		}
		c.Time = time.Unix(0, n).UTC()
	case holomem.BrowseTrust:
		t, err := strconv.ParseFloat(key, 64)
		if err != nil {
			return c, bad
		}
		c.Trust = t
	case holomem.BrowseRetrievals:
		n, err := strconv.ParseInt(key, 10, 64)
		if err != nil {
			return c, bad
		}
		c.Retrievals = n
	default:
		if found {
			return c, bad
		}
	}
	return c, nil
}
