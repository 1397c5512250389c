package lexindex

import (
	"context"
	"encoding/binary"
	"iter"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Doc is one fact as the index holds it: its id, namespace, whether it is
// superseded, and its terms.
type Doc struct {
	ID         int64
	Namespace  string
	Superseded bool
	Terms      Terms
}

// Fact is a fact's text before its terms are derived: what [Index.Load]
// reads.
type Fact struct {
	ID         int64
	Namespace  string
	Superseded bool
	Content    string
	Tags       []string
}

// Scope bits of a slot (see Index.scope).
const (
	flagSuperseded = 1 << 0
	flagDeleted    = 1 << 1
	scopeShift     = 2
)

// tfOverflow marks a term count too large for a posting's byte; the count
// is then in Index.bigTF (a word 255 times in one fact is rare).
const tfOverflow = 1<<8 - 1

// Index is an in-memory inverted index of facts' stems: BM25 search over a
// namespace ([Index.Search]), document frequencies ([Index.Stats]) and
// write-time hygiene's similar-fact candidates ([Index.Similar]). It holds
// no text, only interned stems, postings and a table of documents.
//
// An Index is safe for concurrent use: searches run concurrently with each
// other; Put, Delete and Load take the write lock.
type Index struct {
	mu sync.RWMutex

	// vocab maps an interned stem to its term number.
	vocab map[string]uint32
	terms []term
	// sorted lists term numbers [0, len(sorted)) by stem, for prefix
	// expansion; terms numbered from len(sorted) on (new since the last
	// sort) are scanned linearly until there are sortTail of them.
	sorted []uint32

	// The document table, by slot. A Put appends a slot; a Delete or a
	// replacing Put tombstones the old one (flagDeleted) until compaction.
	ids []int64
	// scope is namespace number << scopeShift | flags.
	scope []uint32
	lens  []uint32
	// arena holds every slot's distinct term numbers, what a delete must
	// decrement: slot s's at arena[start[s]:start[s+1]] (or to the end for
	// the last slot), ascending, as uvarint deltas (two bytes a term
	// rather than four).
	arena []byte
	start []uint32
	tbuf  []uint32 // decoding buffer; write lock held

	bySlot map[int64]uint32 // live fact id -> slot
	// ordered says that the slots' ids increase, so the first slots
	// matching something are the oldest facts (see Similar).
	ordered bool

	nsNum   map[string]uint32
	nsNames []string
	nsStat  []nsStat

	live, dead int
	// compactMin is how many tombstones wait for compaction at least
	// (tests lower it).
	compactMin int
	// bigTF holds counts of tfOverflow and more, by term << 32 | slot.
	bigTF map[uint64]uint32
}

type term struct {
	stem string
	df   int32 // postings of slots not deleted, all namespaces
	// lists holds the postings per namespace, so a search in a small
	// namespace walks its own facts only.
	lists []plist
}

// plist is a term's postings in one namespace.
type plist struct {
	ns    uint32
	slots []uint32 // ascending
	tfs   []uint8  // count in that slot, tfOverflow: see bigTF
	// maxTF is at least the largest count in the postings (not lowered by
	// deletes): Search's bound on what the term can add to a score.
	maxTF uint32
}

// list returns the term's postings in namespace ns, or nil.
func (tm *term) list(ns uint32) *plist {
	for i := range tm.lists {
		if tm.lists[i].ns == ns {
			return &tm.lists[i]
		}
	}
	return nil
}

// nsStat is a namespace's number of live and superseded facts and their
// summed lengths (BM25's average document length).
type nsStat struct {
	live, sup       int64
	liveLen, supLen int64
}

// sortTail is how many unsorted new terms prefix expansion scans before
// the next write sorts them in.
const sortTail = 2048

// New returns an empty index.
func New() *Index {
	return &Index{
		vocab:      map[string]uint32{},
		bySlot:     map[int64]uint32{},
		nsNum:      map[string]uint32{},
		ordered:    true,
		compactMin: 1024,
	}
}

// Len returns the number of facts held (live and superseded).
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live
}

// Put inserts d, or replaces the fact with d's id.
func (x *Index) Put(d Doc) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.putLocked(&d, nil)
	x.maintainLocked()
}

