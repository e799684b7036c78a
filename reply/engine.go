// Package reply turns what the user said into what Hark says. Per
// utterance the Engine redacts it, tries the commands' offline path, and
// otherwise asks a small model for a plan, recalls memory when the plan (or
// its absence) calls for it, picks the tools to offer, and runs the
// agentic loop against the chat model: native tool calls, or tools in text
// for models without them. The answer is cleaned for speech and handed to
// the caller sentence by sentence as it streams; the redacted exchange and
// its tool calls are recorded, and a diary entry is written when the
// conversation ends.
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
	"sync/atomic"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/distil"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/memory"
	"github.com/harkbox/hark/reply/planner"
	"github.com/harkbox/hark/reply/router"
	"github.com/harkbox/hark/storage"
)

// Shower tells about a model; *llm.Client is one. The engine uses it to
// size its prompts.
type Shower interface {
	Show(ctx context.Context, model string) (llm.ModelInfo, error)
}

// Dialogue is the record of exchanges; *storage.Dialogue is one.
type Dialogue interface {
	// Append stores e durably.
	Append(ctx context.Context, e storage.Exchange) error
	// Recent returns up to limit of the newest exchanges since a time, oldest first.
	Recent(ctx context.Context, since time.Time, limit int) ([]storage.Exchange, error)
	// RecentIn is Recent for one conversation.
	RecentIn(ctx context.Context, conversation string, since time.Time, limit int) ([]storage.Exchange, error)
}

// Diary keeps conversation summaries; *storage.Diary is one.
type Diary interface {
	// Add stores an entry, replacing one of the same conversation and
	// date in one write.
	Add(ctx context.Context, e storage.DiaryEntry) error
	// Entries returns the entries of those of conversations that have
	// one, by conversation.
	Entries(ctx context.Context, conversations []string) (map[string]storage.DiaryEntry, error)
	Search(ctx context.Context, keywords []string, from, to time.Time, limit int) ([]storage.DiaryEntry, error)
}

// Facts are the remembered facts, for recall; *storage.Facts is one.
type Facts interface {
	Search(ctx context.Context, query string, limit int) ([]storage.Fact, error)
}

// Mode turns a feature on, off, or on for small models only.
type Mode string

// The modes.
const (
	Auto Mode = "auto"
	On   Mode = "on"
	Off  Mode = "off"
)

