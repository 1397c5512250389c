package holomem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Channel names one independent way of scoring a candidate.
type Channel string

// The recall channels. Each scores a candidate 0..1.
const (
	ChannelFTS      Channel = "fts"      // SQLite FTS5 BM25, normalised
	ChannelJaccard  Channel = "jaccard"  // token-set overlap
	ChannelHRR      Channel = "hrr"      // holographic similarity
	ChannelSemantic Channel = "semantic" // cosine of sentence embeddings
	ChannelPPR      Channel = "ppr"      // query-seeded Personalized PageRank over edges
	ChannelTime     Channel = "time"     // the fact's event time within the period the query names
)

// ChannelSpec describes one channel: its name, the weight it carries by
// default and when it runs. The table of them ([Channels]) is the one
// place the channels are listed: weights, scores, their JSON, explanations
// and evaluation ablations are all read from it, so a new channel is one
// entry here and one scorer in the retrieve package (docs/design.md §4.6).
type ChannelSpec struct {
	Name Channel
	// Weight is the default weight. For a channel that runs on every
	// query it is the channel's part of [DefaultWeights] (with a model;
	// see [ChannelSpec.DefaultWeight]); for an occasional channel it is the
	// weight the channel takes when it runs and the query gives it none.
	Weight float64
	// NeedsModel is set for a channel that runs only with an embedding
	// model (semantic); NeedsHRR for one that runs only while HRR vectors
	// are kept (hrr). When they cannot run, their weight goes to the others
	// ([Weights.Redistribute]).
	NeedsModel, NeedsHRR bool
	// Occasional is set for a channel that runs only on some queries: ppr
	// when the query asks for it, time when the query names a period. Its
	// weight is added to the others' rather than redistributed, is 0 when
	// it did not run, and JSON leaves it out when 0.
	Occasional bool
	// Doc says in a few words what the channel scores.
	Doc string
}

// DefaultWeight is the channel's default weight with or without an
// embedding model (HRR kept): without one the semantic share goes to the
// other channels, fts 0.79 and hrr 0.21.
func (c ChannelSpec) DefaultWeight(model bool) float64 {
	if c.Occasional {
		return c.Weight
	}
	return DefaultWeights().Redistribute(model, true)[c.Name]
}

// builtinChannels are holomem's channels in their fixed order, which is
// the order of Result.Channels, of weights and scores in JSON and of
// every explanation. The defaults are chosen by measurement (`holomem eval
// --ablate` on the LoCoMo development split, docs/evaluation.md): full
// text carries recall, HRR re-ranks its candidates (+1-2% recall@10), and
// Jaccard, which lowered recall in every mix measured, only explains
// (weight 0). The semantic share is the reference design's 0.3
// (docs/design.md §3.4).
var builtinChannels = []ChannelSpec{
	{Name: ChannelFTS, Weight: 0.55, Doc: "BM25 over stems"},
	{Name: ChannelJaccard, Weight: 0, Doc: "overlap of the content-word stem sets"},
	{Name: ChannelHRR, Weight: 0.15, NeedsHRR: true, Doc: "holographic similarity of words and entities"},
	{Name: ChannelSemantic, Weight: 0.3, NeedsModel: true, Doc: "cosine of sentence embeddings"},
	// PPR's 4 beside the others' 1 carries 0.8 of relevance once the
	// weights are normalised: the graph package's buried-hub test measured
	// MRR 0.96 on broad queries and 0.93 on pinpoint ones for that mix (0.5
	// gave 0.13 / 1.00). PPR is an option for broad queries, not the default.
	{Name: ChannelPPR, Weight: 4, Occasional: true, Doc: "Personalized PageRank seeded by the best candidates (when asked)"},
	// 0.3 beside fts 0.79 and hrr 0.21 (no model), chosen with `holomem eval
	// --locomo` on the development split stored with the turns' dates
	// (docs/evaluation.md): it lifts the facts of the period without letting
	// a fact that merely happened then outrank one that answers.
	{Name: ChannelTime, Weight: 0.3, Occasional: true, Doc: "event time within the period the query names (when it names one)"},
}

