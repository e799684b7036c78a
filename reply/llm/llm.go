// Package llm is Hark's gateway to the language model: a small, stable
// interface over the official Ollama client (github.com/ollama/ollama/api),
// whose types change between releases. The reply engine talks to the model
// only through this package, which turns the server's many failure shapes
// into a few errors the engine can act on (ErrUnreachable, ErrNotOllama,
// ErrModelNotFound, ErrNoTools, ErrStreamCut, ErrServerFailed).
package llm

import (
	"encoding/json"
	"errors"
	"time"
)

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one message of a chat.
type Message struct {
	Role      string
	Content   string
	Thinking  string // the model's reasoning; kept in history, never spoken
	ToolCalls []ToolCall
	ToolName  string // for RoleTool: the tool whose result this is
	// ToolCallID, for RoleTool, is the id of the call this answers.
	ToolCallID string
}

// ToolCall is a call the model asked for.
type ToolCall struct {
	// ID is the server's id for the call, when it gives one; the result
	// goes back with it.
	ID        string
	Name      string
	Arguments map[string]any
}

// Tool is a function offered to the model.
type Tool struct {
	Name        string
	Description string
	// Parameters is a JSON schema object describing the arguments.
	Parameters json.RawMessage
}

// Request is one chat request. The model and its options come from the
// Client.
type Request struct {
	Messages []Message
	Tools    []Tool
	// Format constrains the answer: "json" (as a JSON string) or a JSON schema.
	Format json.RawMessage
	// Think turns a thinking model's reasoning on or off; nil leaves the
	// model's default.
	Think *bool
	// Model overrides the Client's model for this request.
	Model string
	// MaxTokens bounds the answer's tokens (Ollama's num_predict); 0 for
	// no bound.
	MaxTokens int
}

// Chunk is a piece of a streamed answer.
type Chunk struct {
	Content   string
	Thinking  string
	ToolCalls []ToolCall
	// Notice is a sentence for the user from the gateway itself, not the
	// model: that another server took over mid-answer.
	Notice string
}

// Response is a whole answer.
type Response struct {
	Message Message
	// Model and Server are the model and the server (its URL) that
	// answered: with a Chain, the endpoint that did.
	Model, Server string
	DoneReason    string
	PromptTokens  int
	OutputTokens  int
	// Duration is the server's own time for the answer, load included;
	// PromptDuration of it went on the prompt, EvalDuration on the output
	// and LoadDuration on loading the model.
	Duration       time.Duration
	PromptDuration time.Duration
	EvalDuration   time.Duration
	LoadDuration   time.Duration
}

// ModelInfo is what the server tells about a model.
type ModelInfo struct {
	Name          string
	Family        string
	ParameterSize string // as the server writes it: "1.2B", "270M"
	Parameters    int64  // parameter count, 0 when the server does not say
	Quantization  string
	ContextLength int
	Capabilities  []string // "completion", "tools", "thinking", ...
	// Template is the model's chat template, in Ollama's template language.
	Template string
	// NumPredict is the model's own bound on an answer's tokens, as its
	// Modelfile sets it (PARAMETER num_predict): 0 when it sets none, -1
	// for no bound, -2 to fill the context. A request's MaxTokens takes
	// its place.
	NumPredict int
}

// Supports reports whether the model has a capability.
func (m ModelInfo) Supports(capability string) bool {
	for _, c := range m.Capabilities {
		if c == capability {
			return true
		}
	}
	return false
}

// The failures callers branch on. Errors from this package wrap one of these
// where it applies, along with the server's own message.
var (
	// ErrUnreachable: no connection to the server (refused, no route, no
	// such host, dial timeout).
	ErrUnreachable = errors.New("llm: model server unreachable")
	// ErrModelNotFound: the server does not have the model.
	ErrModelNotFound = errors.New("llm: model not found on the server")
	// ErrNoTools: the model cannot take tools (HTTP 400 "does not support
	// tools"); the caller may fall back to tools described in text.
	ErrNoTools = errors.New("llm: model does not support tools")
	// ErrStreamCut: the answer stopped before the server said it was done.
	ErrStreamCut = errors.New("llm: model server ended the answer early")
	// ErrServerFailed: the server took the request and failed running it:
	// it answered 5xx, or an error line ended the answer it had begun (as
	// Ollama sends "llama runner process has terminated" when the model
	// runner dies mid-answer, after its 200). Another server may not fail;
	// a refusal of the request itself (4xx) is not this.
	ErrServerFailed = errors.New("llm: model server failed")
	// ErrNotOllama: something answers at the server's address, but not as
	// Ollama does: a web server's page, another application's 404, a body
	// that is not Ollama's JSON. An error that wraps it wraps
	// ErrUnreachable too: there is no model server to reach there.
	ErrNotOllama = errors.New("llm: the server does not answer as Ollama does")
)

// ErrStalled marks a request its caller ended because the server said
// nothing within the caller's budget for it, as the reply engine does when
// its reply budget runs out: the caller gives it as the cause of the
// request's context (context.WithCancelCause, through Stalled). A Chain
// counts a request so ended, before its server said a word, against that
// server; a request ended for any other cause, a barge-in above all,
// counts for nothing.
var ErrStalled = errors.New("llm: the model server said nothing in time")

// Stalled returns err marked as a server's silence: errors.Is(·,
// ErrStalled) holds, and its words are err's.
func Stalled(err error) error { return stalled{err} }

type stalled struct{ error }

func (s stalled) Unwrap() []error { return []error{s.error, ErrStalled} }
