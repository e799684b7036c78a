// Package center is the command-center protocol of seed 002, both sides:
// the Server that a center (`hark center`) runs for many speaker nodes at
// once on the reply engine, and the Node that a speaker runs to ask a
// center for replies while it keeps its offline core and runs the
// center's client-side tool calls itself.
//
// The wire format is the one stock Jarvis nodes (alexberardi's
// jarvis-node-setup) speak, of which seed 002 is a snapshot: POST
// /api/v0/conversation/start registers a conversation's client tools and
// node context, POST /api/v0/voice/command sends what the user said, POST
// /api/v0/voice/command/continue sends tool results or the user's answer to
// a question, and every answer carries a stop_reason of "tool_calls",
// "validation_required" or "complete". The /stream twins of the last two
// answer 202 with the same JSON, or 200 with the answer spoken as raw PCM
// when the center has a voice. Around them: the date context a node builds
// its tool schemas from, a quick acknowledgement, and the media services a
// node too small for them uses (speech to text, text to speech, a wake
// greeting, a plain chat). A node authenticates with X-API-Key: ID:KEY (or
// X-Node-ID and X-API-Key, or Authorization: Bearer ID:KEY).
//
// Hark's own extensions: a request with Accept: application/x-ndjson gets
// the spoken sentences as lines ({"sentence": "..."}) as they are
// generated, then the same final object, so the node speaks the first
// sentence early; while the answer waits for the center's model (its load,
// or other nodes' turns) a line {"waiting": true} every few seconds says
// the center is alive; a command sent with X-Hark-Start-Again in a
// conversation the center does not hold is answered 404, and the node
// starts the conversation again with its tools; and GET /api/v0/status.
package center

import (
	"bytes"
	"encoding/json"
)

// The paths.
const (
	PathStart          = "/api/v0/conversation/start"
	PathCommand        = "/api/v0/voice/command"
	PathContinue       = "/api/v0/voice/command/continue"
	PathCommandStream  = "/api/v0/voice/command/stream"
	PathContinueStream = "/api/v0/voice/command/continue/stream"
	PathAcknowledge    = "/api/v0/voice/acknowledge"
	PathDateContext    = "/api/v0/generate/date-context"
	PathTranscribe     = "/api/v0/media/whisper/transcribe"
	PathSpeak          = "/api/v0/media/tts/speak"
	PathSpeakStream    = "/api/v0/media/tts/speak/stream"
	PathWakeResponse   = "/api/v0/wake-response"
	PathChat           = "/api/v0/chat"
	PathStatus         = "/api/v0/status"
)

// ValidationAnswerID is the tool_call_id a node puts on its answer to a
// question that came without one.
const ValidationAnswerID = "validation-response"

// The stop reasons.
const (
	StopToolCalls  = "tool_calls"
	StopValidation = "validation_required"
	StopComplete   = "complete"
)

// NDJSON is the media type of a streamed answer.
const NDJSON = "application/x-ndjson"

// HeaderStartAgain, sent with a command (any value), says the node starts
// its conversation again, with its tools, when the center answers 404: the
// running center does not hold the conversation (it restarted since the
// start), and a conversation made anew for the command would have none of
// the node's tools. Without it (a Jarvis node, which takes any answer but
// 200 for a failure and loses the question) such a command is answered in
// the conversation made anew.
const HeaderStartAgain = "X-Hark-Start-Again"

// NodeContext tells the center which speaker is asking and where it is.
// A Jarvis node sends only its time zone (and a speaker it recognized);
// the center keeps the room per node.
type NodeContext struct {
	NodeID   string `json:"node_id,omitempty"`
	Room     string `json:"room,omitempty"`
	Timezone string `json:"timezone,omitempty"`
}

// Tool is a tool definition in OpenAI's function-calling format, with what
// a Jarvis command adds beside the function: the words and utterances that
// lead to it, which the center's router and search_tools read.
type Tool struct {
	Type     string    `json:"type"`
	Function Function  `json:"function"`
	Keywords []string  `json:"keywords,omitempty"`
	Examples []Example `json:"examples,omitempty"`
	// AllowDirectAnswer false means the model must call the tool rather
	// than answer itself.
	AllowDirectAnswer *bool `json:"allow_direct_answer,omitempty"`
	// Rules say when to use the tool (from a node's available_commands).
	Rules []string `json:"rules,omitempty"`
}

// Example is an utterance and the arguments it means.
type Example struct {
	VoiceCommand       string         `json:"voice_command"`
	ExpectedParameters map[string]any `json:"expected_parameters,omitempty"`
	IsPrimary          bool           `json:"is_primary,omitempty"`
}

// CommandDefinition is how a Jarvis node also describes its commands at
// the start (available_commands); the center reads the keywords, examples
// and rules of the client tools from it where the tool lacks them.
type CommandDefinition struct {
	CommandName string    `json:"command_name"`
	Keywords    []string  `json:"keywords,omitempty"`
	Examples    []Example `json:"examples,omitempty"`
	Rules       []string  `json:"rules,omitempty"`
}

