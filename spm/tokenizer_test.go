package spm_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/spm"
)

func TestLoad(t *testing.T) {
	model, err := os.ReadFile("testdata/fixture.model")
	if err != nil {
		t.Fatal(err)
	}
	js, err := spm.ConvertToTokenizerJSON(model)
	if err != nil {
		t.Fatal(err)
	}
	const text = "Holographic memory for agents, память агента, 記憶。"
	fromModel, _ := fixtures(t)
	want, err := fromModel.EncodeForModel(text, 128)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("OK", func(t *testing.T) {
		for _, c := range []struct {
			name  string
			files map[string][]byte
		}{
			{"ModelOnly", map[string][]byte{spm.ModelProtoFile: model}},
			{"JSONOnly", map[string][]byte{spm.TokenizerJSONFile: js}},
			{"Both", map[string][]byte{spm.ModelProtoFile: model, spm.TokenizerJSONFile: js}},
		} {
			t.Run(c.name, func(t *testing.T) {
				dir := t.TempDir()
				for name, data := range c.files {
					if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				tok, err := spm.Load(dir)
				if err != nil {
					t.Fatal(err)
				}
				got, err := tok.EncodeForModel(text, 128)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
		}
	})

	t.Run("PrefersJSON", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, spm.ModelProtoFile), model, 0o644)
		os.WriteFile(filepath.Join(dir, spm.TokenizerJSONFile), []byte("{"), 0o644)
		if _, err := spm.Load(dir); !errors.Is(err, holomem.ErrInvalid) {
			t.Fatalf("err = %v, want the broken tokenizer.json reported as ErrInvalid", err)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := spm.Load(t.TempDir()); !errors.Is(err, holomem.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	})
}

func TestFromModelProto_ErrInvalid(t *testing.T) {
	model, err := os.ReadFile("testdata/custom.model")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"Empty", nil},
		{"Garbage", []byte("not a model at all")},
		{"Truncated", model[:len(model)/2]},
		{"TruncatedVarint", []byte{0x0a, 0x80}},
		{"HugeLength", []byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"WireTypeGroup", []byte{0x0b}},
		{"FieldZero", []byte{0x00}},
		{"NoUnknownPiece", []byte{0x0a, 0x03, 0x0a, 0x01, 'a'}},
		{"EmptyPiece", []byte{0x0a, 0x02, 0x18, 0x02}},
		{"BadPieceType", []byte{0x0a, 0x05, 0x0a, 0x01, 'a', 0x18, 0x09}},
		{"BPE", []byte{0x0a, 0x05, 0x0a, 0x01, 'a', 0x18, 0x02, 0x12, 0x02, 0x18, 0x02}},
		{"BadCharsmap", []byte{0x0a, 0x05, 0x0a, 0x01, 'a', 0x18, 0x02, 0x1a, 0x07, 0x12, 0x05, 0xff, 0xff, 0, 0, 1}},
		{"DuplicatePiece", []byte{0x0a, 0x05, 0x0a, 0x01, 'a', 0x18, 0x02, 0x0a, 0x03, 0x0a, 0x01, 'b', 0x0a, 0x03, 0x0a, 0x01, 'b'}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := spm.FromModelProto(c.data); !errors.Is(err, holomem.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
	// Every truncation of a real model either fails cleanly or loads.
	for n := 0; n < len(model); n += 97 {
		if tok, err := spm.FromModelProto(model[:n]); err == nil {
			tok.Encode("still works")
		}
	}
}

func TestFromTokenizerJSON_ErrInvalid(t *testing.T) {
	for _, c := range []struct{ name, json string }{
		{"NotJSON", "{"},
		{"BPE", `{"model":{"type":"BPE","vocab":{}}}`},
		{"NoUnk", `{"model":{"type":"Unigram","vocab":[["a",-1]]}}`},
		{"UnkOutOfRange", `{"model":{"type":"Unigram","unk_id":5,"vocab":[["a",-1]]}}`},
		{"EmptyVocab", `{"model":{"type":"Unigram","unk_id":0,"vocab":[]}}`},
		{"BadEntry", `{"model":{"type":"Unigram","unk_id":0,"vocab":[["a"]]}}`},
		{"BadScore", `{"model":{"type":"Unigram","unk_id":0,"vocab":[["a","x"]]}}`},
		{"DuplicatePiece", `{"model":{"type":"Unigram","unk_id":0,"vocab":[["u",0],["a",-1],["a",-2]]}}`},
		{"UnsupportedNormalizer", `{"normalizer":{"type":"Lowercase"},"model":{"type":"Unigram","unk_id":0,"vocab":[["u",0],["a",-1]]}}`},
		{"BadCharsmap", `{"normalizer":{"type":"Precompiled","precompiled_charsmap":"!!"},"model":{"type":"Unigram","unk_id":0,"vocab":[["u",0],["a",-1]]}}`},
		{"OtherMetaspace", `{"pre_tokenizer":{"type":"Metaspace","replacement":"_"},"model":{"type":"Unigram","unk_id":0,"vocab":[["u",0],["a",-1]]}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := spm.FromTokenizerJSON([]byte(c.json)); !errors.Is(err, holomem.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

// TestFromTokenizerJSON_Roberta reads the shape of the tokenizer.json that
// ships with paraphrase-multilingual-MiniLM-L12-v2: older Metaspace fields,
// RobertaProcessing, escaped pieces.
func TestFromTokenizerJSON_Roberta(t *testing.T) {
	const js = `{"version":"1.0","added_tokens":[
	{"id":0,"content":"<s>","special":true},{"id":1,"content":"<pad>","special":true},
	{"id":2,"content":"</s>","special":true},{"id":3,"content":"<unk>","special":true},
	{"id":9,"content":"<mask>","special":true}],
	"normalizer":{"type":"Sequence","normalizers":[{"type":"Precompiled","precompiled_charsmap":null},
	  {"type":"Replace","pattern":{"Regex":" {2,}"},"content":" "}]},
	"pre_tokenizer":{"type":"Metaspace","replacement":"\u2581","add_prefix_space":true},
	"post_processor":{"type":"RobertaProcessing","sep":["</s>",2],"cls":["<s>",0],"trim_offsets":true,"add_prefix_space":true},
	"model":{"type":"Unigram","unk_id":3,"vocab":[["<s>",0.0],["<pad>",0.0],["</s>",0.0],["<unk>",0.0],
	  ["\u2581",-2.5],["\u2581a",-3.0],["b",-4.0],["\u2581ab",-5.5],["\"q\"",-6],["<mask>",0.0]],"byte_fallback":false},
	"padding":null}`
	tok, err := spm.FromTokenizerJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		want []int32
	}{
		{"", []int32{0, 2}},
		{"   ", []int32{0, 2}},
		{"ab", []int32{0, 7, 2}},             // ▁ab (-5.5) beats ▁a b (-7)
		{"  a   b ", []int32{0, 5, 4, 6, 2}}, // spaces collapse; trailing one goes
		{`"q"`, []int32{0, 4, 8, 2}},
		{"<s>", []int32{0, 4, 3, 2}}, // special tokens are not read from text
		{"zz", []int32{0, 4, 3, 2}},  // a run of unknown characters is one <unk>
	} {
		got, err := tok.EncodeForModel(c.text, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("EncodeForModel(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if got, want := tok.VocabSize(), 10; got != want {
		t.Errorf("VocabSize = %d, want %d", got, want)
	}
	if tok.BOSID() != 0 || tok.EOSID() != 2 || tok.PadID() != 1 {
		t.Errorf("BOS, EOS, pad = %d, %d, %d, want 0, 2, 1", tok.BOSID(), tok.EOSID(), tok.PadID())
	}
}

func TestTokenizer_EncodeForModel(t *testing.T) {
	tok, _ := fixtures(t)
	long := strings.Repeat("memory graph vector ", 100)
	full, err := tok.EncodeForModel(long, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, maxLen := range []int{2, 3, 10, 128, len(full) - 1, len(full), len(full) + 5} {
		got, err := tok.EncodeForModel(long, maxLen)
		if err != nil {
			t.Fatal(err)
		}
		n := min(maxLen, len(full))
		if len(got) != n || got[0] != tok.BOSID() || got[n-1] != tok.EOSID() {
			t.Fatalf("maxLen %d: got %d ids starting %d ending %d", maxLen, len(got), got[0], got[len(got)-1])
		}
		if !slices.Equal(got[:n-1], full[:n-1]) {
			t.Fatalf("maxLen %d: not a prefix of the full encoding", maxLen)
		}
	}
	if _, err := tok.EncodeForModel("x", 1); !errors.Is(err, holomem.ErrInvalid) {
		t.Fatalf("maxLen 1: err = %v, want ErrInvalid", err)
	}
	if got, _ := tok.EncodeForModel("", 128); !slices.Equal(got, []int32{0, 2}) {
		t.Fatalf("empty text: %v", got)
	}
	for _, id := range full {
		if id < 0 || int(id) >= tok.VocabSize() {
			t.Fatalf("id %d outside vocabulary of %d", id, tok.VocabSize())
		}
	}
}

func TestTokenizer_Pad(t *testing.T) {
	tok, _ := fixtures(t)
	ids, mask := tok.Pad([][]int32{{0, 5, 2}, {0, 2}, {}})
	wantIDs := [][]int32{{0, 5, 2}, {0, 2, 1}, {1, 1, 1}}
	wantMask := [][]int32{{1, 1, 1}, {1, 1, 0}, {0, 0, 0}}
	for i := range ids {
		if !slices.Equal(ids[i], wantIDs[i]) || !slices.Equal(mask[i], wantMask[i]) {
			t.Errorf("row %d: ids %v mask %v, want %v %v", i, ids[i], mask[i], wantIDs[i], wantMask[i])
		}
	}
}

// TestTokenizer_Concurrent runs encodes from several goroutines; run it with
// -race. Results must match the sequential ones.
func TestTokenizer_Concurrent(t *testing.T) {
	tok, _ := fixtures(t)
	sentences := readLines(t, "sentences.txt")[:400]
	want := make([][]int, len(sentences))
	for i, s := range sentences {
		want[i] = tok.Encode(s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(sentences); i += 2 {
				if got := tok.Encode(sentences[i]); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("sentence %d differs", i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestTokenizer_BadInput(t *testing.T) {
	tok, fromJSON := fixtures(t)
	for _, s := range []string{"\x00", "\xff\xfe", "\x1b[2J", "\u202e\u202d", strings.Repeat("\u0301", 1000),
		strings.Repeat("\xf0", 100), "\ufeff", strings.Repeat(" ", 10000), "\U0010ffff"} {
		for _, tk := range []*spm.Tokenizer{tok, fromJSON} {
			ids, err := tk.EncodeForModel(s, 128)
			if err != nil || len(ids) < 2 || len(ids) > 128 {
				t.Errorf("%q: %v %v", s, ids, err)
			}
		}
	}
}

func ExampleTokenizer_EncodeForModel() {
	data, err := os.ReadFile("testdata/fixture.model")
	if err != nil {
		fmt.Println(err)
		return
	}
	tok, err := spm.FromModelProto(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	ids, err := tok.EncodeForModel("Hello world", 128)
	fmt.Println(len(ids) >= 3, ids[0] == tok.BOSID(), ids[len(ids)-1] == tok.EOSID(), err)
	// Output: true true true <nil>
}

func TestTokenizer_EncodeBatchForModel(t *testing.T) {
	tok, _ := fixtures(t)
	texts := []string{"short", "a somewhat longer sentence about memory", ""}
	ids, mask, err := tok.EncodeBatchForModel(texts, 8)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		one, err := tok.EncodeForModel(text, 8)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids[i]) != len(ids[0]) || len(mask[i]) != len(ids[i]) {
			t.Fatalf("row %d: ragged batch", i)
		}
		if !slices.Equal(ids[i][:len(one)], one) {
			t.Fatalf("row %d: %v, want prefix %v", i, ids[i], one)
		}
		for j := range ids[i] {
			real := j < len(one)
			if (mask[i][j] == 1) != real || !real && (mask[i][j] != 0 || ids[i][j] != tok.PadID()) {
				t.Fatalf("row %d: ids %v mask %v", i, ids[i], mask[i])
			}
		}
	}
	if _, _, err := tok.EncodeBatchForModel(texts, 1); !errors.Is(err, holomem.ErrInvalid) {
		t.Fatalf("maxLen 1: err = %v", err)
	}
}

// TestFromTokenizerJSON_NoAddedTokens: the post-processor's <s> and </s>
// stay special even when added_tokens is missing.
func TestFromTokenizerJSON_NoAddedTokens(t *testing.T) {
	const js = `{"pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always"},
	"post_processor":{"type":"RobertaProcessing","sep":["</s>",2],"cls":["<s>",0]},
	"model":{"type":"Unigram","unk_id":3,"vocab":[["<s>",0.0],["<pad>",0.0],["</s>",0.0],["<unk>",0.0],
	  ["▁",-2.5],["<",-3],["s",-3],[">",-3],["/",-3]]}}`
	tok, err := spm.FromTokenizerJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	got, err := tok.EncodeForModel("<s></s>", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{0, 4, 5, 6, 7, 5, 8, 6, 7, 2}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestTokenizer_KeepsNoInput: the constructors read their input in place,
// so a Tokenizer must not depend on it afterwards.
func TestTokenizer_KeepsNoInput(t *testing.T) {
	model, err := os.ReadFile("testdata/fixture.model")
	if err != nil {
		t.Fatal(err)
	}
	js, err := spm.ConvertToTokenizerJSON(model)
	if err != nil {
		t.Fatal(err)
	}
	sentences := readLines(t, "sentences.txt")[:300]
	for _, c := range []struct {
		name string
		data []byte
		load func([]byte) (*spm.Tokenizer, error)
	}{
		{"ModelProto", model, spm.FromModelProto},
		{"TokenizerJSON", js, spm.FromTokenizerJSON},
	} {
		t.Run(c.name, func(t *testing.T) {
			tok, err := c.load(c.data)
			if err != nil {
				t.Fatal(err)
			}
			var want [][]int32
			for _, s := range sentences {
				ids, _ := tok.EncodeForModel(s, 0)
				want = append(want, ids)
			}
			for i := range c.data {
				c.data[i] = 0xff
			}
			for i, s := range sentences {
				if got, _ := tok.EncodeForModel(s, 0); !slices.Equal(got, want[i]) {
					t.Fatalf("sentence %d changed after the input was overwritten", i)
				}
			}
		})
	}
}