// Options configure an Engine. Model is required; zero values elsewhere take
// the defaults given.
type Options struct {
	// Language is the configured language (an ISO 639-1 code): a typed
	// request whose words do not tell is answered in it; "" is English.
	Language string
	Model    llm.Chatter
	// Aux answers the small auxiliary calls (planner, memory search terms,
	// tool router, digests); default Model.
	Aux llm.Chatter
	// Info sizes the prompts from the model's parameter count; nil guesses
	// from ModelName.
	Info Shower
	// ModelName is recorded with each exchange; AuxModelName is Aux's
	// model, default ModelName.
	ModelName, AuxModelName string
	// Server names the model server, for the meter; empty for the default.
	Server string
	// Meter prices model calls from the server's measured rates; nil
	// starts one that knows nothing yet (and assumes the box's CPU).
	Meter *cost.Meter
	// Policy decides which auxiliary calls are worth making.
	Policy cost.Policy
	// ToolTokens bounds the tokens of the tool definitions offered per
	// call; default 360 for small models, 1,200 for others.
	ToolTokens int
	// Think turns a thinking model's reasoning on; off (the default) it
	// answers sooner. Models that cannot think are not asked either way.
	Think bool
	// ToolStyle is "native" (the server's tool calling), "text" (tools
	// described in the system prompt) or "auto" (default): native, unless
	// the model's template moves the tools into the last user message,
	// where no prompt cache can reuse them, or the model refuses them.
	ToolStyle string
	// Commands are offered as tools and tried first offline; nil for none.
	Commands *command.Registry
	// Conversation, when set, is the one conversation this engine holds
	// (a center runs an engine per node conversation): its history is the
	// exchanges stored under this id, and new exchanges are stored under
	// it. Empty: conversations start and lapse by themselves.
	Conversation string
	// Diarist, on an engine of one conversation (Conversation set), is the
	// engine that writes the conversation's diary entry, which this one
	// never does: an engine over the whole dialogue that answers nobody.
	// A center has one for all its node conversations, so that each
	// lapsed conversation is written once, and one left by a center that
	// stopped is written too. This engine's turns hold the Diarist's
	// entries back as its own turns would, and the Diarist writes the
	// conversation only once this engine is closed and the conversation
	// has lapsed.
	Diarist *Engine
	// Dialogue keeps the conversation; nil remembers nothing.
	Dialogue Dialogue
	// Diary and Facts are searched for memory; Diary also receives a
	// summary of each finished conversation. Nil skips them.
	Diary Diary
	Facts Facts
	// Name is the assistant's name in its persona; default "Jarvis".
	Name string
	// Place is where the speaker is, for the context line; empty for unknown.
	Place string
	// Location is the time zone; default time.Local.
	Location *time.Location
	// Now is the clock; default time.Now.
	Now func() time.Time

	// Planner turns the planner on; default on (set PlannerOff to skip it).
	PlannerOff bool
	// Router is the tool-picking strategy; default router.LLM.
	Router router.Strategy
	// RouterMax is the most tools the router picks; default 5.
	RouterMax int
	// MemoryDigest distils recalled memory: Auto (default) for models of
	// 7B or less.
	MemoryDigest Mode
	// ToolDigest distils long tool results: Off by default; Auto for small
	// models.
	ToolDigest Mode
	// MemoryResults bounds recalled snippets; default 5.
	MemoryResults int

	// ReplyBudget bounds the silence before the first words of a reply:
	// at least this (default 15 s), or twice what the meter expects the
	// first sentence to take on this server. The auxiliary calls (planner,
	// memory search terms, router, digests) share its first half and, after
	// the first of them times out, the rest are skipped; when no sentence
	// has been said by the end of it, the reply stops and says the model is
	// taking too long.
	ReplyBudget time.Duration
	// Keeper, when set, keeps the chat model loaded and says whether it
	// is: a turn that finds it loading waits for it (saying so at once)
	// rather than spend its reply budget. AuxKeeper is the small model's,
	// when it is another. Nil: the model is taken to be loaded.
	Keeper, AuxKeeper *llm.Keeper
	// LoadBudget bounds a turn's wait for the model to load, from the
	// load's start; default 3 min. The load itself goes on.
	LoadBudget time.Duration
	// Queue, when set, is the fair queue in front of the model server,
	// shared by every engine that asks it: a turn waits there for its
	// turn (the microphone's first) before its first model call, and
	// holds its place to its end. Nil: turns go to the server at once.
	Queue *llm.Queue
	// ChatTimeout bounds one chat-model answer: at least this (default
	// 60 s), or twice what the meter expects a whole answer to take.
	ChatTimeout time.Duration
	// AnswerTokens bounds the tokens of one chat-model answer (Ollama's
	// num_predict): default 256, a minute or more of speech and room for
	// any tool call; negative for no bound. A model whose own bound (its
	// Modelfile's num_predict) is smaller keeps its own. An answer a
	// bound stops ends at its last whole sentence. A model asked to
	// reason (Think) is not bounded: its reasoning spends the same tokens.
	AnswerTokens int
	// PlannerTimeout, AuxTimeout (search terms, router) and DigestTimeout
	// are the most the small calls may take; defaults 6, 8 and 8 s. Each
	// gets three times what the meter expects within that, and fails open.
	PlannerTimeout, AuxTimeout, DigestTimeout time.Duration
	// MaxTurns bounds the model calls of one reply; default 8.
	MaxTurns int
	// ToolSearchMax bounds search_tools calls per reply; default 3.
	ToolSearchMax int
	// ConversationLapse ends a conversation after this much quiet; default 5 min.
	ConversationLapse time.Duration
	// HistoryTurns and HistoryChars cap the earlier exchanges sent with a
	// question; defaults 6 and 4000. CarryTurns and CarryChars cap the tool
	// results carried from them; defaults 3 and 800.
	HistoryTurns, HistoryChars int
	CarryTurns, CarryChars     int
	// Log receives one line per reply with timings, never the words. Nil discards.
	Log *slog.Logger
}

