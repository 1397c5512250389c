package eval

import (
	"fmt"
	"time"
)

// generated makes a small deterministic data set: n facts about people and
// things in two namespaces, and a query per fact naming its distinctive
// words, half in category "a", half in "b".
func generated(n int) *Dataset {
	people := []string{"Alice", "Bob", "Chen", "Dana", "Emil"}
	things := []string{"guitar", "kayak", "sourdough", "telescope", "chess", "marathon", "pottery", "violin"}
	d := &Dataset{Name: "generated"}
	t0 := time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		ns := fmt.Sprintf("ns%d", i%2)
		p, th := people[i%len(people)], things[(i/2)%len(things)]
		ts := t0.Add(time.Duration(i) * 24 * time.Hour)
		key := fmt.Sprintf("k%d", i)
		d.Facts = append(d.Facts, Fact{Key: key, Namespace: ns, Time: &ts,
			Text: fmt.Sprintf("%s talked about %s on day %d", p, th, i)})
		cat := "a"
		if i%2 == 1 {
			cat = "b"
		}
		d.Queries = append(d.Queries, Query{ID: "q" + key, Namespace: ns, Category: cat, Gold: []string{key},
			Text: fmt.Sprintf("What did %s say about %s?", p, th)})
	}
	return d
}
