// Package center is the command-center protocol of seed 002, both sides:
// the Server that a center (`hark center`) runs for many speaker nodes at
// once on the reply engine, and the Node that a speaker runs to ask a
// center for replies while it keeps its offline core and runs the
// center's client-side tool calls itself.
//
// The wire format is the seed's: POST /api/v0/conversation/start registers
// a conversation's client tools and node context, POST
// /api/v0/voice/command sends what the user said, POST
// /api/v0/voice/command/continue sends tool results or the user's answer to
// a question, and every answer carries a stop_reason of "tool_calls",
// "validation_required" or "complete". One Hark extension: a request with
// Accept: application/x-ndjson gets the spoken sentences as lines
// ({"sentence": "..."}) as they are generated, then the same final object,
// so the node speaks the first sentence early.
package center

import "encoding/json"

// The paths.
const (
	PathStart    = "/api/v0/conversation/start"
	PathCommand  = "/api/v0/voice/command"
	PathContinue = "/api/v0/voice/command/continue"
	PathStatus   = "/api/v0/status"
)

// The stop reasons.
const (
	StopToolCalls  = "tool_calls"
	StopValidation = "validation_required"
	StopComplete   = "complete"
)

// NDJSON is the media type of a streamed answer.
const NDJSON = "application/x-ndjson"

// NodeContext tells the center which speaker is asking and where it is.
type NodeContext struct {
	NodeID   string `json:"node_id,omitempty"`
	Room     string `json:"room,omitempty"`
	Timezone string `json:"timezone,omitempty"`
}

// Tool is a tool definition in OpenAI's function-calling format.
type Tool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is a tool's name, description and JSON schema of its arguments.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// StartRequest registers a conversation's client tools.
type StartRequest struct {
	ConversationID string      `json:"conversation_id"`
	NodeContext    NodeContext `json:"node_context"`
	ClientTools    []Tool      `json:"client_tools"`
}

// StartResponse acknowledges a StartRequest.
type StartResponse struct {
	Status         string `json:"status"`
	ConversationID string `json:"conversation_id"`
}

// CommandRequest is what the user said.
type CommandRequest struct {
	VoiceCommand   string      `json:"voice_command"`
	ConversationID string      `json:"conversation_id"`
	NodeContext    NodeContext `json:"node_context"`
}

// ContinueRequest carries tool results, or the user's answer to a
// validation question.
type ContinueRequest struct {
	ConversationID     string       `json:"conversation_id"`
	ToolResults        []ToolResult `json:"tool_results,omitempty"`
	ValidationResponse *string      `json:"validation_response,omitempty"`
}

// ToolResult is the outcome of one client tool call.
type ToolResult struct {
	ToolCallID string     `json:"tool_call_id"`
	Output     ToolOutput `json:"output"`
}

// ToolOutput is a tool's answer: whether it worked, a sentence, and the
// data the model phrases its answer from. A Hark node that refused the
// arguments puts them in Context["problems"] (see Problem).
type ToolOutput struct {
	Success bool           `json:"success"`
	Message string         `json:"message"`
	Context map[string]any `json:"context,omitempty"`
}

// Problem is one argument a client tool refused, with the values it would
// take.
type Problem struct {
	Param   string   `json:"param"`
	Message string   `json:"message"`
	Valid   []string `json:"valid,omitempty"`
}

// Response is the center's answer to a command or a continuation.
type Response struct {
	Commands           []json.RawMessage  `json:"commands"`
	RequestInformation RequestInformation `json:"request_information"`
	StopReason         string             `json:"stop_reason"`
	AssistantMessage   string             `json:"assistant_message"`
	ToolCalls          []ToolCall         `json:"tool_calls"`
	ValidationRequest  *ValidationRequest `json:"validation_request"`
}

// RequestInformation echoes the request.
type RequestInformation struct {
	VoiceCommand   string `json:"voice_command"`
	ConversationID string `json:"conversation_id"`
}

// ToolCall is a call of a client tool the node must run.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function CallFunction `json:"function"`
}

// CallFunction names the tool; Arguments is a JSON object, as a string.
type CallFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ValidationRequest is a question for the user: the node says it and sends
// the answer back as a validation_response.
type ValidationRequest struct {
	Question string   `json:"question"`
	Options  []string `json:"options,omitempty"`
}

// Line is one line of a streamed answer: a sentence to say now, until the
// last line, which is the Response.
type Line struct {
	Sentence string `json:"sentence"`
}

// Error is every error's body.
type Error struct {
	Error string `json:"error"`
}