func (o *Options) defaults() {
	set := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	seti := func(n *int, v int) {
		if *n == 0 {
			*n = v
		}
	}
	if o.Aux == nil {
		o.Aux = o.Model
	}
	if o.AuxModelName == "" {
		o.AuxModelName = o.ModelName
	}
	if o.Meter == nil {
		o.Meter = cost.NewMeter()
	}
	if o.ToolStyle == "" {
		o.ToolStyle = "auto"
	}
	if o.Name == "" {
		o.Name = "Jarvis"
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Router == "" {
		o.Router = router.LLM
	}
	if o.MemoryDigest == "" {
		o.MemoryDigest = Auto
	}
	if o.ToolDigest == "" {
		o.ToolDigest = Off
	}
	set(&o.ReplyBudget, 15*time.Second)
	set(&o.ChatTimeout, 60*time.Second)
	seti(&o.AnswerTokens, answerTokens)
	set(&o.LoadBudget, 3*time.Minute)
	set(&o.PlannerTimeout, 6*time.Second)
	set(&o.AuxTimeout, 8*time.Second)
	set(&o.DigestTimeout, 8*time.Second)
	set(&o.ConversationLapse, 5*time.Minute)
	seti(&o.MaxTurns, 8)
	seti(&o.ToolSearchMax, 3)
	seti(&o.RouterMax, 5)
	seti(&o.MemoryResults, 5)
	seti(&o.HistoryTurns, 6)
	seti(&o.HistoryChars, 4000)
	seti(&o.CarryTurns, 3)
	seti(&o.CarryChars, 800)
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
}

// Engine answers queries. It is safe for concurrent use, though Hark asks one
// question at a time.
type Engine struct {
	o   Options
	log *slog.Logger
	// unknownLangs are the languages without offline phrases already
	// logged.
	unknownLangs sync.Map
	planner      *planner.Planner
	router       *router.Router
	recall       *memory.Recall
	distil       *distil.Distiller
	meter        *cost.Meter

	// who is the assistant's name and place: Options' until SetPersona.
	who atomic.Pointer[persona]
	// zone is the household's time zone: Options.Location until
	// SetLocation.
	zone atomic.Pointer[time.Location]

	mu sync.Mutex
	// convs are the conversations under way, by client: each asker's own.
	convs map[string]*conversation
	// noTools are the endpoints (server and model, as endpoint names them)
	// whose model refused native tools: their requests describe the tools
	// in text. sizes is what each endpoint's server said of its model.
	noTools map[string]bool
	sizes   map[string]modelSize
	// inline are the endpoints whose model was seen to reason in its
	// answer's text (<think>…</think>) without declaring thinking: its
	// reasoning spends an answer's tokens, as a thinking model's does.
	inline map[string]bool
	// diary writes the diary entries of finished conversations; wg
	// waits for them.
	diary diarist
	wg    sync.WaitGroup
	// closing ends the diary entries still being written when Close has
	// waited long enough for them.
	closing context.Context
	giveUp  context.CancelFunc
}

// persona is who the assistant is and where.
type persona struct{ name, place string }

// SetPersona changes the assistant's name and place from the next reply
// on; an empty name keeps the current one.
func (e *Engine) SetPersona(name, place string) {
	if name == "" {
		name = e.persona().name
	}
	e.who.Store(&persona{name: name, place: place})
}

// SetLocation changes the household's time zone from the next reply on:
// the time the model is told, the dates it reads and searches with; nil
// changes nothing.
func (e *Engine) SetLocation(loc *time.Location) {
	if loc != nil {
		e.zone.Store(loc)
	}
}

// location is the household's time zone now.
func (e *Engine) location() *time.Location {
	if loc := e.zone.Load(); loc != nil {
		return loc
	}
	return e.o.Location
}

func (e *Engine) persona() persona {
	if p := e.who.Load(); p != nil {
		return *p
	}
	return persona{name: e.o.Name, place: e.o.Place}
}

// New returns an Engine for o.
func New(o Options) (*Engine, error) {
	if o.Model == nil {
		return nil, errors.New("reply: no model")
	}
	o.defaults()
	switch o.Router {
	case router.LLM, router.Keyword, router.All:
	default:
		return nil, errors.New("reply: unknown router strategy " + string(o.Router))
	}
	switch o.ToolStyle {
	case "auto", "native", "text":
	default:
		return nil, errors.New("reply: unknown tool style " + o.ToolStyle + " (want auto, native or text)")
	}
	switch d := o.Diarist; {
	case d == nil:
	case o.Conversation == "":
		return nil, errors.New("reply: a Diarist writes the entries of an engine of one conversation; Conversation is empty")
	case !d.keepsDiary():
		return nil, errors.New("reply: the Diarist keeps no diary (it needs a Dialogue and a Diary, and no Conversation of its own)")
	}
	log := o.Log.With("pkg", "reply")
	e := &Engine{o: o, log: log, meter: o.Meter, convs: map[string]*conversation{}, noTools: map[string]bool{}, inline: map[string]bool{}, sizes: map[string]modelSize{}}
	e.closing, e.giveUp = context.WithCancel(context.Background())
	if !o.PlannerOff {
		e.planner = planner.New(planner.Options{Model: o.Aux, Timeout: o.PlannerTimeout, Log: log})
	}
	e.router = router.New(router.Options{Model: o.Aux, Strategy: o.Router, Max: o.RouterMax, Timeout: o.AuxTimeout, Log: log})
	e.distil = &distil.Distiller{Model: o.Aux, Timeout: o.DigestTimeout}
	e.diary.tries, e.diary.held = map[string]int{}, map[string]int{}
	if e.keepsDiary() { // the entries the last process left, at the first chance
		now := o.Now()
		e.diary.due(now, now)
	}
	if o.Diarist != nil {
		o.Diarist.hold(o.Conversation)
	}
	var diary memory.Diary
	if o.Diary != nil {
		diary = o.Diary
	}
	var facts memory.Facts
	if o.Facts != nil {
		facts = o.Facts
	}
	e.recall = memory.New(memory.Options{Model: o.Aux, Diary: diary, Facts: facts, MaxResults: o.MemoryResults, Timeout: o.AuxTimeout, Log: log})
	return e, nil
}

// Query is one thing the user said or typed.
type Query struct {
	Text     string
	Language string // BCP 47 code from speech recognition; may be empty
	// Client is who asks (Microphone when empty): the conversation, its
	// pending question and the last command to refine are the client's
	// own; the diary and the remembered facts are everyone's.
	Client string
	// Conversation, when set, continues that conversation of the client's,
	// however long ago it was (ErrNotYours when it is another client's);
	// otherwise the client's open conversation goes on, or a new one
	// starts.
	Conversation string
	// Hold, when set, is told when the turn must wait before the model
	// can answer (it is loading, or busy with others); it is called from
	// the goroutine of Reply, before any sentence of the answer. Nil says
	// the hold's line through say.
	Hold func(Hold)
}

// Result describes a reply after it is complete.
type Result struct {
	// Text is everything said, sentence by sentence, joined by spaces.
	Text      string   `json:"reply"`
	Sentences []string `json:"sentences"`
	// Tools lists the commands run on the way, in order.
	Tools []ToolUse `json:"tools"`
	Model string    `json:"model"`
	// Server is the model server that answered, when a model did.
	Server       string `json:"server,omitempty"`
	Conversation string `json:"conversation"`
	// Offline is set when a command answered without the model.
	Offline bool `json:"offline"`
	// NotUnderstood says why the offline path did not carry the request
	// out ("no match", "unsupported intent", "unresolved slot", ...) when
	// the model could not be asked either; the reply is one sentence
	// saying so.
	NotUnderstood string `json:"not_understood,omitempty"`
	// FollowUp is set when the reply waits for the user: a command asked
	// for input, or the user must choose.
	FollowUp bool `json:"follow_up"`
	// Choice, with FollowUp, is the argument the user is asked to choose
	// when the model could not: its name and the values it takes.
	Choice *Choice `json:"choice,omitempty"`
	// Plan is the planner's steps, when it made some.
	Plan []string `json:"plan,omitempty"`
	// StandIns names the auxiliary calls not worth making on this server,
	// whose deterministic stand-ins ran instead.
	StandIns []string `json:"stand_ins,omitempty"`
	Timings  Timings  `json:"timings"`
}

// Choice is an argument put to the user.
type Choice struct {
	Parameter string   `json:"parameter"`
	Options   []string `json:"options,omitempty"`
}

// ToolUse is one command run while replying.
type ToolUse struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Failed    bool           `json:"failed"`
}