// The table is read on every recall and replaced whole (copy on write)
// by RegisterChannel, so reads take no lock.
var (
	channelTable   atomic.Pointer[[]ChannelSpec]
	channelTableMu sync.Mutex
)

func init() { channelTable.Store(&builtinChannels) }

// channels returns the table itself; callers must not modify it.
func channels() []ChannelSpec { return *channelTable.Load() }

// Channels returns the channel table in its fixed order.
func Channels() []ChannelSpec { return slices.Clone(channels()) }

// LookupChannel returns the spec of the channel named name.
func LookupChannel(name Channel) (ChannelSpec, bool) {
	for _, c := range channels() {
		if c.Name == name {
			return c, true
		}
	}
	return ChannelSpec{}, false
}

// RegisterChannel appends a channel to the table (after the built-in ones)
// and returns the function that removes it again. Its scorer must be
// registered with the searcher too (retrieve.RegisterChannel does both).
// It is meant for extensions and tests; holomem's own channels are in the
// table from the start.
func RegisterChannel(c ChannelSpec) (unregister func(), err error) {
	if c.Name == "" || strings.ToLower(string(c.Name)) != string(c.Name) || strings.ContainsAny(string(c.Name), " ,=\"") {
		return nil, fmt.Errorf("%w: channel name %q must be a lower-case word", ErrInvalid, c.Name)
	}
	if math.IsNaN(c.Weight) || c.Weight < 0 || c.Weight > MaxWeight {
		return nil, fmt.Errorf("%w: channel %s: default weight %v must be a number from 0 to %d", ErrInvalid, c.Name, c.Weight, MaxWeight)
	}
	channelTableMu.Lock()
	defer channelTableMu.Unlock()
	old := channels()
	if slices.ContainsFunc(old, func(o ChannelSpec) bool { return o.Name == c.Name }) {
		return nil, fmt.Errorf("%w: channel %s is registered already", ErrConflict, c.Name)
	}
	next := append(slices.Clip(old), c)
	channelTable.Store(&next)
	return func() {
		channelTableMu.Lock()
		defer channelTableMu.Unlock()
		cur := slices.DeleteFunc(slices.Clone(channels()), func(o ChannelSpec) bool { return o.Name == c.Name })
		channelTable.Store(&cur)
	}, nil
}

// channelNames lists the table's names for error messages.
func channelNames() string {
	names := make([]string, 0, len(channels()))
	for _, c := range channels() {
		names = append(names, string(c.Name))
	}
	return strings.Join(names, ", ")
}

// ParseChannel reads a channel name as users type it (any case).
func ParseChannel(s string) (Channel, error) {
	s = strings.TrimSpace(s)
	for _, c := range channels() {
		if strings.EqualFold(string(c.Name), s) {
			return c.Name, nil
		}
	}
	return "", fmt.Errorf("%w: unknown channel %q (%s)", ErrInvalid, s, channelNames())
}

// Weights combine channel scores into relevance, by channel. They need
// not sum to 1; the searcher normalises them over the channels that ran,
// and reports the normalised weights it used (see [Weights.Normalized]).
// A channel missing from the map weighs 0. In JSON every channel that runs
// on every query is present and an occasional one only when not 0:
// {"fts":0.55,"jaccard":0,"hrr":0.15,"semantic":0.3}.
//
// Weights are values: every method returns a new map and leaves its
// receiver alone, so one set can be shared by concurrent recalls.
type Weights map[Channel]float64

// DefaultWeights are the table's default weights of the channels that run
// on every query ([ChannelSpec.Weight]).
func DefaultWeights() Weights {
	w := Weights{}
	for _, c := range channels() {
		if !c.Occasional {
			w[c.Name] = c.Weight
		}
	}
	return w
}

