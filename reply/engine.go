// Package reply turns what the user said into what Hark says. The Engine
// builds the prompt (persona, the conversation so far, the question), streams
// the model's answer through the llm gateway, hands each finished sentence to
// the caller to be spoken, and records the exchange.
//
// The voice pipeline and `hark ask` both call Engine.Reply: a typed question
// and a spoken one take exactly the same path.
package reply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/speech"
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
	// Tools lists the tools called on the way, in order.
	Tools        []ToolUse `json:"tools"`
	Model        string    `json:"model"`
	Conversation string    `json:"conversation"`
	Timings      Timings   `json:"timings"`
}

// ToolUse is one tool call made while replying.
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

// Reply answers q, calling say with each sentence as soon as it is complete.
// When the model fails, Reply says one short sentence about it and returns the
// error; when ctx is done it stops at once and returns ctx.Err().
func (e *Engine) Reply(ctx context.Context, q Query, say func(sentence string)) (Result, error) {
	began := time.Now()
	now := e.o.Now()
	res := Result{Model: e.o.ModelName, Tools: []ToolUse{}}
	speak := func(s string) {
		if res.Timings.FirstSentence == 0 {
			res.Timings.FirstSentence = time.Since(began)
		}
		res.Sentences = append(res.Sentences, s)
		say(s)
	}

	history, conv := e.history(ctx, now)
	res.Conversation = conv
	msgs := append([]llm.Message{{Role: llm.RoleSystem, Content: e.systemPrompt(now, q.Language)}}, history...)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: q.Text})
	res.Timings.PromptChars = promptChars(msgs)
	res.Timings.ModelCalls = 1

	cctx, cancel := context.WithTimeout(ctx, e.o.ChatTimeout)
	defer cancel()
	var split speech.Splitter
	_, err := e.o.Model.Chat(cctx, llm.Request{Messages: msgs}, func(c llm.Chunk) error {
		if c.Content == "" {
			return nil // thinking is kept by the model's history, never spoken
		}
		if res.Timings.FirstToken == 0 {
			res.Timings.FirstToken = time.Since(began)
		}
		for _, s := range split.Write(c.Content) {
			speak(s)
		}
		return nil
	})
	if ctx.Err() != nil {
		return res, ctx.Err() // barge-in: say nothing more
	}
	failed := err != nil
	if !failed {
		if rest := split.Flush(); rest != "" {
			speak(rest)
		}
		if len(res.Sentences) == 0 {
			failed = true
			err = errors.New("reply: the model's answer was empty")
			speak("Sorry, I have no answer to that.")
		}
	} else {
		err = fmt.Errorf("reply: %w", err)
		speak(apology(err))
	}
	res.Text = strings.Join(res.Sentences, " ")
	res.Timings.Total = time.Since(began)
	e.record(ctx, storage.Exchange{At: now, Conversation: conv, User: q.Text, Assistant: res.Text, Model: e.o.ModelName, Failed: failed})
	e.log.Info("reply", "model", e.o.ModelName, "dur_ms", ms(res.Timings.Total), "first_sentence_ms", ms(res.Timings.FirstSentence),
		"sentences", len(res.Sentences), "prompt_chars", res.Timings.PromptChars, "failed", failed)
	return res, err
}

// apology is the one sentence said when the model fails.
func apology(err error) string {
	switch {
	case errors.Is(err, llm.ErrUnreachable):
		return "I can't reach my language model right now."
	case errors.Is(err, llm.ErrModelNotFound):
		return "My language model isn't installed on the server."
	case errors.Is(err, context.DeadlineExceeded):
		return "My language model took too long to answer."
	case errors.Is(err, llm.ErrStreamCut):
		return "I lost the connection to my language model."
	}
	return "Something went wrong with my language model."
}

// history returns the current conversation's earlier exchanges as messages,
// newest kept when the caps bite, and the conversation's id: the one still
// open, or a new one when it lapsed.
func (e *Engine) history(ctx context.Context, now time.Time) ([]llm.Message, string) {
	conv := "c" + now.UTC().Format("20060102T150405.000")
	if e.o.Dialogue == nil {
		return nil, conv
	}
	past, err := e.o.Dialogue.Recent(ctx, now.Add(-24*time.Hour), 4*e.o.HistoryTurns)
	if err != nil {
		e.log.Warn("read dialogue failed; answering without history", "err", err)
		return nil, conv
	}
	// Walk back while each exchange is within the lapse of the one after it.
	last := now
	first := len(past)
	for i := len(past) - 1; i >= 0 && last.Sub(past[i].At) <= e.o.ConversationLapse; i-- {
		first, last = i, past[i].At
	}
	past = past[first:]
	if len(past) == 0 {
		return nil, conv
	}
	conv = past[len(past)-1].Conversation
	var msgs []llm.Message
	chars, turns := 0, 0
	for i := len(past) - 1; i >= 0 && turns < e.o.HistoryTurns; i-- {
		x := past[i]
		if x.Failed || x.Conversation != conv {
			continue
		}
		n := len(x.User) + len(x.Assistant)
		if chars+n > e.o.HistoryChars {
			break
		}
		chars += n
		turns++
		msgs = append([]llm.Message{{Role: llm.RoleUser, Content: x.User}, {Role: llm.RoleAssistant, Content: x.Assistant}}, msgs...)
	}
	return msgs, conv
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

func promptChars(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return n
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