// Delete removes the fact with id id and reports whether it was held.
func (x *Index) Delete(id int64) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	s, ok := x.bySlot[id]
	if !ok {
		return false
	}
	x.tombstoneLocked(s)
	delete(x.bySlot, id)
	x.maintainLocked()
	return true
}

// SetSuperseded marks the fact with id id superseded or live again, in
// place, and reports whether it was held: cheaper than a Put of the same
// terms, and it keeps slots in id order.
func (x *Index) SetSuperseded(id int64, superseded bool) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	s, ok := x.bySlot[id]
	if !ok {
		return false
	}
	x.setSupersededLocked(s, superseded)
	return true
}

func (x *Index) setSupersededLocked(s uint32, superseded bool) {
	sc := x.scope[s]
	if (sc&flagSuperseded != 0) == superseded {
		return
	}
	x.statLocked(s, -1)
	if superseded {
		x.scope[s] = sc | flagSuperseded
	} else {
		x.scope[s] = sc &^ flagSuperseded
	}
	x.statLocked(s, +1)
}

// statLocked adds (sign +1) or removes (-1) slot s's length from its
// namespace's figures.
func (x *Index) statLocked(s uint32, sign int64) {
	st := &x.nsStat[x.scope[s]>>scopeShift]
	if x.scope[s]&flagSuperseded != 0 {
		st.sup += sign
		st.supLen += sign * int64(x.lens[s])
	} else {
		st.live += sign
		st.liveLen += sign * int64(x.lens[s])
	}
}

// termsOfSlotLocked decodes slot s's term numbers into x.tbuf, ascending;
// the write lock must be held.
func (x *Index) termsOfSlotLocked(s uint32) []uint32 {
	x.tbuf = decodeTerms(x.tbuf[:0], x.arenaOf(s))
	return x.tbuf
}

func (x *Index) arenaOf(s uint32) []byte {
	end := uint32(len(x.arena))
	if int(s)+1 < len(x.start) {
		end = x.start[s+1]
	}
	return x.arena[x.start[s]:end]
}

// eachTermOfSlot calls fn with slot s's term numbers, ascending, without
// allocating; a read lock is enough.
func (x *Index) eachTermOfSlot(s uint32, fn func(t uint32)) {
	b := x.arenaOf(s)
	t := uint64(0)
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		b = b[n:]
		t += d
		fn(uint32(t))
	}
}

func decodeTerms(dst []uint32, b []byte) []uint32 {
	t := uint64(0)
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		b = b[n:]
		t += d
		dst = append(dst, uint32(t))
	}
	return dst
}

// appendTerms appends ts (ascending) to b as uvarint deltas.
func appendTerms(b []byte, ts []uint32) []byte {
	prev := uint32(0)
	for _, t := range ts {
		b = binary.AppendUvarint(b, uint64(t-prev))
		prev = t
	}
	return b
}

func (x *Index) tombstoneLocked(s uint32) {
	x.statLocked(s, -1)
	x.scope[s] |= flagDeleted
	for _, t := range x.termsOfSlotLocked(s) {
		x.terms[t].df--
	}
	x.live--
	x.dead++
}

// sameTermsLocked reports whether slot s holds exactly d's stems and
// length, so a Put of d can update s in place.
func (x *Index) sameTermsLocked(s uint32, d *Doc) bool {
	if x.lens[s] != uint32(d.Terms.Len) {
		return false
	}
	ts := x.termsOfSlotLocked(s)
	if len(ts) != len(d.Terms.Stems) {
		return false
	}
	for _, sc := range d.Terms.Stems {
		t, ok := x.vocab[sc.Stem]
		if !ok {
			return false
		}
		if _, ok := slices.BinarySearch(ts, t); !ok || x.tfLocked(t, s) != sc.Count {
			return false
		}
	}
	return true
}

// tfLocked returns term t's count in slot s (0 if absent).
func (x *Index) tfLocked(t, s uint32) int {
	pl := x.terms[t].list(x.scope[s] >> scopeShift)
	if pl == nil {
		return 0
	}
	i, ok := slices.BinarySearch(pl.slots, s)
	if !ok {
		return 0
	}
	return x.tf(t, s, pl.tfs[i])
}

