package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Errors a resource returns (wrapped) to choose the HTTP status; the client
// turns the status back into the same sentinel, so errors.Is works on both
// sides of the socket.
var (
	ErrInvalid     = errors.New("control: invalid request")
	ErrNotFound    = errors.New("control: not found")
	ErrConflict    = errors.New("control: conflict")
	ErrFull        = errors.New("control: storage is full")
	ErrUnavailable = errors.New("control: unavailable")
	ErrForbidden   = errors.New("control: forbidden")
)

// Alert is a timer, alarm or reminder, as listed.
type Alert struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // timer, alarm or reminder
	Name string `json:"name,omitempty"`
	// Due is when it goes off, in the box's time zone (Zone).
	Due     time.Time `json:"due"`
	Repeats bool      `json:"repeats,omitempty"`
	// Zone is the box's time zone (an IANA name), in which Due is read.
	Zone string `json:"zone,omitempty"`
	// Left is how long until Due on the box's clock when it answered;
	// negative when overdue.
	Left time.Duration `json:"left"`
	// Held marks an alarm set before the box's clock was set: it goes
	// off at the next Due hour and minute once the clock is set, and Due's
	// date means nothing until then.
	Held bool `json:"held,omitempty"`
	// Ringing is set while it rings, or waits its turn to ring: Stop or
	// Cancel silences it.
	Ringing bool `json:"ringing,omitempty"`
}

// Stopped is what POST /api/v1/alerts/stop answers: whether anything
// rang.
type Stopped struct {
	Stopped bool `json:"stopped"`
}

// NewAlert is what POST /api/v1/alerts carries: a timer In from now, or an
// alarm or reminder At a time.
type NewAlert struct {
	Kind string        `json:"kind"` // timer, alarm or reminder
	Name string        `json:"name,omitempty"`
	In   time.Duration `json:"in,omitempty"`
	At   time.Time     `json:"at,omitzero"`
}

// Alerts are the running timers, alarms and reminders.
type Alerts interface {
	// Add sets one; ErrInvalid names what is wrong with it.
	Add(ctx context.Context, a NewAlert) (Alert, error)
	// List returns what rings first, then the pending timers, and with
	// all the alarms and reminders too, soonest first.
	List(ctx context.Context, all bool) ([]Alert, error)
	// Cancel silences one that rings, or removes one still to come; ref
	// is its id or its name. ErrNotFound when none has that id or name,
	// ErrConflict when several have that name.
	Cancel(ctx context.Context, ref string) error
	// Stop silences everything that rings, reporting whether anything
	// did.
	Stop(ctx context.Context) (bool, error)
}

// SecretValue is what PUT /api/v1/secrets/{name} carries.
type SecretValue struct {
	Value string `json:"value"`
}

// Secrets are the credentials the commands need. Values go in, never out.
type Secrets interface {
	Names(ctx context.Context) ([]string, error)
	Set(ctx context.Context, name, value string) error
	Unset(ctx context.Context, name string) error
}

// Param is one parameter of a command.
type Param struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required,omitempty"`
}

// SecretState is whether a secret a command uses is set.
type SecretState struct {
	Key      string `json:"key"`
	Required bool   `json:"required,omitempty"`
	// State is "set", "not set" or "unreadable".
	State string `json:"state"`
}

// CommandInfo describes one command the assistant can run.
type CommandInfo struct {
	Name       string        `json:"name"`
	Parameters []Param       `json:"parameters,omitempty"`
	Secrets    []SecretState `json:"secrets,omitempty"`
	// Setup is set when the command has an interactive setup.
	Setup bool `json:"setup,omitempty"`
}

// SetupIO is a command's setup conversation with the user.
type SetupIO interface {
	// Ask shows q and returns the user's answer.
	Ask(q string) (string, error)
	// Say shows a line.
	Say(line string)
}

// AsksSecret reports whether a setup's question asks for something not to
// be shown as it is typed: a token, a password, a key or a secret.
func AsksSecret(question string) bool {
	q := strings.ToLower(question)
	for _, w := range []string{"token", "password", "passphrase", "key", "secret"} {
		if strings.Contains(q, w) {
			return true
		}
	}
	return false
}

// Commands are the assistant's commands.
type Commands interface {
	List(ctx context.Context) ([]CommandInfo, error)
	// Setup runs the named command's setup through io; ErrNotFound when
	// there is no such command or it has no setup.
	Setup(ctx context.Context, name string, io SetupIO) error
}