// Clone returns a copy of w (never nil).
func (w Weights) Clone() Weights {
	out := make(Weights, len(w))
	for k, v := range w {
		out[k] = v
	}
	return out
}

// Redistribute returns the weights to use when some channels cannot run:
// the missing channels' share goes to the remaining ones in proportion
// (without a model the defaults become fts 0.79, hrr 0.21). Occasional
// channels keep their weights.
func (w Weights) Redistribute(semantic, hrr bool) Weights {
	return w.Keep(func(c ChannelSpec) bool {
		return (semantic || !c.NeedsModel) && (hrr || !c.NeedsHRR)
	})
}

// Keep returns the weights with the share of every channel that runs on
// every query but not now (runs false) given to the others in proportion.
// Occasional channels keep their weights.
func (w Weights) Keep(runs func(ChannelSpec) bool) Weights {
	out := w.Clone()
	kept, total := 0.0, 0.0
	for _, c := range channels() {
		if c.Occasional {
			continue
		}
		if _, ok := out[c.Name]; ok && !runs(c) {
			out[c.Name] = 0
		}
		kept += out[c.Name]
		total += w[c.Name]
	}
	if kept > 0 && kept < total {
		f := total / kept
		for _, c := range channels() {
			if v, ok := out[c.Name]; ok && !c.Occasional {
				out[c.Name] = v * f
			}
		}
	}
	return out
}

// Everyday returns the weights of the channels that run on every query
// only: what a status reports, no query having asked for the others.
func (w Weights) Everyday() Weights {
	out := w.Clone()
	for _, c := range channels() {
		if c.Occasional {
			delete(out, c.Name)
		}
	}
	return out
}

// Equal reports whether w and o weigh every channel alike (a missing
// channel weighs 0).
func (w Weights) Equal(o Weights) bool {
	for _, k := range sortedKeys(w) {
		if w[k] != o[k] {
			return false
		}
	}
	for _, k := range sortedKeys(o) {
		if w[k] != o[k] {
			return false
		}
	}
	return true
}

// Sum is the sum of the weights, in the table's order.
func (w Weights) Sum() float64 {
	total := 0.0
	for _, c := range channels() {
		total += w[c.Name]
	}
	return total
}

// Normalized returns the weights scaled to sum to 1, which is how recall
// combines them: relevance is then exactly the weighted sum of the channel
// scores, with no divisor hidden from the weights it reports. An all-zero
// set is returned unchanged.
func (w Weights) Normalized() Weights {
	total := w.Sum()
	out := w.Clone()
	if total <= 0 || total == 1 {
		return out
	}
	for k, v := range out {
		out[k] = v / total
	}
	return out
}

// Relevance is the weighted sum of s by w divided by the weights' sum
// (with normalised weights, the plain weighted sum), in the table's order
// so that it is the same number on every run.
func (w Weights) Relevance(s Scores) float64 {
	sum, total := 0.0, 0.0
	for _, c := range channels() {
		sum += s[c.Name] * w[c.Name]
		total += w[c.Name]
	}
	return sum / total
}

// Validate rejects unknown channels, negative or non-finite weights and an
// all-zero set.
func (w Weights) Validate() error {
	for _, k := range sortedKeys(w) {
		if _, ok := LookupChannel(k); !ok {
			return fmt.Errorf("%w: unknown channel %q in weights (%s)", ErrInvalid, k, channelNames())
		}
	}
	sum := 0.0
	for _, c := range channels() {
		v := w[c.Name]
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxWeight {
			return fmt.Errorf("%w: weight %v must be a number from 0 to %d", ErrInvalid, v, MaxWeight)
		}
		sum += v
	}
	if sum == 0 {
		return fmt.Errorf("%w: all channel weights are zero", ErrInvalid)
	}
	return nil
}