func (x *Index) tf(t, s uint32, v uint8) int {
	if v == tfOverflow {
		return int(x.bigTF[uint64(t)<<32|uint64(s)])
	}
	return int(v)
}

func (x *Index) nsLocked(name string) uint32 {
	n, ok := x.nsNum[name]
	if !ok {
		n = uint32(len(x.nsNames))
		name = strings.Clone(name)
		x.nsNum[name] = n
		x.nsNames = append(x.nsNames, name)
		x.nsStat = append(x.nsStat, nsStat{})
	}
	return n
}

func (x *Index) putLocked(d *Doc, tr *translator) {
	ns := x.nsLocked(d.Namespace)
	if s, ok := x.bySlot[d.ID]; ok {
		if x.scope[s]>>scopeShift == ns && x.sameTermsLocked(s, d) {
			x.setSupersededLocked(s, d.Superseded)
			return
		}
		x.tombstoneLocked(s)
	}
	s := uint32(len(x.ids))
	if len(x.ids) > 0 && d.ID < x.maxIDLocked() {
		x.ordered = false
	}
	x.ids = append(x.ids, d.ID)
	sc := ns << scopeShift
	if d.Superseded {
		sc |= flagSuperseded
	}
	x.scope = append(x.scope, sc)
	x.lens = append(x.lens, uint32(d.Terms.Len))
	x.start = append(x.start, uint32(len(x.arena)))
	added := x.tbuf[:0]
	for i, st := range d.Terms.Stems {
		var t uint32
		if tr != nil {
			t = tr.termLocked(x, i, st.Stem)
		} else {
			t = x.termLocked(st.Stem)
		}
		tm := &x.terms[t]
		pl := tm.list(ns)
		if pl == nil {
			tm.lists = append(tm.lists, plist{ns: ns})
			pl = &tm.lists[len(tm.lists)-1]
		}
		if n := len(pl.slots); n > 0 && pl.slots[n-1] == s {
			// A caller's Terms with a stem twice: count it once, summed.
			x.addTFLocked(t, s, pl, n-1, st.Count)
			continue
		}
		pl.slots = append(pl.slots, s)
		pl.tfs = append(pl.tfs, 0)
		x.addTFLocked(t, s, pl, len(pl.tfs)-1, st.Count)
		tm.df++
		added = append(added, t)
	}
	slices.Sort(added)
	x.arena = appendTerms(x.arena, added)
	x.tbuf = added
	x.bySlot[d.ID] = s
	x.live++
	x.statLocked(s, +1)
}

// termLocked returns stem's term number, interning it if new.
func (x *Index) termLocked(stem string) uint32 {
	t, ok := x.vocab[stem]
	if !ok {
		t = uint32(len(x.terms))
		stem = strings.Clone(stem) // may be a substring of a fact's text
		x.vocab[stem] = t
		x.terms = append(x.terms, term{stem: stem})
	}
	return t
}

// translator maps one Stemmer's stem numbers to term numbers during Load,
// so most stems skip the vocabulary's string hashing (term numbers never
// change, so the map stays valid).
type translator struct {
	nums  []int32  // the stem numbers of the Doc being put, by stem
	table []uint32 // stem number -> 1 + term number, 0: not yet known
}

func (tr *translator) termLocked(x *Index, i int, stem string) uint32 {
	n := int(tr.nums[i])
	if n >= len(tr.table) {
		tr.table = append(tr.table, make([]uint32, n+1-len(tr.table)+1024)...)
	}
	if v := tr.table[n]; v != 0 {
		return v - 1
	}
	t := x.termLocked(stem)
	tr.table[n] = t + 1
	return t
}

func (x *Index) addTFLocked(t, s uint32, tm *plist, i, count int) {
	c := x.tf(t, s, tm.tfs[i]) + count
	tm.maxTF = max(tm.maxTF, uint32(c))
	if c >= tfOverflow {
		if x.bigTF == nil {
			x.bigTF = map[uint64]uint32{}
		}
		x.bigTF[uint64(t)<<32|uint64(s)] = uint32(c)
		tm.tfs[i] = tfOverflow
		return
	}
	tm.tfs[i] = uint8(c)
}