// MCPTool is one tool an MCP server gave the catalogue.
type MCPTool struct {
	Name   string `json:"name"`   // the name the model sees
	Remote string `json:"remote"` // the server's own name for it
	// Confirm is set when the tool asks the user before it runs.
	Confirm bool `json:"confirm,omitempty"`
}

// MCPServer is one configured MCP server and its state.
type MCPServer struct {
	Name      string `json:"name"`
	Transport string `json:"transport"` // stdio or http
	// State is "not started", "connecting", "up", "down" or "stopped".
	State    string    `json:"state"`
	Error    string    `json:"error,omitempty"`
	Tools    []MCPTool `json:"tools"`
	Restarts int       `json:"restarts,omitempty"`
	Since    time.Time `json:"since,omitzero"`
	// Warnings are problems of the server's configuration its tools
	// revealed (an allow, deny or confirm name that matches no tool).
	Warnings []string `json:"warnings,omitempty"`
}

// MCP is the MCP servers whose tools the assistant uses.
type MCP interface {
	Servers(ctx context.Context) ([]MCPServer, error)
}

// Setting is one configuration key a user changes on the web page.
type Setting struct {
	Key     string   `json:"key"`
	Value   string   `json:"value"` // the value the daemon runs with
	Help    string   `json:"help,omitempty"`
	Choices []string `json:"choices,omitempty"`
	// Source is where the running value came from: default, the file,
	// the settings, the environment or a flag.
	Source string `json:"source"`
	// Locked says why the page cannot change it (the environment or a
	// flag sets it); "" when it can.
	Locked string `json:"locked,omitempty"`
	// Saved is the value kept for the next start, when it differs from
	// the running one: a restart applies it.
	Saved string `json:"saved,omitempty"`
}

// SettingValue is what PUT /api/v1/settings/{key} carries.
type SettingValue struct {
	Value string `json:"value"`
}

// Settings are the configuration keys a user changes, kept over the
// configuration file; a change applies at the next start.
type Settings interface {
	List(ctx context.Context) ([]Setting, error)
	// Set checks value by the configuration's rules and keeps it;
	// ErrInvalid says what is wrong.
	Set(ctx context.Context, key, value string) error
	// Restart starts the daemon again, with the settings kept.
	Restart(ctx context.Context) error
}

// UpdateSlot is one of the A/B slots.
type UpdateSlot struct {
	Name    string `json:"name"`
	State   string `json:"state,omitempty"`   // booted, inactive...
	Version string `json:"version,omitempty"` // the bundle installed in it
	Good    string `json:"good,omitempty"`    // its boot status: good or bad
}

// UpdateJob is an install under way, or the last one.
type UpdateJob struct {
	Running bool   `json:"running"`
	Phase   string `json:"phase,omitempty"` // downloading, installing, installed, failed
	Percent int    `json:"percent"`
	Version string `json:"version,omitempty"`
	Error   string `json:"error,omitempty"`
}

// UpdateStatus is the firmware: what runs, what is offered, the slots.
type UpdateStatus struct {
	Running string       `json:"running"`
	Slots   []UpdateSlot `json:"slots,omitempty"`
	// Offered is the version the last check found, and whether it is
	// newer than the running one.
	Offered string    `json:"offered,omitempty"`
	Newer   bool      `json:"newer,omitempty"`
	Job     UpdateJob `json:"job"`
	// Last is the last install's result, as a sentence.
	Last string `json:"last,omitempty"`
	// Skipped is why the update timer last left an offered version alone
	// (it failed its boot check, is older, could not be downloaded or
	// verified, the box was busy), as a sentence; "" when it did not, or
	// an install succeeded since.
	Skipped string `json:"skipped,omitempty"`
	// Other is the slot a rollback boots; "" when there is none.
	Other string `json:"other,omitempty"`
}

// UpdateSource is what POST /api/v1/updates/install carries: a bundle's
// URL or file on the box; "" installs what the manifest offers.
type UpdateSource struct {
	Source string `json:"source,omitempty"`
}

// Updates are the firmware updates.
type Updates interface {
	Status(ctx context.Context) (UpdateStatus, error)
	// Check asks the update server what it offers.
	Check(ctx context.Context) (UpdateStatus, error)
	// Install starts installing in the background (Status shows the
	// progress); ErrConflict while another runs. The box reboots into it
	// when idle.
	Install(ctx context.Context, source string) error
	// Upload keeps a bundle sent from a browser, then installs it.
	Upload(ctx context.Context, r io.Reader) error
	// Rollback boots the other slot.
	Rollback(ctx context.Context) error
}

