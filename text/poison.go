package text

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/holomem/holomem/internal/lazyre"
)

// Instruction-risk reasons reported by [InstructionRisks].
const (
	RiskOverride = "asks the model to ignore or replace its instructions"
	RiskRole     = "tries to give the model a new role or mode"
	RiskMarkup   = "holds system-prompt or tool-call markup"
	RiskHidden   = "holds hidden Unicode (tag characters, zero-width runs, bidi overrides)"
	RiskExfil    = "asks to send data or run a command"
)

// riskPatterns are matched against the lower-cased text. They are phrased
// as imperatives addressed to a model, so facts that merely talk about
// instructions ("the deploy instructions are in README") do not match.
//
// Each pattern has a gate: words of which the text must contain at least
// one for the pattern to match (every match of the expression contains
// one; with whole, as a whole word, as the expression's \b asks). Nearly
// all facts contain none, and the gates spare them the expressions, which
// were a twentieth of a one-by-one add's CPU time.
var riskPatterns = []struct {
	re     func() *regexp.Regexp // compiled on first use: see lazyre
	gate   []string
	whole  bool
	reason string
}{
	{lazyre.New(`\b(ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,40}\b(previous|prior|above|earlier|all|your|the system|any)\b[^.!?\n]{0,30}\b(instructions?|prompts?|rules|guidelines|directives|messages)\b`), []string{"ignore", "disregard", "forget", "override", "bypass"}, true, RiskOverride},
	{lazyre.New(`\b(new|updated|real) (system )?instructions\s*:`), []string{"instructions"}, false, RiskOverride},
	{lazyre.New(`(игнорируй|игнорировать|забудь|забыть|отмени|не обращай внимания на)[^.!?\n]{0,40}(инструкци|правил|указани|промпт)`), []string{"игнорируй", "игнорировать", "забудь", "забыть", "отмени", "не обращай внимания на"}, false, RiskOverride},
	{lazyre.New(`(новые|настоящие) (системные )?инструкции\s*:`), []string{"инструкции"}, false, RiskOverride},
	{lazyre.New(`\byou are (now|no longer)\b|\bfrom now on,? you\b|\bact as (an? )?(unrestricted|jailbroken|dan|evil|admin)|\b(developer|god|dan|jailbreak) mode\b|\bpretend (that )?you (are|have no)\b`), []string{"you are now", "you are no longer", "from now on", "act as", "developer mode", "god mode", "dan mode", "jailbreak mode", "pretend"}, true, RiskRole},
	{lazyre.New(`(ты теперь|теперь ты|отныне ты|с этого момента ты|режим разработчика|притворись, что ты|веди себя как)`), []string{"ты теперь", "теперь ты", "отныне ты", "с этого момента ты", "режим разработчика", "притворись, что ты", "веди себя как"}, false, RiskRole},
	{lazyre.New(`<\s*/?\s*(system|assistant|user|tool_call|tool_use|function_calls?|invoke|antml|instructions?|holomem-memory)\b|<\|(im_start|im_end|system|user|assistant|endoftext)\|>|\[/?inst\]|<<\s*/?sys\s*>>|"role"\s*:\s*"(system|tool)"|^\s*(system|assistant)\s*:`), []string{"<", "[inst]", "[/inst]", "\"role\"", "system", "assistant"}, false, RiskMarkup},
	{lazyre.New(`\b(send|post|upload|forward|exfiltrate|email)\b[^.!?\n]{0,40}\b(password|passwords|token|tokens|secrets?|api keys?|credentials|ssh keys?|\.env|history|conversation)\b[^.!?\n]{0,40}\b(to|at)\b\s*(https?://|\S+@\S+)|\b(curl|wget)\b[^|\n]{0,80}\|\s*(ba|z)?sh\b|\brm -rf /(\s|$)`), []string{"send", "post", "upload", "forward", "exfiltrate", "email", "curl", "wget", "rm -rf /"}, true, RiskExfil},
	{lazyre.New(`(отправь|перешли|загрузи)[^.!?\n]{0,40}(парол|токен|секрет|ключ|переписк)[^.!?\n]{0,40}(https?://|\S+@\S+)`), []string{"отправь", "перешли", "загрузи"}, false, RiskExfil},
}

// InstructionRisks reports why s reads as instructions to a model rather
// than a fact: memory poisoning, where a stored "fact" later enters a
// prompt. The reasons are in a fixed order, each once; nil means none.
// It is a screen, not a guarantee: flagged content is stored and shown as
// quoted data like any other, with the flag, never dropped.
func InstructionRisks(s string) []string {
	var out []string
	add := func(r string) {
		for _, o := range out {
			if o == r {
				return
			}
		}
		out = append(out, r)
	}
	if hasHiddenUnicode(s) {
		add(RiskHidden)
	}
	low := strings.ToLower(s)
	for _, p := range riskPatterns {
		if passes(low, p.gate, p.whole) && p.re().MatchString(low) {
			add(p.reason)
		}
	}
	return out
}

// passes reports whether s contains one of subs, with whole as a whole
// word: where sub begins or ends with an ASCII word character, the
// character next to it in s is none (the boundary of regexp's \b).
func passes(s string, subs []string, whole bool) bool {
	for _, sub := range subs {
		for at := 0; ; {
			i := strings.Index(s[at:], sub)
			if i < 0 {
				break
			}
			i += at
			if !whole || (!(isWordByte(sub[0]) && i > 0 && isWordByte(s[i-1])) &&
				!(isWordByte(sub[len(sub)-1]) && i+len(sub) < len(s) && isWordByte(s[i+len(sub)]))) {
				return true
			}
			at = i + 1
		}
	}
	return false
}

// hasHiddenUnicode finds Unicode tag characters (invisible ASCII copies
// used to smuggle text), bidi overrides, and runs of two or more
// zero-width characters (a single ZWJ inside an emoji is normal).
func hasHiddenUnicode(s string) bool {
	run := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r >= 0xE0000 && r <= 0xE007F:
			return true
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			return true
		case r == 0x200B || r == 0x200C || r == 0x200D || r == 0x2060 || r == 0xFEFF:
			run++
			if run >= 2 {
				return true
			}
		default:
			run = 0
		}
	}
	return false
}

// QuoteData renders s as quoted data for a model's context: Go-quoted, so
// control and invisible characters (Unicode tags, zero-width runs, bidi
// overrides) show as escapes, with '<' escaped too, so no markup (a closing
// tag, a fake system turn) survives as such. The prompt hook renders every
// fact this way and MCP results render flagged ones so.
func QuoteData(s string) string {
	return strings.ReplaceAll(strconv.Quote(s), "<", `\u003c`)
}

// Label renders a stored label (a category, a tag) for a model's context
// where it is printed bare, as in the prompt hook's "[#id category date]":
// letters, digits, marks and the punctuation labels use (_ - . : / + # @ &)
// are kept, every other character (a newline, a bracket, '<', a bidi
// override, a space) becomes '_', and it is cut to 64 characters. Stores
// refuse such labels on write; this guards facts written before that rule
// or straight into a database.
func Label(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == 64 {
			b.WriteString("…")
			break
		}
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r), strings.ContainsRune("_-.:/+#@&", r):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		n++
	}
	return b.String()
}
