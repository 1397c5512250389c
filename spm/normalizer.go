package spm

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

// spaceSymbol is U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's visible space.
const spaceSymbol = "\u2581"

// maxCharsmapResults is how many prefix matches SentencePiece's normalizer
// looks at (Normalizer::kMaxTrieResultsSize); the longest of them wins.
const maxCharsmapResults = 32

// normalizer is SentencePiece's Normalizer: a precompiled character map
// (rules such as nmt_nfkc) applied by longest match, then whitespace
// handling. It is immutable and safe for concurrent use.
type normalizer struct {
	// units is the Darts-clone double array of the charsmap; nil means
	// the identity map. Each leaf value is an offset into repl.
	units []uint32
	// repl holds NUL-terminated replacement strings.
	repl string
	// user matches user-defined pieces, which bypass normalisation.
	user *trie

	addDummyPrefix  bool
	removeExtraWS   bool
	escapeWS        bool
	treatWSAsSuffix bool
}

// setCharsmap decodes a precompiled charsmap blob:
// <uint32 little-endian trie size><double-array units><replacement strings>.
func (n *normalizer) setCharsmap(blob string) error {
	if blob == "" {
		return nil
	}
	if len(blob) <= 4 {
		return corruptf("precompiled charsmap of %d bytes", len(blob))
	}
	size := binary.LittleEndian.Uint32([]byte(blob[:4]))
	body := blob[4:]
	if uint64(size) > uint64(len(body)) {
		return corruptf("charsmap trie size %d exceeds the %d bytes after it", size, len(body))
	}
	trie := body[:size]
	if len(trie) < 4 {
		return corruptf("charsmap trie of %d bytes", len(trie))
	}
	n.units = make([]uint32, len(trie)/4)
	for i := range n.units {
		n.units[i] = binary.LittleEndian.Uint32([]byte(trie[4*i : 4*i+4]))
	}
	n.repl = strings.Clone(body[size:]) // do not pin the whole model file
	return nil
}

// Darts-clone unit layout (darts.h, DoubleArrayUnit).
func unitHasLeaf(u uint32) bool  { return u>>8&1 == 1 }
func unitValue(u uint32) uint32  { return u & (1<<31 - 1) }
func unitLabel(u uint32) uint32  { return u & (1<<31 | 0xff) }
func unitOffset(u uint32) uint32 { return (u >> 10) << ((u & (1 << 9)) >> 6) }

// charsmapMatch is Darts' commonPrefixSearch keeping the longest of the
// first maxCharsmapResults matches. It returns the match length (0 if none)
// and the replacement. Out-of-range data from a corrupt map ends the search
// instead of reading outside the arrays.
func (n *normalizer) charsmapMatch(s string) (int, string) {
	units := n.units
	pos := unitOffset(units[0])
	length, value := 0, uint32(0)
	found := 0
	for i := 0; i < len(s); i++ {
		pos ^= uint32(s[i])
		if pos >= uint32(len(units)) {
			break
		}
		u := units[pos]
		if unitLabel(u) != uint32(s[i]) {
			break
		}
		pos ^= unitOffset(u)
		if unitHasLeaf(u) {
			if pos >= uint32(len(units)) {
				break
			}
			if found < maxCharsmapResults {
				length, value = i+1, unitValue(units[pos])
			}
			found++
		}
	}
	if length == 0 || value >= uint32(len(n.repl)) {
		return 0, ""
	}
	r := n.repl[value:]
	if end := strings.IndexByte(r, 0); end >= 0 {
		r = r[:end]
	}
	return length, r
}

// prefix is Normalizer::NormalizePrefix: the normalised form of the start of
// s and how many bytes of s it consumes (always at least 1 for non-empty s).
func (n *normalizer) prefix(s string) (string, int) {
	if n.user != nil {
		if l := n.user.longest(s); l > 0 {
			return s[:l], l
		}
	}
	if n.units != nil {
		if l, r := n.charsmapMatch(s); l > 0 {
			return r, l
		}
	}
	// No rule: copy one character. A malformed byte becomes U+FFFD and
	// consumes one byte, exactly as string_util::IsValidDecodeUTF8 decides.
	r, l := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && l <= 1 {
		return "\uFFFD", 1
	}
	return s[:l], l
}

// normalize appends the normalised form of s to dst (SentencePiece's
// Normalizer::Normalize without the alignment).
func (n *normalizer) normalize(dst []byte, s string) []byte {
	if s == "" {
		return dst
	}
	if n.removeExtraWS {
		for s != "" {
			r, l := n.prefix(s)
			if r != " " {
				break
			}
			s = s[l:]
		}
	}
	if s == "" {
		return dst
	}
	start := len(dst)
	addWS := func() {
		if n.escapeWS {
			dst = append(dst, spaceSymbol...)
		} else {
			dst = append(dst, ' ')
		}
	}
	if !n.treatWSAsSuffix && n.addDummyPrefix {
		addWS()
	}
	prevSpace := n.removeExtraWS
	for s != "" {
		r, l := n.prefix(s)
		if prevSpace {
			for strings.HasPrefix(r, " ") {
				r = r[1:]
			}
		}
		if r != "" {
			for i := 0; i < len(r); i++ {
				if n.escapeWS && r[i] == ' ' {
					dst = append(dst, spaceSymbol...)
				} else {
					dst = append(dst, r[i])
				}
			}
			prevSpace = r[len(r)-1] == ' '
		}
		s = s[l:]
		if !n.removeExtraWS {
			prevSpace = false
		}
	}
	if n.removeExtraWS {
		space := " "
		if n.escapeWS {
			space = spaceSymbol
		}
		for len(dst)-start >= len(space) && string(dst[len(dst)-len(space):]) == space {
			dst = dst[:len(dst)-len(space)]
		}
	}
	if n.treatWSAsSuffix && n.addDummyPrefix {
		addWS()
	}
	return dst
}
