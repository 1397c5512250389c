package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// guardLines copies newline-delimited JSON-RPC messages from r to out, one
// trimmed message per line. A line that is not one JSON-RPC message (bad
// JSON, a batch, a missing "jsonrpc":"2.0", longer than maxLine bytes) is
// answered on reply with a JSON-RPC error and dropped. It closes out when r
// ends, and stops early when out's reader is closed.
func guardLines(r io.Reader, out *io.PipeWriter, reply io.Writer, maxLine int) {
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
			if _, werr := out.Write(append(msg, '\n')); werr != nil {
				return // the session ended
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
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
	if !json.Valid(msg) {
		return jsonrpc.CodeParseError, "parse error: the line is not valid JSON"
	}
	if msg[0] == '[' {
		return jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message per line"
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
