package spm

import "math"

// unkPenalty is subtracted from the lowest piece score to score an unknown
// character (unigram_model.cc, kUnkPenalty).
const unkPenalty = 10.0

// bestPath is one cell of the Viterbi table: the best segmentation of the
// normalised text up to a byte offset ends with piece id starting at start.
// The score is a float32 as SentencePiece stores it; relax does the sums in
// double as SentencePiece does, so ties and near-ties resolve the same way.
type bestPath struct {
	score float32
	start int32
	id    int32
}

// oneCharLen is string_util::OneCharLen: the UTF-8 sequence length implied
// by a lead byte, without validation.
func oneCharLen(b byte) int {
	return int("\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x02\x02\x03\x04"[b>>4])
}

// viterbi segments normalised text the way unigram::Model::EncodeOptimized
// does and appends the piece ids to ids. best is scratch space reused
// across calls.
func (t *Tokenizer) viterbi(ids []int32, norm string, best []bestPath) ([]int32, []bestPath) {
	size := len(norm)
	if size == 0 {
		return ids, best
	}
	if cap(best) < size+1 {
		best = make([]bestPath, size+1)
	}
	best = best[:size+1]
	for i := range best {
		best[i] = bestPath{start: -1}
	}
	unkScore := t.minScore - unkPenalty
	nodes := t.pieces.nodes
	for start := 0; start < size; {
		here := best[start].score
		mblen := min(oneCharLen(norm[start]), size-start)
		single := false
		// Walk the vocabulary trie along norm[start:]; each key found is a
		// lattice edge. Written out rather than through trie.prefixes
		// because this loop is the hot path.
		n := int32(0)
		for i := start; len(nodes) > 0; {
			nd := &nodes[n]
			if nd.val >= 0 && i > start {
				single = t.relax(best, start, i, nd.val, here, mblen) || single
			}
			if nd.tail >= 0 {
				rest, v := t.pieces.tailOf(nd, i-start)
				if size-i >= len(rest) && norm[i:i+len(rest)] == rest {
					single = t.relax(best, start, i+len(rest), v, here, mblen) || single
				}
				break
			}
			if i == size {
				break
			}
			if n = t.pieces.child(n, norm[i]); n < 0 {
				break
			}
			i++
		}
		if !single {
			cell := &best[start+mblen]
			if c := unkScore + here; cell.start == -1 || c > cell.score {
				*cell = bestPath{score: c, start: int32(start), id: t.unkID}
			}
		}
		start += mblen
	}
	// Backtrack from the end, then reverse the appended ids.
	from := len(ids)
	for end := size; end > 0; {
		c := best[end]
		if c.start < 0 { // unreachable: every character has an edge
			break
		}
		if c.id == t.unkID && t.byteFallback {
			// Decompose the unknown piece into <0xXX> pieces, appended
			// backwards like everything else here.
			for i := end - 1; i >= int(c.start); i-- {
				ids = append(ids, t.byteIDs[norm[i]])
			}
		} else if c.id != t.unkID || len(ids) == from || ids[len(ids)-1] != t.unkID {
			// A run of unknown pieces becomes one <unk>, as
			// SentencePieceProcessor merges them.
			ids = append(ids, c.id)
		}
		end = int(c.start)
	}
	for i, j := from, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids, best
}

// relax offers piece id over norm[start:end] to the cell at end and
// reports whether the piece is exactly one character long.
func (t *Tokenizer) relax(best []bestPath, start, end int, id int32, here float32, mblen int) bool {
	p := &t.vocab[id]
	if p.typ == typeUnused {
		return false
	}
	length := end - start
	cell := &best[end]
	// EncodeOptimized computes the piece score as
	//   IsUserDefined ? length * max_score_ - 0.1 : GetScore(id)
	// and that conditional has type double, so the path score is summed
	// and compared in double and only rounded to float when stored. The
	// rounding decides near-ties, so it is reproduced exactly.
	var score float64
	if p.typ == typeUserDefined {
		score = float64(float32(length)*t.maxScore) - 0.1
	} else {
		score = float64(p.score)
	}
	if c := score + float64(here); cell.start == -1 || c > float64(cell.score) {
		*cell = bestPath{score: float32(c), start: int32(start), id: id}
	}
	return length == mblen
}

// scoreRange returns the lowest and highest score of normal pieces, with
// SentencePiece's starting values FLT_MAX and FLT_MIN (the smallest
// positive float, so an all-negative vocabulary gets max = FLT_MIN).
func scoreRange(vocab []vocabEntry) (lo, hi float32) {
	lo, hi = math.MaxFloat32, 0x1p-126 // FLT_MAX, FLT_MIN
	for i := range vocab {
		if vocab[i].typ == typeNormal {
			lo = min(lo, vocab[i].score)
			hi = max(hi, vocab[i].score)
		}
	}
	return lo, hi
}
