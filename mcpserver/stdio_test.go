package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// runGuard feeds input through guardLines and returns what it forwarded
// and what it replied.
func runGuard(t testing.TB, input string, maxLine int) (forwarded, replies []string) {
	pr, pw := io.Pipe()
	var reply bytes.Buffer
	done := make(chan struct{})
	go func() {
		guardLines(strings.NewReader(input), pw, &reply, maxLine, nil)
		close(done)
	}()
	sc := bufio.NewScanner(pr)
	sc.Buffer(nil, maxLine+2)
	for sc.Scan() {
		forwarded = append(forwarded, sc.Text())
	}
	<-done
	for _, l := range strings.Split(strings.TrimSuffix(reply.String(), "\n"), "\n") {
		if l != "" {
			replies = append(replies, l)
		}
	}
	return forwarded, replies
}

func TestGuardLines(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	tests := []struct {
		name        string
		input       string
		max         int
		wantForward []string
		wantCodes   []int64
	}{
		{"OK", ping + "\n", 1 << 10, []string{ping}, nil},
		{"NoFinalNewline", ping, 1 << 10, []string{ping}, nil},
		{"CRLFAndSpaces", "  " + ping + " \r\n\n\n", 1 << 10, []string{ping}, nil},
		{"Garbage", "hello\n" + ping + "\n", 1 << 10, []string{ping}, []int64{jsonrpc.CodeParseError}},
		{"Batch", "[" + ping + "]\n" + ping + "\n", 1 << 10, []string{ping}, []int64{jsonrpc.CodeInvalidRequest}},
		{"WrongVersion", `{"jsonrpc":"1.0","id":1,"method":"ping"}` + "\n" + ping, 1 << 10, []string{ping}, []int64{jsonrpc.CodeInvalidRequest}},
		{"TwoValues", ping + " " + ping + "\n", 1 << 10, nil, []int64{jsonrpc.CodeParseError}},
		{"TooLong", `{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("x", 200) + `"}` + "\n" + ping + "\n", 100, []string{ping}, []int64{jsonrpc.CodeInvalidRequest}},
		{"InvalidUTF8", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"remember\",\"arguments\":{\"content\":\"a \xff b\"}}}\n" + ping + "\n", 1 << 10, []string{ping}, []int64{jsonrpc.CodeParseError}},
		{"LoneSurrogate", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"remember","arguments":{"content":"a \ud800 b"}}}` + "\n" + ping + "\n", 1 << 10, []string{ping}, []int64{jsonrpc.CodeParseError}},
		{"IDWithoutMethod", `{"jsonrpc":"2.0","id":5}` + "\n" + ping + "\n", 1 << 10, []string{ping}, []int64{jsonrpc.CodeInvalidRequest}},
		{"Response", `{"jsonrpc":"2.0","id":5,"result":{}}` + "\n", 1 << 10, []string{`{"jsonrpc":"2.0","id":5,"result":{}}`}, nil},
		{"TooLongAcrossBuffers", strings.Repeat("y", 200<<10) + "\n" + ping + "\n", 1 << 10, []string{ping}, []int64{jsonrpc.CodeInvalidRequest}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fw, rs := runGuard(t, tc.input, tc.max)
			if strings.Join(fw, "|") != strings.Join(tc.wantForward, "|") {
				t.Errorf("forwarded %q, want %q", fw, tc.wantForward)
			}
			if len(rs) != len(tc.wantCodes) {
				t.Fatalf("replies %q, want %d", rs, len(tc.wantCodes))
			}
			for i, r := range rs {
				var m struct {
					JSONRPC string `json:"jsonrpc"`
					Error   struct {
						Code int64 `json:"code"`
					} `json:"error"`
				}
				if err := json.Unmarshal([]byte(r), &m); err != nil || m.JSONRPC != "2.0" || m.Error.Code != tc.wantCodes[i] {
					t.Errorf("reply %q: code %d (err %v), want %d", r, m.Error.Code, err, tc.wantCodes[i])
				}
			}
		})
	}
}

// FuzzGuardLines checks that whatever arrives, the guard forwards only
// lines the SDK decodes as one message, and answers every other non-blank
// line with valid JSON.
func FuzzGuardLines(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	f.Add(`{"jsonrpc":"2.0","id":"a","result":{}}` + "\n[1,2]\n{")
	f.Add("\x00\xff\n\n{\"jsonrpc\":\"2.0\"}")
	f.Add(`{"jsonrpc":"2.0","id":null,"method":"x","params":[1]}`)
	f.Fuzz(func(t *testing.T, input string) {
		fw, rs := runGuard(t, input, 4<<10)
		for _, l := range fw {
			if _, err := jsonrpc.DecodeMessage([]byte(l)); err != nil {
				t.Fatalf("forwarded %q: %v", l, err)
			}
			if strings.ContainsAny(l, "\n") {
				t.Fatalf("forwarded a multi-line message %q", l)
			}
		}
		for _, r := range rs {
			if !json.Valid([]byte(r)) {
				t.Fatalf("reply %q is not JSON", r)
			}
		}
	})
}
