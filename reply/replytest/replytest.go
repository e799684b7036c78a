// Package replytest scripts a model for tests of the reply engine and what
// is built on it. The engine makes several kinds of model call for one
// reply (planner, tool router, memory search terms, digests, the chat
// itself); Model tells them apart by their system prompts and answers each
// kind from its own script, so a test scripts only what it cares about.
// Use it as the responder of an ollamatest.Server.
package replytest

import (
	"strings"
	"sync"

	"github.com/harkbox/hark/reply/ollamatest"
)

// The kinds of model call.
const (
	Planner = "planner"
	Router  = "router"
	Extract = "extract"
	Memory  = "memory-digest"
	Tool    = "tool-digest"
	Loop    = "loop-digest"
	Diary   = "diary"
	Resolve = "resolve"
	Chat    = "chat"
	// Warm is the reply engine's warm-up call: the chat prompt with a
	// one-token answer.
	Warm    = "warm"
	Unknown = "unknown"
)

// prefixes start the system prompt of each kind; the reply engine's golden
// files pin them.
var prefixes = map[string]string{
	"You decide how a voice assistant": Planner, "You choose which tools": Router,
	"You pick search terms": Extract, "You prepare background notes": Memory,
	"You condense a tool's answer": Tool, "A voice assistant ran out of steps": Loop,
	"Write a diary entry": Diary, "You turn one step of a plan": Resolve, "You are ": Chat,
}

// KindOf tells which kind of call a request is.
func KindOf(r ollamatest.ChatRequest) string {
	if len(r.Messages) == 0 || r.Messages[0].Role != "system" {
		return Unknown
	}
	if n, ok := r.Options["num_predict"].(float64); ok && n == 1 {
		return Warm
	}
	for prefix, k := range prefixes {
		if strings.HasPrefix(r.Messages[0].Content, prefix) {
			return k
		}
	}
	return Unknown
}

// Model answers each kind of call from its own script. A kind whose script
// is empty gets a neutral default: a reply-only plan, no tools, no search
// terms, a short diary entry; a chat call without a script fails with a
// message saying so.
type Model struct {
	mu       sync.Mutex
	scripts  map[string][]ollamatest.Reply
	defaults map[string]ollamatest.Reply
}

// New returns a Model with empty scripts.
func New() *Model {
	return &Model{scripts: map[string][]ollamatest.Reply{}, defaults: map[string]ollamatest.Reply{}}
}

// Default sets the answer of a kind once its script is used up, for any
// number of calls.
func (m *Model) Default(kind string, r ollamatest.Reply) *Model {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.defaults[kind] = r
	return m
}

// On appends replies to the script of a kind.
func (m *Model) On(kind string, replies ...ollamatest.Reply) *Model {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.scripts[kind] = append(m.scripts[kind], replies...)
	return m
}

// Says appends a plain answer to the script of a kind.
func (m *Model) Says(kind, content string) *Model {
	return m.On(kind, ollamatest.Reply{Content: content})
}

// Respond answers one request; pass it to ollamatest.Server.Respond.
func (m *Model) Respond(r ollamatest.ChatRequest) ollamatest.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := KindOf(r)
	if s := m.scripts[k]; len(s) > 0 {
		m.scripts[k] = s[1:]
		return s[0]
	}
	if r, ok := m.defaults[k]; ok {
		return r
	}
	switch k {
	case Planner:
		return ollamatest.Reply{Content: `{"steps": ["reply"]}`}
	case Router:
		return ollamatest.Reply{Content: `{"tools": []}`}
	case Extract:
		return ollamatest.Reply{Content: `{"keywords": []}`}
	case Diary:
		return ollamatest.Reply{Content: `{"summary": "A short chat.", "keywords": ["chat"]}`}
	case Warm:
		return ollamatest.Reply{Content: "Hi"}
	}
	return ollamatest.Reply{Fault: ollamatest.ServerError, Error: "replytest: no answer scripted for a " + k + " call"}
}

// Kinds lists the kinds of the chat requests a server saw, in order.
func Kinds(srv *ollamatest.Server) []string {
	var out []string
	for _, c := range srv.Chats() {
		out = append(out, KindOf(c))
	}
	return out
}
