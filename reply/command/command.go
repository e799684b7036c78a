// Package command is Hark's command framework: typed commands that the reply
// engine offers the model as tools and that the offline path runs without a
// model. A command declares its parameters, secrets, examples and rules, and
// the sentence-template intents (locale/intent) it carries out offline; the
// framework renders it as a tool schema and takes every call through the
// same steps: argument repair, secrets, required parameters, value
// validation, auto-correction, and finally Run.
package command

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"
)

// Parameter is one argument of a command.
type Parameter struct {
	Name string
	// Type is written as in ParseType: "int", "array<datetime>", "str[]".
	Type        string
	Required    bool
	Description string
	// Default is used when the argument is absent; nil for none.
	Default any
	// Enum lists the allowed values, compared as strings.
	Enum []string
	// Refinable marks a value the user may change right after the command
	// ran ("make it louder", "actually ten minutes").
	Refinable bool
	// Follow marks the part of the call a short "and …" follow-up said
	// within the refine window changes ("and in Paris?", "and tomorrow?",
	// "and times 3?"); zero for none.
	Follow Follow
	// Check is custom validation of a present, well-typed value.
	Check func(v any) error
	// Quantity marks a value said as a quantity (a time of day, a
	// duration, a day, a number): taken from a template's slot, it is read
	// from the user's language into English first, then by ParseSlot when
	// set (an error leaves the utterance unresolved).
	Quantity  bool
	ParseSlot func(english string) (any, error)
	// Ask is the question the offline path asks when the parameter is
	// missing ("For how long?"), as a catalogue key (locale.Key): the call
	// waits for the answer, which refines it ("5 minutes"). Empty: the
	// call fails and says what is missing.
	Ask string

	typ Type
}

// Secret is a credential a command needs.
type Secret struct {
	Key         string
	Description string
	Required    bool
}

// Example is an utterance and the call it should make.
type Example struct {
	Utterance string
	Arguments map[string]any
}

// Command is one command. Name, Description and Run are required; the
// hooks are optional.
type Command struct {
	Name        string
	Description string
	Keywords    []string
	Parameters  []Parameter
	Secrets     []Secret
	Examples    []Example
	// Rules and Antipatterns guide the model: when to use the command and
	// when not to.
	Rules        []string
	Antipatterns []string
	// DirectAnswer allows the model to answer without calling the command.
	DirectAnswer bool
	// Local says the command keeps its arguments on this machine (timers,
	// memory, arithmetic). Only a local command gets back the values
	// redaction hid from the model (passwords, codes, addresses the user
	// said); a call that would send one elsewhere — a web lookup, an MCP
	// server, a node's tool, the house — is refused, and the model is told
	// the value is withheld.
	Local bool

	// Intents are the intents of the sentence templates (locale/intent)
	// the command carries out offline; FromIntent makes the call's
	// arguments from a match, or returns an error wrapping ErrUnresolved
	// when a slot names nothing it knows. A command named as an intent of
	// Hark's own templates needs neither: the slots are its arguments.
	Intents    []string
	FromIntent func(ctx context.Context, m Match) (Claim, error)
	// Hidden keeps the command from the model: the offline path alone
	// reaches it (Home Assistant's intents as the service calls they make).
	// Alias names the command the model uses for the same requests.
	Hidden bool
	Alias  string
	// PostProcess repairs a model's arguments using the raw utterance.
	PostProcess func(args Args, utterance string) Args
	// Validate checks the arguments as a whole; a Problem with Suggest set
	// corrects the argument instead of failing.
	Validate func(ctx context.Context, args Args) []Problem
	// Refine turns a follow-up utterance into new arguments for the last
	// call of this command; without it, refinable parameters are read from
	// the utterance by their type.
	Refine func(text string, last Args) (Args, bool)
	// Run carries the command out.
	Run func(ctx context.Context, c Call) (Response, error)
	// Setup runs an interactive first-time setup (hark commands setup NAME).
	Setup func(ctx context.Context, io SetupIO) error

	// Schema, when set, is the JSON schema of the arguments the model sees,
	// passed as is (an MCP server's, with nested items and properties);
	// Parameters still check the top-level arguments. Nil renders the
	// schema from Parameters.
	Schema map[string]any
	// About is what the tool search reads about the command besides its
	// description: for an MCP tool, its server's instructions.
	About string
}

// ErrNotMine is what a FromIntent returns for a match that another
// command declaring the same intent carries out ("set the volume to 50"
// is the speaker's own, "set the TV's volume to 50" Home Assistant's).
var ErrNotMine = errors.New("command: another command's")