// WebCode is the web page's one-time setup code, while the page waits for
// its first visit.
type WebCode struct {
	Pending bool   `json:"pending"`
	Code    string `json:"code,omitempty"`
}

// Web is the box's web page.
type Web interface {
	Code(ctx context.Context) (WebCode, error)
	// Reset forgets the page's password and returns the new setup code
	// its next visit asks for; nothing else is forgotten.
	Reset(ctx context.Context) (WebCode, error)
}

// ModelServer is what a model server offers, as the welcome asks it.
type ModelServer struct {
	// Host is the server's address as Hark reads what was typed.
	Host    string  `json:"host"`
	Version string  `json:"version,omitempty"`
	Models  []Model `json:"models"`
}

// Model is one model a server has pulled.
type Model struct {
	Name          string `json:"name"`
	Family        string `json:"family,omitempty"`
	ParameterSize string `json:"parameter_size,omitempty"`
	Size          int64  `json:"size,omitempty"` // bytes on the server's disk
}

// Trial is a model's answer to the welcome's test question.
type Trial struct {
	Question string        `json:"question"`
	Answer   string        `json:"answer"`
	Took     time.Duration `json:"took"`
}

// ModelTrial is what POST /api/v1/models/try carries.
type ModelTrial struct {
	Host  string `json:"host"`
	Model string `json:"model"`
}

// Probe checks what the welcome is told before it is kept.
type Probe interface {
	// Models asks the model server at host (an address as OLLAMA_HOST is
	// written) for its models. ErrInvalid says what is wrong with an
	// address that is not one; ErrUnavailable, naming the host, that no
	// server answers there.
	Models(ctx context.Context, host string) (ModelServer, error)
	// Try asks model on the server at host a short test question.
	Try(ctx context.Context, host, model string) (Trial, error)
}

// Turn is one turn of talk, as the page's live view shows it: what was
// heard (or typed), what was said, and how long each stage took, in
// milliseconds (0 for a stage the turn did not have).
type Turn struct {
	ID     string    `json:"id"`
	At     time.Time `json:"at"`
	Source string    `json:"source"` // "voice" or "typed"
	Heard  string    `json:"heard"`
	Said   string    `json:"said"`
	// Cut is set when a press or a stop cut the reply short: Said is what
	// was said of it.
	Cut   bool   `json:"cut,omitempty"`
	Error string `json:"error,omitempty"`
	// Endpoint is from the press to the end of the utterance; Transcribe
	// the transcription; FirstToken from the question to the model's
	// first word; FirstAudio from the end of the utterance to the first
	// sound of the reply; Total the whole reply.
	Endpoint   float64 `json:"endpoint_ms"`
	Transcribe float64 `json:"transcribe_ms"`
	FirstToken float64 `json:"first_token_ms"`
	FirstAudio float64 `json:"first_audio_ms"`
	Total      float64 `json:"total_ms"`
}

// Voice reads text aloud in the box's own voice.
type Voice interface {
	// WAV is text spoken in the voice of language ("" for the box's own),
	// as a WAV file; ErrUnavailable when the box has no voice.
	WAV(ctx context.Context, text, language string) ([]byte, error)
}

// Turns are the last turns of talk, oldest first.
type Turns interface {
	Turns(ctx context.Context) ([]Turn, error)
}

// Fact is one thing the assistant was asked to remember.
type Fact struct {
	ID   string    `json:"id"`
	Text string    `json:"text"`
	At   time.Time `json:"at"`
}

// Exchange is one question and its answer.
type Exchange struct {
	At        time.Time `json:"at"`
	User      string    `json:"user"`
	Assistant string    `json:"assistant"`
}

// Conversation is the exchanges of one conversation, oldest first.
type Conversation struct {
	ID        string     `json:"id"`
	Exchanges []Exchange `json:"exchanges"`
}

// Memory is what the assistant remembers.
type Memory interface {
	Facts(ctx context.Context) ([]Fact, error)
	// Forget deletes a fact; ErrNotFound when there is none with that id.
	Forget(ctx context.Context, id string) error
	// Conversations returns the conversations, newest first.
	Conversations(ctx context.Context) ([]Conversation, error)
	// DeleteConversation deletes every exchange of one; ErrNotFound when
	// there is none with that id.
	DeleteConversation(ctx context.Context, id string) error
}

