package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"

	"github.com/harkbox/hark/internal/netdial"
)

// Options configure a Client.
type Options struct {
	// Host is the server's base URL; nil means OLLAMA_HOST, read the way
	// Ollama's own client reads it (default http://127.0.0.1:11434).
	Host *url.URL
	// Model is the model to chat with, such as "llama3.2:3b". Required.
	Model string
	// KeepAlive is how long the server keeps the model loaded after a
	// request; 0 leaves the server's default, negative keeps it forever.
	KeepAlive time.Duration
	// NumCtx is the context window in tokens; 0 leaves the model's default.
	NumCtx int
	// HTTPClient carries the requests; nil uses one whose connection attempt
	// gives up after DialTimeout, so a dead host on the LAN fails in seconds.
	HTTPClient *http.Client
}

// DialTimeout bounds connecting to the server with the default HTTP
// client, and LookupTimeout looking its name up.
const (
	DialTimeout   = 3 * time.Second
	LookupTimeout = 4 * time.Second
)

// Client talks to one Ollama server about one model. It is safe for
// concurrent use.
type Client struct {
	api  *api.Client
	hc   *http.Client
	host *url.URL
	o    Options
}

// New returns a Client for o.
func New(o Options) (*Client, error) {
	if o.Model == "" {
		return nil, errors.New("llm: no model configured")
	}
	host := o.Host
	if host == nil {
		host = envconfig.Host()
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment,
			// The name is looked up within its own budget: a resolver that
			// says nothing is named (DNS), not taken for a slow model.
			DialContext:         netdial.Dialer(netdial.Options{Lookup: LookupTimeout, Connect: DialTimeout, KeepAlive: 30 * time.Second}),
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
		}}
	}
	return &Client{api: api.NewClient(host, hc), hc: hc, host: host, o: o}, nil
}

// Model is the model the client chats with by default.
func (c *Client) Model() string { return c.o.Model }

// Host is the server's base URL.
func (c *Client) Host() *url.URL { return c.host }

// Next is the server and model requests go to: the client's own, as a
// Chain's Next is the one of its servers the next request goes to.
func (c *Client) Next() (host *url.URL, model string) { return c.host, c.o.Model }

// Chat sends req. With onChunk set the answer streams: onChunk sees each
// piece as it arrives, and an error it returns stops the answer. With onChunk
// nil the answer comes whole. Either way Chat returns the whole answer.
func (c *Client) Chat(ctx context.Context, req Request, onChunk func(Chunk) error) (Response, error) {
	areq, err := c.request(req, onChunk != nil)
	if err != nil {
		return Response{}, fmt.Errorf("llm: chat: %w", err)
	}
	var (
		out      Response
		content  strings.Builder
		thinking strings.Builder
		done     bool
		cbErr    error
	)
	err = c.chat(ctx, areq, func(r api.ChatResponse) error {
		calls, err := toolCalls(r.Message.ToolCalls)
		if err != nil {
			return err
		}
		content.WriteString(r.Message.Content)
		thinking.WriteString(r.Message.Thinking)
		out.Message.ToolCalls = append(out.Message.ToolCalls, calls...)
		if onChunk != nil && (r.Message.Content != "" || r.Message.Thinking != "" || len(calls) > 0) {
			if err := onChunk(Chunk{Content: r.Message.Content, Thinking: r.Message.Thinking, ToolCalls: calls}); err != nil {
				cbErr = err
				return err
			}
		}
		if r.Done {
			done = true
			out.DoneReason = r.DoneReason
			out.PromptTokens = r.PromptEvalCount
			out.OutputTokens = r.EvalCount
			out.Duration = r.TotalDuration
			out.PromptDuration = r.PromptEvalDuration
			out.EvalDuration = r.EvalDuration
			out.LoadDuration = r.LoadDuration
		}
		return nil
	})
	out.Model, out.Server = c.o.Model, c.host.Redacted()
	out.Message.Role = RoleAssistant
	out.Message.Content = content.String()
	out.Message.Thinking = thinking.String()
	switch {
	case cbErr != nil:
		return out, cbErr
	case err != nil:
		return out, c.classify("chat", err)
	case !done && ctx.Err() != nil:
		// A deadline or cancel mid-stream is named as such, not as a cut.
		return out, c.classify("chat", ctx.Err())
	case !done:
		// The official client stops quietly when the connection drops
		// mid-stream; only the missing done chunk tells.
		return out, fmt.Errorf("llm: chat: %w", ErrStreamCut)
	}
	return out, nil
}