// Claim is the offline path's decision to handle an utterance.
type Claim struct {
	Arguments map[string]any
	// Spoken, when set, is said instead of the response's own sentence.
	Spoken string
	// Unplaced says the request acts on devices by place (switches them,
	// sets them, asks about them) and names no device, room or floor: it
	// acts where the speaker stands, or on the whole house. The user may
	// be about to name one ("turn on all the lights … on the ground
	// floor"), so Complete does not take it for a whole request.
	Unplaced bool
	// Absent says the claim only tells the user that the thing they named
	// is not in the place they said. The offline path carries out instead
	// a lesser match of the same intent that says that place and names no
	// thing ("the thermostat in the kitchen" as the kitchen's thermostat,
	// not the one called "Thermostat" elsewhere), when one resolves.
	Absent bool
}

// Args are a call's arguments after validation: time kinds parsed into
// time.Time and time.Duration, numbers as float64 or int64.
type Args map[string]any

// String returns a string argument, or "".
func (a Args) String(name string) string { s, _ := a[name].(string); return s }

// Int returns an integer argument, or 0.
func (a Args) Int(name string) int64 {
	switch v := a[name].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

// Float returns a number argument, or 0.
func (a Args) Float(name string) float64 {
	switch v := a[name].(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// Bool returns a boolean argument, or false.
func (a Args) Bool(name string) bool { b, _ := a[name].(bool); return b }

// Duration returns a timedelta argument, or 0.
func (a Args) Duration(name string) time.Duration { d, _ := a[name].(time.Duration); return d }

// Time returns a datetime, date or time argument, or the zero time.
func (a Args) Time(name string) time.Time { t, _ := a[name].(time.Time); return t }

// Has reports whether the argument is present.
func (a Args) Has(name string) bool { _, ok := a[name]; return ok }

// Call is one run of a command.
type Call struct {
	Args Args
	// Utterance is what the user said, as transcribed.
	Utterance string
	// Language is the utterance's language code ("en", "de"), detected or
	// configured; "" when unknown.
	Language string
	// Now is the current time in the configured time zone.
	Now time.Time
	// ClockUnset is set when Now cannot be trusted: the box's clock has
	// not been set yet (a board without a real-time clock, before NTP).
	ClockUnset bool
	// Refines is the context of the call being refined, when this call
	// changes the last one ("actually ten minutes"); nil otherwise.
	Refines map[string]any
}

// Kind is what a response means for the conversation.
type ResponseKind int

// The response kinds.
const (
	Success ResponseKind = iota
	// FollowUp succeeded and waits for the user: the microphone reopens.
	FollowUp
	// Failure could not be done; Spoken says why.
	Failure
	// Invalid had arguments that did not validate; Problems say which.
	Invalid
)

// Response is a command's answer.
type Response struct {
	Kind ResponseKind
	// Data is the context the model phrases its answer from.
	Data map[string]any
	// Spoken is a complete spoken answer, said as is on the offline path.
	Spoken   string
	Problems []Problem
	// EndConversation closes the conversation: the next question starts
	// afresh and nothing refines this call (the stop command).
	EndConversation bool
	// Reveal lists secrets in Data the user explicitly asked for: the
	// model sees them redacted like any secret, and the box may say them
	// aloud where the model's answer names them.
	Reveal []string
}

// Problem is one argument that did not validate.
type Problem struct {
	Param   string
	Message string
	// Valid lists the values that would have been accepted.
	Valid []string
	// Suggest, when set, replaces the argument (auto-correction).
	Suggest any
}

// Said returns a Success response that says s and gives the model data.
func Said(s string, data map[string]any) Response {
	return Response{Kind: Success, Spoken: s, Data: data}
}

// Failed returns a Failure response that says s.
func Failed(s string) Response { return Response{Kind: Failure, Spoken: s} }

// SetupIO is the terminal an interactive setup talks through.
type SetupIO interface {
	// Ask shows a question and returns the answer typed.
	Ask(question string) (string, error)
	// Say shows a line.
	Say(line string)
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// check validates a command at registration and parses its parameter types.
func (c *Command) check() error {
	if !nameRE.MatchString(c.Name) {
		return fmt.Errorf("command: name %q must be lower snake case", c.Name)
	}
	if c.Description == "" || c.Run == nil {
		return fmt.Errorf("command %s: needs a description and Run", c.Name)
	}
	seen := map[string]bool{}
	for i := range c.Parameters {
		p := &c.Parameters[i]
		if !nameRE.MatchString(p.Name) || seen[p.Name] {
			return fmt.Errorf("command %s: parameter name %q is not lower snake case or is repeated", c.Name, p.Name)
		}
		seen[p.Name] = true
		t, err := ParseType(p.Type)
		if err != nil {
			return fmt.Errorf("command %s: parameter %s: %w", c.Name, p.Name, err)
		}
		p.typ = t
	}
	return nil
}

// ErrUnknown reports a call to a command that is not registered.
var ErrUnknown = errors.New("command: no such command")
