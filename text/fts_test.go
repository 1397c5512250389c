package text_test

import (
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/holomem/holomem/text"
)

// ftsDB is a real SQLite database with the FTS5 table the store uses.
// Its methods take the testing.TB to fail, because a fuzz target must
// report through its own *testing.T.
type ftsDB struct {
	db *sql.DB
}

func newFTS(tb testing.TB) *ftsDB {
	tb.Helper()
	db, err := sql.Open("sqlite", filepath.Join(tb.TempDir(), "fts.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	f := &ftsDB{db: db}
	f.exec(tb, `CREATE VIRTUAL TABLE t USING fts5(body, tags, tokenize="unicode61 remove_diacritics 2")`)
	f.exec(tb, `CREATE VIRTUAL TABLE tv USING fts5vocab(t, 'instance')`)
	f.exec(tb, `CREATE VIRTUAL TABLE raw USING fts5(x, tokenize="unicode61 remove_diacritics 0")`)
	f.exec(tb, `CREATE VIRTUAL TABLE rawv USING fts5vocab(raw, 'instance')`)
	return f
}

func (f *ftsDB) exec(tb testing.TB, q string, args ...any) {
	tb.Helper()
	if _, err := f.db.Exec(q, args...); err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
}

// tokens returns the tokens FTS5 makes of s, with diacritics removed
// (table t) or kept (table raw).
func (f *ftsDB) tokens(tb testing.TB, s string, keepDiacritics bool) []string {
	tb.Helper()
	table, vocab, col := "t", "tv", "body"
	if keepDiacritics {
		table, vocab, col = "raw", "rawv", "x"
	}
	f.exec(tb, `DELETE FROM `+table+` WHERE rowid = 1`)
	f.exec(tb, `INSERT INTO `+table+`(rowid, `+col+`) VALUES(1, ?)`, s)
	rows, err := f.db.Query(`SELECT term FROM ` + vocab + ` WHERE doc = 1 ORDER BY offset`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var term string
		if err := rows.Scan(&term); err != nil {
			tb.Fatal(err)
		}
		out = append(out, term)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	f.exec(tb, `DELETE FROM `+table+` WHERE rowid = 1`)
	return out
}

// tokensMany is tokens for many texts in one transaction, which is much
// faster than one at a time.
func (f *ftsDB) tokensMany(tb testing.TB, texts []string) [][]string {
	tb.Helper()
	tx, err := f.db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	for i, s := range texts {
		if _, err := tx.Exec(`INSERT INTO t(rowid, body) VALUES(?, ?)`, 1000+i, s); err != nil {
			tb.Fatal(err)
		}
	}
	rows, err := tx.Query(`SELECT doc, term FROM tv WHERE doc >= 1000 ORDER BY doc, offset`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	out := make([][]string, len(texts))
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			tb.Fatal(err)
		}
		out[doc-1000] = append(out[doc-1000], term)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// checkManyMatchFTS is checkTokensMatchFTS for many texts at once.
func checkManyMatchFTS(tb testing.TB, f *ftsDB, texts []string) {
	tb.Helper()
	var batch []string
	for _, s := range texts {
		batch = append(batch, text.Normalize(s), strings.Join(text.Tokens(s), " "))
	}
	got := f.tokensMany(tb, batch)
	for i, s := range texts {
		want, ours := got[2*i], got[2*i+1]
		if toks := text.Tokens(s); !slices.Equal(want, ours) || len(toks) != len(want) {
			tb.Errorf("Tokens(%q) = %q;\nFTS5 of Normalize: %q\nFTS5 of our tokens: %q", s, toks, want, ours)
		}
	}
}

// match returns the rowids of t matching expr, in rowid order.
func (f *ftsDB) match(expr string) ([]int64, error) {
	rows, err := f.db.Query(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid`, expr)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// checkTokensMatchFTS fails unless Tokens(s) splits s exactly where FTS5
// does: FTS5 must make the same tokens of Normalize(s) as of the tokens
// joined by spaces.
func checkTokensMatchFTS(tb testing.TB, f *ftsDB, s string) {
	tb.Helper()
	toks := text.Tokens(s)
	want := f.tokens(tb, text.Normalize(s), false)
	got := f.tokens(tb, strings.Join(toks, " "), false)
	if !slices.Equal(got, want) {
		tb.Fatalf("Tokens(%q) = %q;\nFTS5 of Normalize: %q\nFTS5 of our tokens: %q", s, toks, want, got)
	}
	if len(toks) != len(want) {
		tb.Fatalf("Tokens(%q) = %q (%d), FTS5 makes %d tokens %q", s, toks, len(toks), len(want), want)
	}
}

var tokenCorpus = []string{
	"",
	"hello world",
	"Hello, World! It's 2024-05-01T10:00:00Z.",
	"snake_case camelCase kebab-case dotted.name path/to/file.go",
	"C++ (foo) \"quoted\" -rf NEAR(a b) title:x AND OR NOT * ^ {a b}:x",
	"Ёлка и ёж: Россия, России, россию.",
	"Прывітанне, Україна! Їжак і ґанок.",
	"中文字符测试 日本語のテキスト 한국어 텍스트",
	"emoji 🚀 rocket👍🏽ok 👨‍👩‍👧 family",
	"café cafe\u0301 naïve Ångström straße ǅemal İstanbul",
	"a\u0301b \u0301 \u0301\u0300 x\u0305y",
	"ñandú Ελληνικά עברית العربية हिन्दी ภาษาไทย",
	"tab\there\nnew\x00nul\x7fdel\u0085nel",
	"invalid \xff\xfe bytes \xc3 and \xa0",
	"fullwidth ＡＢＣ１２３ superscript x² ½ ①",
	"soft\u00adhyphen zero\u200bwidth nb\u00a0sp",
	"𐐀𐐨 deseret 𝐀𝐁 math bold",
	"ÀÉÎÕÜ ÆØÅ Œuvre ß ẞ",
}

func TestTokens_matchFTS5(t *testing.T) {
	checkManyMatchFTS(t, newFTS(t), tokenCorpus)
}

// TestTokens_exactFTS5 compares tokens one by one with what FTS5 stores when
// it keeps diacritics.
func TestTokens_exactFTS5(t *testing.T) {
	f := newFTS(t)
	for _, s := range []string{
		"Hello, World! deploying Nginx",
		"Россия России россию Ёж",
		"café naïve Ångström",
		"中文字符测试 日本語のテキスト",
	} {
		got, want := text.Tokens(s), f.tokens(t, text.Normalize(s), true)
		if !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q, FTS5 %q", s, got, want)
		}
	}
}

func FuzzTokens(f *testing.F) {
	for _, s := range tokenCorpus {
		f.Add(s)
	}
	db := newFTS(f)
	f.Fuzz(func(t *testing.T, s string) {
		checkTokensMatchFTS(t, db, s)
	})
}

// TestTokens_randomFTS5 checks seeded random strings over the code points
// where tokenizers disagree most: marks, scripts without spaces, symbols,
// private use, unassigned code points, controls and broken UTF-8.
func TestTokens_randomFTS5(t *testing.T) {
	pool := [][2]rune{
		{' ', '~'}, {0x80, 0x24F}, {0x300, 0x36F}, {0x370, 0x52F}, {0x590, 0x6FF}, {0x900, 0x97F},
		{0xE00, 0xE7F}, {0x1E00, 0x1EFF}, {0x2000, 0x206F}, {0x2070, 0x218F}, {0x3000, 0x30FF},
		{0x4E00, 0x4E20}, {0xAC00, 0xAC20}, {0xE000, 0xE010}, {0xFB00, 0xFB4F}, {0xFE00, 0xFE0F},
		{0xFF00, 0xFFFF}, {0x10400, 0x1044F}, {0x1D400, 0x1D4FF}, {0x1F300, 0x1F6FF}, {0xE0000, 0xE007F},
		{0x30000, 0x30010}, {0x40000, 0x40010}, {0x10FFF0, 0x10FFFF},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 1000
	if testing.Short() {
		n = 200
	}
	var texts []string
	for range n {
		var b strings.Builder
		for range 1 + rng.IntN(16) {
			switch rng.IntN(20) {
			case 0:
				b.WriteByte(byte(0x80 + rng.IntN(0x80))) // a stray byte
			case 1:
				b.WriteByte(' ')
			default:
				p := pool[rng.IntN(len(pool))]
				b.WriteRune(p[0] + rng.Int32N(p[1]-p[0]+1))
			}
		}
		texts = append(texts, b.String())
	}
	checkManyMatchFTS(t, newFTS(t), texts)
}