func (c *Client) request(req Request, stream bool) (*api.ChatRequest, error) {
	model := req.Model
	if model == "" {
		model = c.o.Model
	}
	msgs, err := apiMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	tools, err := apiTools(req.Tools)
	if err != nil {
		return nil, err
	}
	areq := &api.ChatRequest{Model: model, Messages: msgs, Stream: &stream, Tools: tools, Format: req.Format}
	if c.o.NumCtx > 0 || req.MaxTokens > 0 {
		areq.Options = map[string]any{}
	}
	if c.o.NumCtx > 0 {
		areq.Options["num_ctx"] = c.o.NumCtx
	}
	if req.MaxTokens > 0 {
		areq.Options["num_predict"] = req.MaxTokens
	}
	if c.o.KeepAlive != 0 {
		areq.KeepAlive = &api.Duration{Duration: c.o.KeepAlive}
	}
	if req.Think != nil {
		areq.Think = &api.ThinkValue{Value: *req.Think}
	}
	return areq, nil
}

// Show asks the server about a model ("" for the client's own).
func (c *Client) Show(ctx context.Context, model string) (ModelInfo, error) {
	if model == "" {
		model = c.o.Model
	}
	r, err := c.api.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return ModelInfo{}, c.classify("show "+model, err)
	}
	if !ollamaShow(r) {
		return ModelInfo{}, fmt.Errorf("llm: show %s: %w", model, c.notOllama("it answered without a model's details"))
	}
	info := ModelInfo{
		Name: model, Family: r.Details.Family, ParameterSize: r.Details.ParameterSize,
		Quantization: r.Details.QuantizationLevel, Template: r.Template,
		NumPredict: numPredict(r.Parameters),
	}
	for _, cap := range r.Capabilities {
		info.Capabilities = append(info.Capabilities, string(cap))
	}
	for k, v := range r.ModelInfo {
		n, ok := v.(float64) // JSON numbers
		switch {
		case !ok:
		case k == "general.parameter_count":
			info.Parameters = int64(n)
		case strings.HasSuffix(k, ".context_length"):
			info.ContextLength = int(n)
		}
	}
	return info, nil
}

// numPredict reads the num_predict of a model's parameters as the server
// shows them: a line each, the name, blanks and the value. 0 when they
// set none.
func numPredict(params string) int {
	for line := range strings.Lines(params) {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_predict" {
			if n, err := strconv.Atoi(f[1]); err == nil {
				return n
			}
		}
	}
	return 0
}

// Version asks the server for its version; it doubles as a reachability check.
func (c *Client) Version(ctx context.Context) (string, error) {
	v, err := c.api.Version(ctx)
	if err != nil {
		return "", c.classify("version", err)
	}
	if v == "" {
		return "", fmt.Errorf("llm: version: %w", c.notOllama("it answered without a version"))
	}
	return v, nil
}

// classify maps a failure of the official client to this package's errors.
func (c *Client) classify(op string, err error) error {
	var (
		se     api.StatusError
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
		not    *notOllama
	)
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.As(err, &not):
		return fmt.Errorf("llm: %s: %w", op, err)
	case errors.As(err, &se) && se.ErrorMessage == "":
		return fmt.Errorf("llm: %s: %w", op, &notOllama{server: redacted(c.host), what: fmt.Sprintf("it answered %s without Ollama's error", statusLine(se.StatusCode))})
	case errors.As(err, &se) && rawMessage(se.ErrorMessage):
		// The official client gives a body it could not read as Ollama's
		// error whole, as the message.
		return fmt.Errorf("llm: %s: %w", op, notOllamaBody(c.host, statusLine(se.StatusCode), []byte(se.ErrorMessage)))
	case errors.As(err, &syntax), errors.As(err, &typ):
		// The official client could not read a success's body.
		return fmt.Errorf("llm: %s: %w", op, &notOllama{server: redacted(c.host), what: "it answered with something that is not Ollama's JSON"})
	case errors.As(err, &se):
		switch {
		case se.StatusCode == http.StatusNotFound:
			return fmt.Errorf("llm: %s: %w: %s", op, ErrModelNotFound, se.ErrorMessage)
		case se.StatusCode == http.StatusBadRequest && strings.Contains(se.ErrorMessage, "does not support tools"):
			return fmt.Errorf("llm: %s: %w: %s", op, ErrNoTools, se.ErrorMessage)
		}
		if se.StatusCode >= http.StatusInternalServerError {
			return fmt.Errorf("llm: %s: %w: server answered %d: %s", op, ErrServerFailed, se.StatusCode, se.ErrorMessage)
		}
		return fmt.Errorf("llm: %s: server answered %d: %s", op, se.StatusCode, se.ErrorMessage)
	case unreachable(err):
		return fmt.Errorf("llm: %s: %w: %w", op, ErrUnreachable, err)
	}
	return fmt.Errorf("llm: %s: %w", op, err)
}

func unreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	var ue *url.Error
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) || errors.As(err, &dns) ||
		(errors.As(err, &op) && op.Op == "dial") ||
		// The server went away before it answered: a kept-alive connection
		// it closed (net/http says so in words only: its error is
		// unexported), or one it reset.
		errors.As(err, &ue) && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
			strings.Contains(ue.Err.Error(), "server closed idle connection"))
}

// The official client's message and tool types change between releases
// (ordered maps, new fields); going through their JSON form, which is the
// stable wire format, keeps Hark's types independent of them.

type wireCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"function"`
}

type wireMessage struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []wireCall `json:"tool_calls,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

func apiMessages(msgs []Message) ([]api.Message, error) {
	wire := make([]wireMessage, len(msgs))
	for i, m := range msgs {
		wire[i] = wireMessage{Role: m.Role, Content: m.Content, Thinking: m.Thinking, ToolName: m.ToolName, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			var w wireCall
			w.ID, w.Function.Name, w.Function.Arguments = c.ID, c.Name, c.Arguments
			if w.Function.Arguments == nil {
				w.Function.Arguments = map[string]any{}
			}
			wire[i].ToolCalls = append(wire[i].ToolCalls, w)
		}
	}
	var out []api.Message
	return out, roundTrip(wire, &out)
}

func apiTools(tools []Tool) (api.Tools, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	type fn struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type tool struct {
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	wire := make([]tool, len(tools))
	for i, t := range tools {
		params := hinted(t.Parameters)
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		wire[i] = tool{Type: "function", Function: fn{Name: t.Name, Description: t.Description, Parameters: params}}
	}
	var out api.Tools
	return out, roundTrip(wire, &out)
}

func toolCalls(calls []api.ToolCall) ([]ToolCall, error) {
	if len(calls) == 0 {
		return nil, nil
	}
	var wire []wireCall
	if err := roundTrip(calls, &wire); err != nil {
		return nil, err
	}
	out := make([]ToolCall, len(wire))
	for i, w := range wire {
		out[i] = ToolCall{ID: w.ID, Name: w.Function.Name, Arguments: w.Function.Arguments}
	}
	return out, nil
}

func roundTrip(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// hinted moves the schema hints Ollama's tool types cannot carry (a
// string's format, seed 001's _refinable) into the property's description,
// so the model still reads them: "ISO 8601, e.g. PT5M (format: duration;
// the user may change it right after)".
func hinted(params json.RawMessage) json.RawMessage {
	var schema map[string]any
	if len(params) == 0 || json.Unmarshal(params, &schema) != nil {
		return params
	}
	props, _ := schema["properties"].(map[string]any)
	changed := false
	var hint func(p map[string]any) []string
	hint = func(p map[string]any) []string {
		var notes []string
		if f, ok := p["format"].(string); ok {
			notes = append(notes, "format: "+f)
			delete(p, "format")
		}
		if r, ok := p["_refinable"].(bool); ok {
			if r {
				notes = append(notes, "the user may change it right after")
			}
			delete(p, "_refinable")
		}
		if items, ok := p["items"].(map[string]any); ok {
			for _, n := range hint(items) {
				notes = append(notes, "each item's "+n)
			}
		}
		return notes
	}
	// Ollama keeps an object property's properties but not its required
	// list: that goes into its description too, at every depth.
	var walk func(props map[string]any)
	walk = func(props map[string]any) {
		for _, v := range props {
			p, ok := v.(map[string]any)
			if !ok {
				continue
			}
			notes := hint(p)
			if sub, ok := p["properties"].(map[string]any); ok {
				if req, ok := p["required"].([]any); ok && len(req) > 0 {
					var names []string
					for _, r := range req {
						names = append(names, fmt.Sprint(r))
					}
					notes = append(notes, "required: "+strings.Join(names, ", "))
				}
				walk(sub)
			}
			if len(notes) > 0 {
				d, _ := p["description"].(string)
				p["description"] = strings.TrimSpace(d + " (" + strings.Join(notes, "; ") + ")")
				changed = true
			}
		}
	}
	walk(props)
	if !changed {
		return params
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return params
	}
	return b
}

// Chatter is a model to chat with: a Client, a Chain, or a test's double.
// The reply engine and its helpers (planner, router, distil, memory) ask
// their models through it.
type Chatter interface {
	// Chat sends req and streams the answer to onChunk; see Client.Chat.
	Chat(ctx context.Context, req Request, onChunk func(Chunk) error) (Response, error)
}

var (
	_ Chatter = (*Client)(nil)
	_ Chatter = (*Chain)(nil)
)
