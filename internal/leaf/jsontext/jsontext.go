// Package jsontext finds what encoding/json would silently change in a
// JSON text before it is decoded.
package jsontext

// LoneSurrogate returns the byte offset of the first \u escape in a JSON
// string of b that is half of a UTF-16 surrogate pair without its other
// half ("\ud800" alone, or "\udc00" first), and true; -1, false when there
// is none. encoding/json decodes such an escape to U+FFFD without an
// error, so the text stored would differ from the text sent. b need not be
// valid JSON: the scan only follows strings and their escapes.
func LoneSurrogate(b []byte) (int, bool) {
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !in {
			if c == '"' {
				in = true
			}
			continue
		}
		switch c {
		case '"':
			in = false
		case '\\':
			if i+1 >= len(b) {
				return -1, false
			}
			if b[i+1] != 'u' {
				i++ // the escaped character
				continue
			}
			r, ok := hex4(b, i+2)
			if !ok {
				i++
				continue
			}
			switch {
			case r >= 0xD800 && r <= 0xDBFF:
				if i+11 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
					if lo, ok := hex4(b, i+8); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						i += 11 // both halves
						continue
					}
				}
				return i, true
			case r >= 0xDC00 && r <= 0xDFFF:
				return i, true
			}
			i += 5
		}
	}
	return -1, false
}

// hex4 reads four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}
