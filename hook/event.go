package hook

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/holomem/holomem"
)

// Event is the part of a Claude Code hook event the recall hook reads
// (UserPromptSubmit: {"session_id", "cwd", "hook_event_name", "prompt"}).
type Event struct {
	SessionID     string `json:"session_id"`
	Cwd           string `json:"cwd"`
	HookEventName string `json:"hook_event_name"`
	Prompt        string `json:"prompt"`
}

// ParseEvent accepts a hook JSON event or plain text: anything that is not
// a JSON object is the prompt itself, so a hook never fails on its input.
func ParseEvent(raw []byte) Event {
	var ev Event
	trimmed := strings.TrimSpace(string(raw))
	if strings.HasPrefix(trimmed, "{") && json.Unmarshal([]byte(trimmed), &ev) == nil {
		return ev
	}
	return Event{Prompt: trimmed}
}

// CleanPrompt makes a prompt a valid query: NULs and invalid UTF-8 become
// spaces and it is cut to [holomem.MaxQueryBytes] at a character boundary;
// "" when nothing but space is left. A hook must answer any prompt, so it
// repairs what a query would refuse.
func CleanPrompt(prompt string) string {
	prompt = strings.ToValidUTF8(strings.ReplaceAll(prompt, "\x00", " "), " ")
	if strings.TrimSpace(prompt) == "" {
		return ""
	}
	if len(prompt) > holomem.MaxQueryBytes {
		prompt = prompt[:holomem.MaxQueryBytes]
		for !utf8.ValidString(prompt) {
			prompt = prompt[:len(prompt)-1]
		}
	}
	return prompt
}