// Timings of one reply, from the moment Reply was called, and its cost:
// model calls, prompt characters, prompt tokens (as the meter estimates
// them), of those the ones not reused from the server's cache, and the
// tokens of the tool definitions of the last chat call.
type Timings struct {
	FirstToken    time.Duration
	FirstSentence time.Duration
	Total         time.Duration
	// Loading and Queued are how long the turn waited for the model to
	// load, and for the server to answer others, before it asked.
	Loading, Queued time.Duration
	ModelCalls      int
	PromptChars     int
	PromptTokens    int
	Evaluated       int
	ToolTokens      int
}

// MarshalJSON writes the durations in milliseconds.
func (t Timings) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		FirstToken    float64 `json:"first_token_ms"`
		FirstSentence float64 `json:"first_sentence_ms"`
		Total         float64 `json:"total_ms"`
		Loading       float64 `json:"loading_ms,omitempty"`
		Queued        float64 `json:"queued_ms,omitempty"`
		ModelCalls    int     `json:"model_calls"`
		PromptChars   int     `json:"prompt_chars"`
		PromptTokens  int     `json:"prompt_tokens"`
		Evaluated     int     `json:"evaluated_tokens"`
		ToolTokens    int     `json:"tool_tokens"`
	}{ms(t.FirstToken), ms(t.FirstSentence), ms(t.Total), ms(t.Loading), ms(t.Queued), t.ModelCalls, t.PromptChars, t.PromptTokens, t.Evaluated, t.ToolTokens})
}

