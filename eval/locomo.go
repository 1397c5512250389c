package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// LoCoMo (Maharana et al., ACL 2024) question categories. Category 5
// (adversarial: no answer in the conversation) is skipped, as is every
// question without evidence: retrieval has nothing to find.
var locomoCategories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

// locomoTime is how LoCoMo writes a session's date: "1:56 pm on 8 May, 2023".
const locomoTime = "3:04 pm on 2 January, 2006"

type locomoTurn struct {
	ConvID   string `json:"conv_id"`
	DiaID    string `json:"dia_id"`
	Session  int    `json:"session"`
	When     string `json:"session_date_time"`
	Speaker  string `json:"speaker"`
	Text     string `json:"text"`
	Caption  string `json:"blip_caption"`
	ImageURL any    `json:"img_url"`
}

type locomoQA struct {
	ConvID   string          `json:"conv_id"`
	QID      string          `json:"qid"`
	Question string          `json:"question"`
	Category int             `json:"category"`
	Evidence []string        `json:"evidence"`
	Answer   json.RawMessage `json:"answer"`
}

// ReadLoCoMo converts LoCoMo to a Dataset: one namespace per conversation,
// one fact per turn ("Speaker: text", key = dia_id, time = the session's
// date plus the turn's position in seconds, so turns keep their order),
// query = question with its evidence as gold. path is either LoCoMo's
// published locomo10.json or a directory (or its turns.jsonl) holding the
// flattened turns.jsonl and qa.jsonl. Evidence naming no turn is dropped;
// a question left without evidence is skipped.
func ReadLoCoMo(path string) (*Dataset, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("locomo: %w", err)
	}
	dir := path
	if !st.IsDir() {
		if strings.HasSuffix(path, ".json") {
			return readLoCoMoJSON(path)
		}
		dir = filepath.Dir(path)
	}
	var turns []locomoTurn
	if err := readJSONLines("locomo", filepath.Join(dir, "turns.jsonl"), func(b []byte) error {
		var t locomoTurn
		err := json.Unmarshal(b, &t)
		turns = append(turns, t)
		return err
	}); err != nil {
		return nil, err
	}
	var qas []locomoQA
	if err := readJSONLines("locomo", filepath.Join(dir, "qa.jsonl"), func(b []byte) error {
		var q locomoQA
		err := json.Unmarshal(b, &q)
		qas = append(qas, q)
		return err
	}); err != nil {
		return nil, err
	}
	return buildLoCoMo("locomo:"+dir, turns, qas)
}

// readLoCoMoJSON reads the published format: a list of samples, each with
// "conversation" (speaker_a, speaker_b, session_N_date_time, session_N:
// [turns]) and "qa".
func readLoCoMoJSON(path string) (*Dataset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("locomo: %w", err)
	}
	var samples []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []locomoQA                 `json:"qa"`
	}
	if err := json.Unmarshal(b, &samples); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, path, err)
	}
	var turns []locomoTurn
	var qas []locomoQA
	for _, s := range samples {
		var sessions []int
		for k := range s.Conversation {
			if n, ok := strings.CutPrefix(k, "session_"); ok && !strings.Contains(n, "_") {
				if i, err := strconv.Atoi(n); err == nil {
					sessions = append(sessions, i)
				}
			}
		}
		sort.Ints(sessions)
		for _, i := range sessions {
			var when string
			if raw, ok := s.Conversation[fmt.Sprintf("session_%d_date_time", i)]; ok {
				_ = json.Unmarshal(raw, &when)
			}
			var ts []locomoTurn
			if err := json.Unmarshal(s.Conversation[fmt.Sprintf("session_%d", i)], &ts); err != nil {
				return nil, fmt.Errorf("%w: %s: %s session %d: %v", ErrFormat, path, s.SampleID, i, err)
			}
			for _, t := range ts {
				t.ConvID, t.Session, t.When = s.SampleID, i, when
				turns = append(turns, t)
			}
		}
		for i, q := range s.QA {
			q.ConvID = s.SampleID
			if q.QID == "" {
				q.QID = fmt.Sprintf("%s-q%04d", s.SampleID, i)
			}
			qas = append(qas, q)
		}
	}
	return buildLoCoMo("locomo:"+path, turns, qas)
}

func buildLoCoMo(name string, turns []locomoTurn, qas []locomoQA) (*Dataset, error) {
	d := &Dataset{Name: name}
	known := map[[2]string]bool{}
	pos := map[string]int{} // turn index within its session, for ordering times
	for _, t := range turns {
		if t.ConvID == "" || t.DiaID == "" || strings.TrimSpace(t.Text) == "" {
			continue
		}
		k := [2]string{t.ConvID, t.DiaID}
		if known[k] {
			continue
		}
		known[k] = true
		f := Fact{Key: t.DiaID, Namespace: t.ConvID, Text: t.Speaker + ": " + t.Text, Category: "conversation"}
		if ts, err := time.Parse(locomoTime, strings.TrimSpace(t.When)); err == nil {
			sk := fmt.Sprintf("%s/%d", t.ConvID, t.Session)
			ts = ts.Add(time.Duration(pos[sk]) * time.Second).UTC()
			pos[sk]++
			f.Time = &ts
		}
		d.Facts = append(d.Facts, f)
	}
	for _, q := range qas {
		cat, ok := locomoCategories[q.Category]
		if !ok {
			continue
		}
		var gold []string
		seen := map[string]bool{}
		for _, e := range q.Evidence {
			// A few evidence entries list several ids in one string ("D8:6; D9:17").
			for _, id := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
				if known[[2]string{q.ConvID, id}] && !seen[id] {
					seen[id] = true
					gold = append(gold, id)
				}
			}
		}
		if len(gold) == 0 {
			continue
		}
		d.Queries = append(d.Queries, Query{ID: q.QID, Text: q.Question, Gold: gold, Category: cat, Namespace: q.ConvID})
	}
	return d, d.Validate()
}
