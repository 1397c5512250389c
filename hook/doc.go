// Package hook is the policy of the prompt hook: what an agent's prompt
// hook event means, how a prompt becomes a query, and how recalled facts
// are rendered into the prompt as quoted data within a token budget.
//
// It lives in the library, not in the command, so that every process that
// answers a hook (the one-shot `holomem hook recall`, a `holomem serve` or
// `holomem mcp` answering over the hook socket, or a program embedding
// holomem) injects exactly the same text: the quoting and escaping that
// keep a stored fact from reading as instructions are one rule.
package hook
