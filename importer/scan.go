package importer

import "bytes"

// jsonValues splits data into top-level JSON values for a tolerant import:
// a JSON array yields its elements, concatenated arrays (gh api --paginate)
// and JSON lines yield theirs in turn, and a top-level object is one value.
// Values are found by bracket matching only (strings and escapes
// respected), so one malformed element does not lose the rest: decoding
// each value is the caller's job. Garbage between values is reported and
// skipped to the next line. fn gets each value and its 1-based line.
func jsonValues(data []byte, fn func(v []byte, line int) error, bad func(line int, reason string)) error {
	s := &scanner{data: data, line: 1}
	for {
		s.skipSpace()
		if s.i >= len(s.data) {
			return nil
		}
		switch s.data[s.i] {
		case '[':
			s.i++
			for {
				s.skipSpace()
				for s.i < len(s.data) && s.data[s.i] == ',' {
					s.i++
					s.skipSpace()
				}
				if s.i >= len(s.data) {
					bad(s.line, "truncated JSON: the array never ends")
					return nil
				}
				if s.data[s.i] == ']' {
					s.i++
					break
				}
				if err := s.value(fn, bad); err != nil {
					return err
				}
				if s.done {
					return nil
				}
			}
		case '{':
			if err := s.value(fn, bad); err != nil {
				return err
			}
			if s.done {
				return nil
			}
		default:
			bad(s.line, "not a JSON object or array")
			s.skipLine()
		}
	}
}

type scanner struct {
	data []byte
	i    int
	line int
	done bool // input ended inside a value
}

func (s *scanner) skipSpace() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '\n':
			s.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		s.i++
	}
}

func (s *scanner) skipLine() {
	if j := bytes.IndexByte(s.data[s.i:], '\n'); j >= 0 {
		s.i += j
		return
	}
	s.i = len(s.data)
}

// value reads one value starting at s.i and hands objects to fn; scalars
// inside an array are reported as not being objects.
func (s *scanner) value(fn func([]byte, int) error, bad func(int, string)) error {
	start, line := s.i, s.line
	if c := s.data[s.i]; c != '{' && c != '[' {
		for s.i < len(s.data) && !bytes.ContainsRune([]byte(",]}\n \t\r"), rune(s.data[s.i])) {
			s.i++
		}
		if s.i == start {
			s.i++ // a stray '}'
		}
		bad(line, "array element is not a JSON object")
		return nil
	}
	depth, inStr := 0, false
	for ; s.i < len(s.data); s.i++ {
		c := s.data[s.i]
		if c == '\n' {
			s.line++
		}
		if inStr {
			switch c {
			case '\\':
				s.i++
				if s.i < len(s.data) && s.data[s.i] == '\n' {
					s.line++
				}
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				if s.data[start] != '{' {
					bad(line, "array element is not a JSON object")
					return nil
				}
				return fn(s.data[start:s.i], line)
			}
		}
	}
	bad(line, "truncated JSON: the value never ends")
	s.done = true
	return nil
}