// maxIDLocked returns the id of the last slot: slots are appended, so
// while ordered it is the largest.
func (x *Index) maxIDLocked() int64 { return x.ids[len(x.ids)-1] }

// maintainLocked sorts new terms into the prefix order and compacts when
// tombstones are a third of the slots.
func (x *Index) maintainLocked() {
	if x.dead > x.compactMin && x.dead*3 > len(x.ids) {
		x.compactLocked()
	}
	if len(x.terms)-len(x.sorted) >= sortTail {
		x.sortTermsLocked()
	}
}

// sortTermsLocked brings x.sorted up to date.
func (x *Index) sortTermsLocked() {
	tail := make([]uint32, 0, len(x.terms)-len(x.sorted))
	for t := len(x.sorted); t < len(x.terms); t++ {
		tail = append(tail, uint32(t))
	}
	byStem := func(a, b uint32) int { return strings.Compare(x.terms[a].stem, x.terms[b].stem) }
	slices.SortFunc(tail, byStem)
	merged := make([]uint32, 0, len(x.terms))
	i, j := 0, 0
	for i < len(x.sorted) && j < len(tail) {
		if byStem(x.sorted[i], tail[j]) <= 0 {
			merged = append(merged, x.sorted[i])
			i++
		} else {
			merged = append(merged, tail[j])
			j++
		}
	}
	merged = append(merged, x.sorted[i:]...)
	x.sorted = append(merged, tail[j:]...)
}

// compactLocked drops tombstoned slots, renumbers the rest in id order
// (so Similar's oldest-first reads stop early again) and trims postings
// to their length.
func (x *Index) compactLocked() {
	keep := make([]uint32, 0, x.live)
	for s := range x.ids {
		if x.scope[s]&flagDeleted == 0 {
			keep = append(keep, uint32(s))
		}
	}
	slices.SortFunc(keep, func(a, b uint32) int {
		switch {
		case x.ids[a] < x.ids[b]:
			return -1
		case x.ids[a] > x.ids[b]:
			return 1
		}
		return 0
	})
	newSlot := make([]uint32, len(x.ids))
	const none = ^uint32(0)
	for i := range newSlot {
		newSlot[i] = none
	}
	for i, s := range keep {
		newSlot[s] = uint32(i)
	}
	ids := make([]int64, len(keep))
	scope := make([]uint32, len(keep))
	lens := make([]uint32, len(keep))
	start := make([]uint32, len(keep))
	arena := make([]byte, 0, len(x.arena))
	for i, s := range keep {
		ids[i], scope[i], lens[i] = x.ids[s], x.scope[s], x.lens[s]
		start[i] = uint32(len(arena))
		arena = append(arena, x.arenaOf(s)...)
		x.bySlot[ids[i]] = uint32(i)
	}
	var big map[uint64]uint32
	for t := range x.terms {
		lists := x.terms[t].lists[:0]
		for _, tm := range x.terms[t].lists {
			slots := make([]uint32, 0, len(tm.slots))
			tfs := make([]uint8, 0, len(tm.tfs))
			maxTF := uint32(0)
			for i, s := range tm.slots {
				ns := newSlot[s]
				if ns == none {
					continue
				}
				if tm.tfs[i] == tfOverflow {
					if big == nil {
						big = map[uint64]uint32{}
					}
					big[uint64(t)<<32|uint64(ns)] = x.bigTF[uint64(t)<<32|uint64(s)]
				}
				slots = append(slots, ns)
				tfs = append(tfs, tm.tfs[i])
				maxTF = max(maxTF, uint32(x.tf(uint32(t), s, tm.tfs[i])))
			}
			tm.maxTF = maxTF
			// Renumbering by id can reorder slots: postings stay ascending.
			if !x.ordered {
				sortPostings(slots, tfs)
			}
			if len(slots) > 0 {
				tm.slots, tm.tfs = slots, tfs
				lists = append(lists, tm)
			}
		}
		x.terms[t].lists = slices.Clip(lists)
	}
	x.ids, x.scope, x.lens, x.start, x.arena = ids, scope, lens, start, slices.Clip(arena)
	x.bigTF = big
	x.dead = 0
	x.ordered = true
}