// Question is what POST /api/v1/ask carries. Each question starts a
// conversation of its own, unless it continues one of the asker's: the
// one named, or with Continue the asker's last.
type Question struct {
	Text     string `json:"text"`
	Language string `json:"language,omitempty"`
	// Conversation continues that conversation, which must be the
	// asker's (a result's "conversation" names it).
	Conversation string `json:"conversation,omitempty"`
	// Continue continues the asker's last conversation.
	Continue bool `json:"continue,omitempty"`
	// Asker names who asks where the caller knows better than the API's
	// identity: the web page's talk box names its session, whose
	// conversation is its own. Never read from the wire.
	Asker string `json:"-"`
}

// AskEvent is one line of the ask stream: a sentence, a notice, or last
// the result.
type AskEvent struct {
	Sentence string `json:"sentence,omitempty"`
	// Notice is a line for the asker that is no part of the answer: the
	// model is loading, or the server is answering others first.
	Notice string          `json:"notice,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	// Hint says what the user can do about Error, when there is something.
	Hint string `json:"hint,omitempty"`
}

// WithHint attaches to err a short line on what the user can do about it,
// which the ask stream carries beside the error.
func WithHint(err error, hint string) error { return &HintError{Err: err, Hint: hint} }

// HintError is an error with a hint for the user: what WithHint returns,
// and what Client.Ask returns for a failed reply.
type HintError struct {
	Err  error
	Hint string
}

func (e *HintError) Error() string { return e.Err.Error() }
func (e *HintError) Unwrap() error { return e.Err }

// Asker answers typed questions through the reply engine.
type Asker interface {
	// Ask answers q, calling say once per sentence as it is ready and
	// notice with each line for the asker that is no part of the answer,
	// and returns the engine's result (marshalled to JSON for the client).
	Ask(ctx context.Context, q Question, say func(sentence string), notice func(line string)) (any, error)
}

// LogLines is what GET /api/v1/logs returns.
type LogLines struct {
	Lines []string `json:"lines"`
}

// Logs are the daemon's recent log lines.
type Logs interface {
	Tail(n int) []string
}

// API is everything the handlers serve. Box is required; a nil resource
// answers 404 saying this daemon does not serve it.
type API struct {
	Box      Box
	Alerts   Alerts
	Secrets  Secrets
	Commands Commands
	Memory   Memory
	MCP      MCP
	Web      Web
	Settings Settings
	Updates  Updates
	Asker    Asker
	Logs     Logs
	Probe    Probe
	Turns    Turns
	Voice    Voice
}

func notServed(what string) error {
	return fmt.Errorf("%w: this daemon does not serve %s", ErrNotFound, what)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// admin runs f for the local administrator and writes its error as JSON.
func admin(f func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := IdentityFrom(r.Context())
		switch {
		case !ok:
			writeError(w, http.StatusUnauthorized, "unauthenticated", "control: the request carries no identity")
			return
		case id.Role != Admin:
			writeError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("control: %s may not use the API (only root and the daemon's own user may)", id))
			return
		}
		if err := f(w, r); err != nil {
			status, code := classify(err)
			writeError(w, status, code, err.Error())
		}
	})
}

// classify maps an error to its HTTP status and code.
func classify(err error) (int, string) {
	switch {
	case errors.Is(err, ErrInvalid):
		return http.StatusBadRequest, "bad_request"
	case errors.Is(err, ErrNotFound):
		return http.StatusNotFound, "not_found"
	case errors.Is(err, ErrConflict):
		return http.StatusConflict, "conflict"
	case errors.Is(err, ErrFull):
		return http.StatusInsufficientStorage, "storage_full"
	case errors.Is(err, ErrForbidden):
		return http.StatusForbidden, "forbidden"
	case errors.Is(err, ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "unavailable"
	}
	return http.StatusInternalServerError, "internal"
}

// apiError is the JSON body of every error.
type apiError struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(apiError{Error: msg, Code: code})
}

func writeJSON(w http.ResponseWriter, v any) error {
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(v)
}

func noContent(w http.ResponseWriter, err error) error {
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// readJSON decodes a small JSON body strictly.
func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: the body is not the JSON expected: %v", ErrInvalid, err)
	}
	return nil
}