// Function is a tool's name, description and JSON schema of its arguments.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// StartRequest registers a conversation's client tools. Starting a
// conversation again replaces its tools.
type StartRequest struct {
	ConversationID    string              `json:"conversation_id"`
	NodeContext       NodeContext         `json:"node_context"`
	ClientTools       []Tool              `json:"client_tools"`
	AvailableCommands []CommandDefinition `json:"available_commands,omitempty"`
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
	NodeContext    NodeContext `json:"node_context,omitzero"`
	// SpeakerUserID is who a Jarvis node recognized; the center does not
	// use it.
	SpeakerUserID *int64 `json:"speaker_user_id,omitempty"`
}

// ContinueRequest carries tool results, or the user's answer to a
// validation question: a Jarvis node sends it as a tool result for the
// question's tool_call_id (see ToolOutput.Answer), a Hark node as
// validation_response.
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

// ToolOutput is a tool's answer: whether it worked, a sentence, why it
// failed, and the data the model phrases its answer from. A Hark node that
// refused the arguments puts them in Context["problems"] (see Problem).
//
// The answer to a question (validation_required) comes back in the same
// place: Answer, with the question, its parameter and options echoed.
type ToolOutput struct {
	Success bool           `json:"success"`
	Message string         `json:"message"`
	Error   string         `json:"error,omitempty"`
	Context map[string]any `json:"context,omitempty"`

	Answer        *string  `json:"answer,omitempty"`
	ParameterName string   `json:"parameter_name,omitempty"`
	Question      string   `json:"question,omitempty"`
	Options       []string `json:"options,omitempty"`
}

// UnmarshalJSON reads an output as a node may send it: an object whose
// fields may be null, or a bare value, which is taken as the message.
func (o *ToolOutput) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*o = ToolOutput{}
		return nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*o = ToolOutput{Success: true, Message: s}
		return nil
	case b[0] != '{':
		*o = ToolOutput{Success: true, Message: string(b)}
		return nil
	}
	var raw struct {
		Success       *bool           `json:"success"`
		Message       any             `json:"message"`
		Error         any             `json:"error"`
		Context       json.RawMessage `json:"context"`
		Answer        *string         `json:"answer"`
		ParameterName string          `json:"parameter_name"`
		Question      string          `json:"question"`
		Options       []string        `json:"options"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*o = ToolOutput{Message: text(raw.Message), Error: text(raw.Error), Answer: raw.Answer,
		ParameterName: raw.ParameterName, Question: raw.Question, Options: raw.Options}
	o.Success = raw.Success != nil && *raw.Success || raw.Success == nil && o.Error == ""
	if len(raw.Context) > 0 && raw.Context[0] == '{' {
		if err := json.Unmarshal(raw.Context, &o.Context); err != nil {
			return err
		}
	} else if c := bytes.TrimSpace(raw.Context); len(c) > 0 && string(c) != "null" {
		var v any
		json.Unmarshal(c, &v)
		o.Context = map[string]any{"value": v}
	}
	return nil
}

// text is a JSON value as a sentence: a string as is, null as "", anything
// else as JSON.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
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
// the answer back, as a tool result for ToolCallID (a Jarvis node) or as a
// validation_response (a Hark node). ParameterName is the argument the
// answer fills, "" when the question is the reply's own.
type ValidationRequest struct {
	Question      string   `json:"question"`
	ParameterName string   `json:"parameter_name"`
	Options       []string `json:"options"`
	ToolCallID    string   `json:"tool_call_id"`
}

// Line is one line of a streamed answer: a sentence to say now, until the
// last line, which is the Response.
type Line struct {
	Sentence string `json:"sentence"`
	// Waiting says, with no sentence, that the center is still waiting
	// for its model (loading it, or answering other nodes first): it is
	// not hung.
	Waiting bool `json:"waiting,omitempty"`
}

// Error is every error's body.
type Error struct {
	Error string `json:"error"`
}

// Fallback is a /continue/stream answer that has no audio for the node: it
// sends the same results to the blocking /continue.
type Fallback struct {
	Fallback string `json:"fallback"`
}

// UseBlocking is the only Fallback there is.
const UseBlocking = "use_blocking_continue"

// AcknowledgeRequest asks for a few words to say while the answer comes.
type AcknowledgeRequest struct {
	VoiceCommand string `json:"voice_command"`
}

// Text is the answer of /voice/acknowledge and /wake-response.
type Text struct {
	Text string `json:"text"`
}

// Transcript is the answer of /media/whisper/transcribe.
type Transcript struct {
	Text     string `json:"text"`
	Language string `json:"language,omitempty"`
}

// SpeakRequest is the body of /media/tts/speak and its stream.
type SpeakRequest struct {
	Text string `json:"text"`
}

// ChatRequest is a plain chat in OpenAI's shape, for /chat.
type ChatRequest struct {
	Messages    []ChatMessage `json:"messages"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
}

// ChatMessage is one message of a chat.
type ChatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatResponse is the answer of /chat, in OpenAI's shape.
type ChatResponse struct {
	Object  string       `json:"object"`
	Model   string       `json:"model"`
	Choices []ChatChoice `json:"choices"`
}

// ChatChoice is the one answer of a chat.
type ChatChoice struct {
	Index        int         `json:"index"`
	Message      ChatMessage `json:"message"`
	FinishReason string      `json:"finish_reason"`
}
