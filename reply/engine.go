// Package reply turns what the user said into what Hark says. The Engine
// first offers the utterance to the commands' offline path, which answers
// timers, the time, the volume and the like without a model; everything else
// goes to the language model with the commands as tools, streaming the
// answer sentence by sentence to the caller as it is written. Every exchange
// is recorded.
//
// The voice pipeline and `hark ask` both call Engine.Reply: a typed question
// and a spoken one take exactly the same path.
package reply

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/storage"
)

// Chatter is the language model as the engine uses it; *llm.Client is one.
type Chatter interface {
	// Chat sends req and streams the answer to onChunk; see llm.Client.Chat.
	Chat(ctx context.Context, req llm.Request, onChunk func(llm.Chunk) error) (llm.Response, error)
}

// Dialogue is the record of exchanges; *storage.Dialogue is one.
type Dialogue interface {
	// Append stores e durably.
	Append(ctx context.Context, e storage.Exchange) error
	// Recent returns up to limit of the newest exchanges since a time, oldest first.
	Recent(ctx context.Context, since time.Time, limit int) ([]storage.Exchange, error)
}

// Options configure an Engine. Model is required; zero values elsewhere take
// the defaults given.
type Options struct {
	Model Chatter
	// ModelName is recorded with each exchange.
	ModelName string
	// Commands are offered as tools and tried first offline; nil for none.
	Commands *command.Registry
	// Dialogue keeps the conversation; nil remembers nothing.
	Dialogue Dialogue
	// Name is the assistant's name in its persona; default "Jarvis".
	Name string
	// Location is the time zone for telling the time; default time.Local.
	Location *time.Location
	// Now is the clock; default time.Now.
	Now func() time.Time
	// ChatTimeout bounds one model answer; default 60 s.
	ChatTimeout time.Duration
	// MaxTurns bounds the model calls of one reply; default 8.
	MaxTurns int
	// ConversationLapse ends a conversation after this much quiet; default 5 min.
	ConversationLapse time.Duration
	// HistoryTurns and HistoryChars cap the earlier exchanges sent with a
	// question; defaults 6 and 4000.
	HistoryTurns int
	HistoryChars int
	// Log receives one line per reply with timings, never the words. Nil discards.
	Log *slog.Logger
}

func (o *Options) defaults() {
	if o.Name == "" {
		o.Name = "Jarvis"
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ChatTimeout == 0 {
		o.ChatTimeout = 60 * time.Second
	}
	if o.MaxTurns == 0 {
		o.MaxTurns = 8
	}
	if o.ConversationLapse == 0 {
		o.ConversationLapse = 5 * time.Minute
	}
	if o.HistoryTurns == 0 {
		o.HistoryTurns = 6
	}
	if o.HistoryChars == 0 {
		o.HistoryChars = 4000
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
}

// Engine answers queries. It is safe for concurrent use, though Hark asks one
// question at a time.
type Engine struct {
	o   Options
	log *slog.Logger

	mu      sync.Mutex
	noTools bool // the model refused tools; ask without them from now on
}

// New returns an Engine for o.
func New(o Options) (*Engine, error) {
	if o.Model == nil {
		return nil, errors.New("reply: no model")
	}
	o.defaults()
	return &Engine{o: o, log: o.Log.With("pkg", "reply")}, nil
}

// Query is one thing the user said or typed.
type Query struct {
	Text     string
	Language string // BCP 47 code from speech recognition; may be empty
}

// Result describes a reply after it is complete.
type Result struct {
	// Text is everything said, sentence by sentence, joined by spaces.
	Text      string   `json:"reply"`
	Sentences []string `json:"sentences"`
	// Tools lists the commands run on the way, in order.
	Tools        []ToolUse `json:"tools"`
	Model        string    `json:"model"`
	Conversation string    `json:"conversation"`
	// Offline is set when a command answered without the model.
	Offline bool `json:"offline"`
	// FollowUp is set when the reply waits for the user: a command asked
	// for input, or the user must choose.
	FollowUp bool    `json:"follow_up"`
	Timings  Timings `json:"timings"`
}

// ToolUse is one command run while replying.
type ToolUse struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Failed    bool           `json:"failed"`
}

// Timings of one reply, from the moment Reply was called, and its cost in
// model calls and prompt characters.
type Timings struct {
	FirstToken    time.Duration
	FirstSentence time.Duration
	Total         time.Duration
	ModelCalls    int
	PromptChars   int
}

// MarshalJSON writes the durations in milliseconds.
func (t Timings) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		FirstToken    float64 `json:"first_token_ms"`
		FirstSentence float64 `json:"first_sentence_ms"`
		Total         float64 `json:"total_ms"`
		ModelCalls    int     `json:"model_calls"`
		PromptChars   int     `json:"prompt_chars"`
	}{ms(t.FirstToken), ms(t.FirstSentence), ms(t.Total), t.ModelCalls, t.PromptChars})
}

