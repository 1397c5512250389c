package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/holomem/holomem/internal/leaf/jsontext"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// guardLines copies newline-delimited JSON-RPC messages from r to out, one
// trimmed message per line. A line that is not one JSON-RPC message (bad
// JSON, a batch, a missing "jsonrpc":"2.0", longer than maxLine bytes) is
// answered on reply with a JSON-RPC error and dropped. It closes out when r
// ends, and stops early when out's reader is closed.
//
// A request forwarded is counted in tr (when not nil), and at the end of
// r out is closed only once every counted request was answered (or tr
// is released): the SDK stops at the end of its input and would drop the
// answers of the requests it was still running.
func guardLines(r io.Reader, out *io.PipeWriter, reply io.Writer, maxLine int, tr *inflight) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		line = line[:0]
		tooLong := false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if !tooLong {
				if len(line)+len(chunk) > maxLine {
					tooLong = true
					line = line[:0]
				} else {
					line = append(line, chunk...)
				}
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		msg := bytes.TrimSpace(line)
		switch {
		case tooLong:
			writeRPCError(reply, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes", maxLine))
		case len(msg) == 0:
		default:
			if code, text := checkMessage(msg); code != 0 {
				writeRPCError(reply, messageID(msg), code, text)
				break
			}
			tr.sent(msg)
			if _, werr := out.Write(append(msg, '\n')); werr != nil {
				return // the session ended
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				tr.wait()
				out.Close()
			} else {
				out.CloseWithError(err)
			}
			return
		}
	}
}

// checkMessage reports whether msg is one JSON-RPC 2.0 message the SDK will
// accept, and if not the error code and text to answer with.
func checkMessage(msg []byte) (code int64, text string) {
	if !utf8.Valid(msg) {
		// encoding/json would store U+FFFD in place of the bad bytes.
		return jsonrpc.CodeParseError, "parse error: the line is not valid UTF-8"
	}
	if at, lone := jsontext.LoneSurrogate(msg); lone {
		// encoding/json would store U+FFFD for it too.
		return jsonrpc.CodeParseError, fmt.Sprintf("parse error: invalid \\u escape at byte %d: half of a UTF-16 surrogate pair is no character", at)
	}
	if !json.Valid(msg) {
		return jsonrpc.CodeParseError, "parse error: the line is not valid JSON"
	}
	if msg[0] == '[' {
		return jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message per line"
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &m) == nil && m.ID != nil && m.Method == nil && m.Result == nil && m.Error == nil {
		// The SDK would take it for a response to nothing and drop it,
		// leaving the client waiting.
		return jsonrpc.CodeInvalidRequest, "invalid request: a message with an id needs a method (a request), or a result or an error (a response)"
	}
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		return jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return 0, ""
}

// messageID returns the "id" of a rejected message when it has a usable
// one (a string or a number), so the client can match the error; else nil.
func messageID(msg []byte) any {
	var v struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(msg, &v) != nil {
		return nil
	}
	switch id := v.ID.(type) {
	case string, float64:
		return id
	}
	return nil
}

// writeRPCError writes one JSON-RPC error response line.
func writeRPCError(w io.Writer, id any, code int64, text string) {
	resp := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id}
	resp.Error.Code = code
	resp.Error.Message = text
	b, err := json.Marshal(resp)
	if err != nil {
		return // cannot happen: only strings and numbers
	}
	w.Write(append(b, '\n')) //nolint:errcheck // a failed reply only loses the reply
}

// inflight counts the requests forwarded to the SDK and not yet answered,
// by id, so the end of input can wait for their answers. A nil *inflight
// counts nothing.
type inflight struct {
	mu       sync.Mutex
	pending  map[string]int
	n        int
	idle     chan struct{} // closed while n == 0
	released bool
	partial  []byte // the start of an answer line not yet written whole
}

func newInflight() *inflight {
	tr := &inflight{pending: map[string]int{}, idle: make(chan struct{})}
	close(tr.idle)
	return tr
}

// rpcHeader is what inflight reads of a message.
type rpcHeader struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// idKey is a JSON-RPC id as a map key ("" for none): its JSON, compacted.
func idKey(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return ""
	}
	return b.String()
}

// sent counts a request (a message with a method and an id) forwarded;
// a cancellation notice uncounts the request it cancels, which the SDK
// need not answer.
func (tr *inflight) sent(msg []byte) {
	if tr == nil {
		return
	}
	var h rpcHeader
	if json.Unmarshal(msg, &h) != nil || h.Method == nil {
		return
	}
	if *h.Method == "notifications/cancelled" {
		tr.answered(idKey(h.Params.RequestID))
		return
	}
	k := idKey(h.ID)
	if k == "" {
		return // a notification: no answer comes
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.n == 0 && !tr.released {
		tr.idle = make(chan struct{})
	}
	tr.pending[k]++
	tr.n++
}

// answered uncounts one request of id k.
func (tr *inflight) answered(k string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if k == "" || tr.pending[k] == 0 {
		return
	}
	if tr.pending[k]--; tr.pending[k] == 0 {
		delete(tr.pending, k)
	}
	if tr.n--; tr.n == 0 && !tr.released {
		close(tr.idle)
	}
}

// wrote looks at what the server wrote (whole lines, possibly split over
// writes) and uncounts each request answered.
func (tr *inflight) wrote(p []byte) {
	if tr == nil {
		return
	}
	tr.mu.Lock()
	buf := append(tr.partial, p...)
	i := bytes.LastIndexByte(buf, '\n')
	var lines []byte
	if i >= 0 {
		lines, tr.partial = buf[:i], append([]byte(nil), buf[i+1:]...)
	} else {
		tr.partial = buf
	}
	tr.mu.Unlock()
	for _, line := range bytes.Split(lines, []byte{'\n'}) {
		var h rpcHeader
		if json.Unmarshal(line, &h) == nil && h.Method == nil {
			tr.answered(idKey(h.ID))
		}
	}
}

// wait blocks until every counted request was answered or tr is released.
func (tr *inflight) wait() {
	if tr == nil {
		return
	}
	tr.mu.Lock()
	idle := tr.idle
	tr.mu.Unlock()
	<-idle
}

// release ends every wait (the session is over: nothing more will be
// answered).
func (tr *inflight) release() {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if !tr.released {
		tr.released = true
		if tr.n > 0 {
			close(tr.idle)
		}
	}
}
