package spm_test

import (
	"os"
	"slices"
	"testing"

	"github.com/holomem/holomem/spm"
)

// FuzzFromModelProto feeds corrupt model files: loading must fail cleanly
// or give a tokenizer that encodes without panicking.
func FuzzFromModelProto(f *testing.F) {
	model, err := os.ReadFile("testdata/custom.model")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(model)
	f.Add(model[:len(model)/3])
	f.Add([]byte{0x0a, 0x05, 0x0a, 0x01, 'a', 0x18, 0x02})
	f.Add([]byte{0x0a, 0x05, 0x0a, 0x01, 'a', 0x18, 0x02, 0x1a, 0x09, 0x12, 0x07, 0x02, 0, 0, 0, 0, 0, 'x'})
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := spm.FromModelProto(data)
		if err != nil {
			return
		}
		tok.Encode("Hello wörld ﬁ \xff 日本")
		tok.EncodeForModel("abc", 8)
	})
}

// FuzzEncode checks that any byte string encodes, that ids are in range,
// and that both loaders agree.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", " ", "Hello world", "\xff\xfe", "ﬁⅫ①", "👩🏽‍💻", "a\u0301", "\x00\t\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fromModel, fromJSON := fixtures(t)
		ids := fromModel.Encode(s)
		a, err := fromModel.EncodeForModel(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(ids)+2 {
			t.Fatalf("EncodeForModel has %d ids, Encode %d", len(a), len(ids))
		}
		b, err := fromJSON.EncodeForModel(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range a {
			if id < 0 || int(id) >= fromModel.VocabSize() {
				t.Fatalf("id %d out of range", id)
			}
		}
		if !slices.Equal(a, b) {
			t.Fatalf("loaders disagree: %v vs %v", a, b)
		}
	})
}

// FuzzFromTokenizerJSON feeds mangled tokenizer.json files.
func FuzzFromTokenizerJSON(f *testing.F) {
	f.Add([]byte(`{"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["▁a",-1],["b",-2]]}}`))
	f.Add([]byte(`{"normalizer":{"type":"Precompiled","precompiled_charsmap":"AAAAAA=="},"pre_tokenizer":{"type":"Metaspace"},"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["\u2581a",-1]]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := spm.FromTokenizerJSON(data)
		if err != nil {
			return
		}
		tok.Encode("a b\xffc")
		tok.EncodeForModel("ab", 4)
	})
}