// turn is the state of one reply under way.
type turn struct {
	e      *Engine
	q      Query
	now    time.Time
	began  time.Time
	say    func(string)
	res    Result
	closed bool // the user ended the conversation
}

func (t *turn) speak(s string) {
	if t.res.Timings.FirstSentence == 0 {
		t.res.Timings.FirstSentence = time.Since(t.began)
	}
	t.res.Sentences = append(t.res.Sentences, s)
	t.say(s)
}

// Reply answers q, calling say with each sentence as soon as it is complete.
// When the model fails, Reply says one short sentence about it and returns the
// error; when ctx is done it stops at once and returns ctx.Err().
func (e *Engine) Reply(ctx context.Context, q Query, say func(sentence string)) (Result, error) {
	t := &turn{e: e, q: q, now: e.o.Now(), began: time.Now(), say: say}
	t.res = Result{Model: e.o.ModelName, Tools: []ToolUse{}}
	history, conv := e.history(ctx, t.now)
	t.res.Conversation = conv

	var err error
	if !t.offline(ctx) {
		err = t.converse(ctx, history)
	}
	if ctx.Err() != nil {
		return t.res, ctx.Err() // barge-in: say nothing more, record nothing
	}
	t.res.Text = strings.Join(t.res.Sentences, " ")
	t.res.Timings.Total = time.Since(t.began)
	e.record(ctx, storage.Exchange{At: t.now, Conversation: conv, User: q.Text, Assistant: t.res.Text,
		Model: e.o.ModelName, Failed: err != nil, Closed: t.closed})
	e.log.Info("reply", "model", e.o.ModelName, "offline", t.res.Offline, "dur_ms", ms(t.res.Timings.Total),
		"first_sentence_ms", ms(t.res.Timings.FirstSentence), "sentences", len(t.res.Sentences),
		"model_calls", t.res.Timings.ModelCalls, "prompt_chars", t.res.Timings.PromptChars, "tools", len(t.res.Tools), "failed", err != nil)
	return t.res, err
}

// offline runs the utterance through the commands' deterministic path and
// reports whether it was handled.
func (t *turn) offline(ctx context.Context) bool {
	reg := t.e.o.Commands
	if reg == nil {
		return false
	}
	rt, ok := reg.PreRoute(t.q.Text)
	if !ok {
		return false
	}
	resp := reg.RunRoute(ctx, rt, t.q.Text)
	t.res.Offline = true
	t.res.Tools = append(t.res.Tools, ToolUse{Name: rt.Command.Name, Arguments: rt.Claim.Arguments, Failed: resp.Kind == command.Failure || resp.Kind == command.Invalid})
	t.settle(resp)
	t.speakText(resp.Spoken)
	t.res.FollowUp = t.res.FollowUp || resp.Kind == command.Invalid && resp.Spoken != ""
	return true
}

// settle applies what a command's response means for the conversation.
func (t *turn) settle(resp command.Response) {
	if resp.Kind == command.FollowUp {
		t.res.FollowUp = true
	}
	if resp.EndConversation {
		t.closed = true
		if t.e.o.Commands != nil {
			t.e.o.Commands.Forget()
		}
	}
}

// speakText says a complete text sentence by sentence.
func (t *turn) speakText(text string) {
	var sp splitter
	for _, s := range sp.write(text) {
		t.speak(s)
	}
	if rest := sp.flush(); rest != "" {
		t.speak(rest)
	}
}

// record stores the exchange. A failure is logged and never breaks the reply;
// the store is written even if the turn is cancelled meanwhile.
func (e *Engine) record(ctx context.Context, x storage.Exchange) {
	if e.o.Dialogue == nil {
		return
	}
	if err := e.o.Dialogue.Append(context.WithoutCancel(ctx), x); err != nil {
		e.log.Warn("store exchange failed", "err", err)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