// ParseWeights reads weights as the command line takes them:
// "fts=0.5,jaccard=0.3,hrr=0.2" (channel names in any case).
func ParseWeights(s string) (Weights, error) {
	w := Weights{}
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("%w: %q is not channel=number", ErrInvalid, part)
		}
		c, err := ParseChannel(name)
		if err != nil {
			return nil, err
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not channel=number", ErrInvalid, part)
		}
		w[c] = v
	}
	return w, w.Validate()
}

// Explain lists the weights of every channel, "fts 0.55 jaccard 0.00 ...",
// with two decimals; occasional channels only when set unless all.
func (w Weights) Explain(all bool) string {
	return explain(w, " ", "%.2f", all)
}

// MarshalJSON writes the channels in the table's order (see [Weights]).
func (w Weights) MarshalJSON() ([]byte, error) { return marshalChannels(w) }

// UnmarshalJSON reads a JSON object of channel weights; a name that is no
// channel is an [ErrInvalid] error. Names match in any case, as the
// fields of a struct did.
func (w *Weights) UnmarshalJSON(b []byte) error {
	m, err := unmarshalChannels(b, true)
	if err != nil {
		return fmt.Errorf("weights: %w", err)
	}
	*w = m
	return nil
}

// Scores are one hit's per-channel scores, each 0..1; a channel missing
// from the map (or that did not run) scores 0. JSON has the shape of
// [Weights].
type Scores map[Channel]float64

// Explain lists the scores with three decimals, "fts 0.912  jaccard
// 0.250  hrr 0.431  semantic 0.000", occasional channels only when they
// scored.
func (s Scores) Explain() string { return explain(s, "  ", "%.3f", false) }

// MarshalJSON writes the channels in the table's order (see [Weights]).
func (s Scores) MarshalJSON() ([]byte, error) { return marshalChannels(s) }

// UnmarshalJSON reads a JSON object of channel scores. Unlike weights,
// unknown channels are kept: they are a newer server's answer.
func (s *Scores) UnmarshalJSON(b []byte) error {
	m, err := unmarshalChannels(b, false)
	if err != nil {
		return fmt.Errorf("scores: %w", err)
	}
	*s = Scores(m)
	return nil
}

func explain(m map[Channel]float64, sep, format string, all bool) string {
	var parts []string
	for _, c := range channels() {
		v := m[c.Name]
		if c.Occasional && !all && v <= 0 {
			continue
		}
		parts = append(parts, string(c.Name)+" "+fmt.Sprintf(format, v))
	}
	return strings.Join(parts, sep)
}

// marshalChannels writes m as a JSON object in the table's order: always
// the channels that run on every query, occasional ones when not 0. A
// channel that is not in the table (a scores map from a newer server)
// follows, by name.
func marshalChannels[M ~map[Channel]float64](m M) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	add := func(name Channel, v float64) error {
		num, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(string(name))
		b.Write(key)
		b.WriteByte(':')
		b.Write(num)
		return nil
	}
	table := channels()
	for _, c := range table {
		v := m[c.Name]
		if c.Occasional && v == 0 {
			continue
		}
		if err := add(c.Name, v); err != nil {
			return nil, err
		}
	}
	for _, k := range sortedKeys(m) {
		if v := m[k]; v != 0 && !slices.ContainsFunc(table, func(c ChannelSpec) bool { return c.Name == k }) {
			if err := add(k, v); err != nil {
				return nil, err
			}
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// unmarshalChannels reads a JSON object of numbers by channel. Known
// names match in any case; strict rejects the others.
func unmarshalChannels(b []byte, strict bool) (map[Channel]float64, error) {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil, nil
	}
	var raw map[string]float64
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%w: not an object of numbers by channel (%s)", ErrInvalid, channelNames())
	}
	out := make(map[Channel]float64, len(raw))
	for k, v := range raw {
		c, err := ParseChannel(k)
		if err != nil {
			if strict {
				return nil, err
			}
			c = Channel(k)
		}
		out[c] = v
	}
	return out, nil
}

func sortedKeys[M ~map[Channel]float64](m M) []Channel {
	keys := make([]Channel, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