// sortPostings sorts slots ascending, keeping each tf with its slot.
func sortPostings(slots []uint32, tfs []uint8) {
	type p struct {
		s  uint32
		tf uint8
	}
	ps := make([]p, len(slots))
	for i := range slots {
		ps[i] = p{slots[i], tfs[i]}
	}
	slices.SortFunc(ps, func(a, b p) int {
		switch {
		case a.s < b.s:
			return -1
		case a.s > b.s:
			return 1
		}
		return 0
	})
	for i := range ps {
		slots[i], tfs[i] = ps[i].s, ps[i].tf
	}
}

// loadBatch is how many facts Load derives before inserting them under
// one hold of the write lock.
const loadBatch = 1024

// loadedDoc is a Doc derived by one of Load's workers, with its stems'
// numbers in that worker's Stemmer.
type loadedDoc struct {
	doc    Doc
	nums   []int32
	worker int
}

// Load adds every fact of facts (a later fact of the same id replaces an
// earlier one), deriving terms on workers goroutines (<= 0: GOMAXPROCS),
// each with its own [Stemmer], while the previous batch is inserted, and
// compacts at the end. Searches run between batches. It returns ctx's
// error if ctx ends first, with the facts read so far inserted.
func (x *Index) Load(ctx context.Context, facts iter.Seq[Fact], workers int) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	stemmers := make([]Stemmer, workers)
	trs := make([]translator, workers) // used by the inserter only
	batches := make(chan []loadedDoc, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for docs := range batches {
			x.mu.Lock()
			for i := range docs {
				tr := &trs[docs[i].worker]
				tr.nums = docs[i].nums
				x.putLocked(&docs[i].doc, tr)
			}
			x.maintainLocked()
			x.mu.Unlock()
		}
	}()
	batch := make([]Fact, 0, loadBatch)
	derive := func() {
		n := len(batch)
		docs := make([]loadedDoc, n)
		w := min(workers, max(1, n/64))
		var wg sync.WaitGroup
		for i := range w {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := i; j < n; j += w {
					f := &batch[j]
					t, nums := stemmers[i].termsNums(f.Content, f.Tags, true)
					docs[j] = loadedDoc{doc: Doc{ID: f.ID, Namespace: f.Namespace, Superseded: f.Superseded, Terms: t}, nums: nums, worker: i}
				}
			}()
		}
		wg.Wait()
		batches <- docs
		batch = make([]Fact, 0, loadBatch) // the inserter may still read docs, not batch
	}
	var err error
	for f := range facts {
		if err = ctx.Err(); err != nil {
			break
		}
		batch = append(batch, f)
		if len(batch) == loadBatch {
			derive()
		}
	}
	if err == nil && len(batch) > 0 {
		derive()
	}
	close(batches)
	<-done
	x.mu.Lock()
	x.compactLocked()
	x.sortTermsLocked()
	x.mu.Unlock()
	if err != nil {
		return err
	}
	return ctx.Err()
}

// Bytes estimates the memory the index holds, in bytes (capacities of its
// slices and strings, plus an estimate of map overhead).
func (x *Index) Bytes() int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	const mapEntry = 48 // key/value plus bucket overhead, roughly
	n := int64(0)
	for i := range x.terms {
		tm := &x.terms[i]
		n += int64(len(tm.stem)) + int64(cap(tm.lists))*64
		for _, pl := range tm.lists {
			n += int64(cap(pl.slots))*4 + int64(cap(pl.tfs))
		}
	}
	n += int64(cap(x.terms)) * 48 // term header: string, df, slice
	n += int64(len(x.vocab)) * (mapEntry + 4)
	n += int64(cap(x.sorted)) * 4
	n += int64(cap(x.ids))*8 + int64(cap(x.scope))*4 + int64(cap(x.lens))*4 + int64(cap(x.start))*4
	n += int64(cap(x.arena))
	n += int64(len(x.bySlot)) * (mapEntry + 12)
	n += int64(len(x.bigTF)) * (mapEntry + 12)
	for _, s := range x.nsNames {
		n += int64(len(s)) + 16 + mapEntry + 48
	}
	return n
}