// Reply answers q, calling say with each sentence as soon as it is complete.
// When the model fails, Reply says one short sentence about it and returns the
// error; when ctx is done it stops at once and returns ctx.Err().
func (e *Engine) Reply(ctx context.Context, q Query, say func(sentence string)) (Result, error) {
	e.turnBegins()
	defer e.turnEnds() // the diary's entries wait for the turn
	now := e.o.Now()
	client := q.Client
	if client == "" {
		client = Microphone
	}
	p, err := e.recent(ctx, client, e.live(client), q.Conversation, now)
	if err != nil {
		return Result{Tools: []ToolUse{}, Model: e.o.ModelName}, err
	}
	conv := e.conversationFor(client, p, now)
	ctx = command.WithClient(ctx, command.Client{ID: client, Here: client == Microphone})
	ctx = command.WithAssistant(ctx, e.persona().name) // "who are you", answered offline
	text, kinds := conv.redactor.Redact(q.Text)
	if len(kinds) > 0 {
		e.log.Info("redacted", "kinds", len(kinds))
	}
	began := time.Now()
	t := &turn{e: e, client: client, conv: conv, past: p, q: Query{Text: text, Language: q.Language}, raw: q.Text, now: now, began: began, say: say,
		onHold: q.Hold, origin: began, deadline: began.Add(e.o.ReplyBudget), auxDeadline: began.Add(e.o.ReplyBudget / 2)}
	t.res = Result{Model: e.o.ModelName, Tools: []ToolUse{}, Conversation: conv.id}

	t.lang, t.q.Language = e.language(ctx, q)
	ctx = locale.WithLanguage(ctx, t.q.Language)
	if !t.offline(ctx) {
		err = t.converse(ctx)
		e.noteModels(t)
	}
	if ctx.Err() != nil {
		return t.res, ctx.Err() // barge-in: say nothing more, record nothing
	}
	t.res.Text = strings.Join(t.res.Sentences, " ")
	t.res.Timings.Total = time.Since(t.began)
	said, _ := conv.redactor.Redact(t.res.Text) // a secret said aloud is not kept in clear
	e.record(ctx, storage.Exchange{At: now, Conversation: conv.id, Client: client, User: text, Assistant: said,
		Model: t.res.Model, Server: t.res.Server, Failed: err != nil, Closed: t.closed, Tools: t.records, Last: t.lastCall()})
	e.log.Info("reply", "model", t.res.Model, "server", t.res.Server, "offline", t.res.Offline, "dur_ms", ms(t.res.Timings.Total),
		"first_sentence_ms", ms(t.res.Timings.FirstSentence), "sentences", len(t.res.Sentences),
		"model_calls", t.res.Timings.ModelCalls, "prompt_tokens", t.res.Timings.PromptTokens,
		"evaluated_tokens", t.res.Timings.Evaluated, "tool_tokens", t.res.Timings.ToolTokens, "stand_ins", len(t.res.StandIns), "tools", len(t.res.Tools),
		"plan_steps", len(t.res.Plan), "failed", err != nil)
	return t.res, err
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
