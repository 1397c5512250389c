package importer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzGitLog feeds arbitrary `git log` output (the RS/US-separated format
// Git asks for) to the parser: it never panics, and every commit it emits
// has a key of its repository, valid UTF-8 content within the record
// limit, and links that start or end at that commit.
func FuzzGitLog(f *testing.F) {
	rec := func(sha, date, author, msg, files string) string {
		return gitRS + sha + gitUS + date + gitUS + author + gitUS + msg + gitUS + files
	}
	f.Add(rec("0123456789abcdef0123456789abcdef01234567", "2024-05-01T10:00:00+02:00", "Alice", "Fix the login flow\n\nFixes #12", "\nauth/login.go\n"), true)
	f.Add(rec("89abcdef0123456789abcdef0123456789abcdef", "2024-05-02T10:00:00Z", "Bob", "see owner/repo#7 and GH-3, https://github.com/o/r/issues/9", "\nREADME.md\nauth/login.go\n")+
		rec("0123456789abcdef0123456789abcdef01234567", "2024-05-01T10:00:00Z", "Alice", "first", "\nREADME.md\n"), true)
	f.Add(rec("abc", "not a date", "x", "short sha", ""), false)
	f.Add(gitRS+"deadbeefcafe"+gitUS+"2024-01-01T00:00:00Z"+gitUS+"a"+gitUS+"message with "+gitUS+" a separator"+gitUS, false)
	f.Add(rec("0123456789abcdef", "2024-01-01T00:00:00Z", "a", "\xff\xfe invalid UTF-8 \x00 NUL", "\n"+strings.Repeat("f\n", 300)), true)
	f.Add(rec("89abcdef0123456789abcdef0123456789abcdef", "2024-05-02T10:00:00Z", "Bob", "Revert \"first\"\n\nThis reverts commit 0123456789ab. Fixes #3", "\n")+
		rec("aaaabbbb0123456789abcdef0123456789abcdef", "2024-05-02T09:00:00Z", "Bob", "fixup! first\n\n(cherry picked from commit 0123456)", "\n")+
		rec("0123456789abcdef0123456789abcdef01234567", "2024-05-01T10:00:00Z", "Alice", "first\n\nfor #3", "\n"), false)
	f.Add("", true)
	f.Fuzz(func(t *testing.T, log string, temporal bool) {
		p := gitParser{name: "o/r", ghRepo: "o/r", opts: GitOptions{Temporal: temporal}, lastByFile: map[string]string{}}
		var sum Summary
		n := 0
		err := p.parse(strings.NewReader(log), &sum, func(r Record) error {
			n++
			if !strings.HasPrefix(r.Key, "git:o/r@") || r.Fact == nil || r.Fact.ExternalKey != r.Key {
				t.Fatalf("record key %q, fact %+v", r.Key, r.Fact)
			}
			c := r.Fact.Content
			if c == "" || !utf8.ValidString(c) || len(c) > MaxRecordContent {
				t.Fatalf("content %q (%d bytes)", c, len(c))
			}
			for _, l := range r.Links {
				if l.FromKey != r.Key && l.ToKey != r.Key {
					t.Fatalf("link %+v of %s touches neither end", l, r.Key)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if n != sum.Records {
			t.Fatalf("%d records emitted, summary says %d", n, sum.Records)
		}
	})
}
