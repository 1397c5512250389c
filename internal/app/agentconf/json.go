package agentconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// object is a JSON object that keeps its members' order and their values
// as written, so that a merge changes only what it sets: other servers,
// hooks and keys holomem knows nothing of come back as they were.
type object []member

type member struct {
	key string
	val json.RawMessage
}

// errNotObject says that a value that must be an object is not.
var errNotObject = errors.New("not a JSON object")

// parseObject parses b, which must hold exactly one JSON object. Empty or
// blank input is an empty object (a file created empty).
func parseObject(b []byte) (object, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return object{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		o = append(o, member{key, raw})
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return o, nil
}

// get returns the value of key and whether it is there.
func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

// set replaces key's value where it stands, or appends it.
func (o *object) set(key string, val json.RawMessage) {
	for i, m := range *o {
		if m.key == key {
			(*o)[i].val = val
			return
		}
	}
	*o = append(*o, member{key, val})
}

// child returns key's value as an object: an empty one when key is absent
// or null, an error when it is something else.
func (o object) child(key string) (object, error) {
	raw, ok := o.get(key)
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return object{}, nil
	}
	c, err := parseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is %w", key, errNotObject)
	}
	return c, nil
}

// marshal encodes o compactly, members in order, values as they were.
func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonString(m.key))
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsonString encodes s as a JSON string, without HTML escaping (a
// config file is no web page).
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) //nolint:errcheck // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// jsonValue encodes v (strings, string slices, objects) without HTML
// escaping.
func jsonValue(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("agentconf: encode %T: %v", v, err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// render returns the file holding root: indented with two spaces (as
// Claude Code, Cursor and VS Code write these files), ending in a newline.
// When root differs from old only in white space, old is returned as it
// was, so a run that changes nothing rewrites nothing.
func render(old []byte, root object) ([]byte, error) {
	var compactNew, compactOld bytes.Buffer
	if err := json.Compact(&compactNew, root.marshal()); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(old)) > 0 && json.Compact(&compactOld, old) == nil && bytes.Equal(compactOld.Bytes(), compactNew.Bytes()) {
		return old, nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compactNew.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
