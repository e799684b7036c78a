package box

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/center"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/redact"
)

// answerer answers a turn whose language is decided and in ctx
// (locale.WithLanguage), calling say once per sentence; it returns what the
// API shows of the result and whether the box should listen for a
// follow-up. The box chooses one when it is built.
type answerer interface {
	answer(ctx context.Context, q reply.Query, say func(string)) (result any, followUp bool, err error)
	// links are the answerer's links to other machines, for the status.
	links(ctx context.Context) []control.Check
	close()
}

// engineAnswerer is a speaker's: its own reply engine.
type engineAnswerer struct{ engine *reply.Engine }

func (e engineAnswerer) answer(ctx context.Context, q reply.Query, say func(string)) (any, bool, error) {
	res, err := e.engine.Reply(ctx, q, say)
	return res, res.FollowUp, err
}

func (e engineAnswerer) links(context.Context) []control.Check { return nil }
func (e engineAnswerer) close()                                { e.engine.Close() }

// nodeAnswerer is a node's: replies come from the center, while the box's
// own commands answer offline and run the center's requests for timers,
// alarms and volume.
type nodeAnswerer struct {
	node  *center.Node
	url   string // the center's address, without its password
	brain *brain
}

// nodeAnswerer makes the box a node of the command center in [center] url.
func (b *Box) nodeAnswerer() (answerer, error) {
	c := b.cfg.Center
	if c.Room == "" {
		c.Room = b.cfg.Assistant.Room // the room the welcome asked for
	}
	client, err := center.NewClient(center.ClientOptions{URL: c.URL, Credential: c.Key, Fingerprint: c.Fingerprint, Insecure: c.InsecureHTTP})
	if err != nil {
		return nil, err
	}
	node := center.NewNode(center.NodeOptions{Client: client, Commands: b.commands, Tools: catalogue.names(forCenter),
		Room: c.Room, Timezone: b.res.Location.String(), Lapse: b.cfg.Assistant.ConversationLapse.Duration, Log: b.log})
	// The center as the status and the answers name it: without the
	// password its address may carry (a proxy's in front of it).
	return nodeAnswerer{node: node, url: redact.Addresses(c.URL), brain: b.brain}, nil
}

// nodeResult is what `hark ask --json` shows of a reply from the center.
type nodeResult struct {
	Text      string   `json:"reply"`
	Sentences []string `json:"sentences"`
	Center    string   `json:"center"`
	FollowUp  bool     `json:"follow_up"`
}

func (n nodeAnswerer) answer(ctx context.Context, q reply.Query, say func(string)) (any, bool, error) {
	var said []string
	followUp, err := n.node.Reply(ctx, q.Text, func(s string) {
		said = append(said, s)
		say(s)
	})
	return nodeResult{Text: strings.Join(said, " "), Sentences: said, Center: n.url, FollowUp: followUp}, followUp, err
}

func (n nodeAnswerer) links(ctx context.Context) []control.Check {
	var out []control.Check
	if n.brain.chain != nil {
		out = n.brain.links(ctx)
	}
	link := health.CenterLink(n.url, n.node.Link())
	link.Detail = redact.Addresses(link.Detail) // and the error's
	return append(out, link)
}

func (n nodeAnswerer) close() { n.node.Close() }

// answer answers q through the box's answerer, in the turn's language: the
// one decided at the turn's start (a voice turn's, by the pipeline), else
// decided here from what was heard, the sentence templates, the words and
// the box's own.
func (b *Box) answer(ctx context.Context, q reply.Query, say func(string)) (any, bool, error) {
	if b.busy != nil {
		defer b.busy()()
	}
	if locale.LanguageOf(ctx) == "" {
		client := q.Client
		if client == "" {
			client = reply.Microphone
		}
		if e := b.engine(); e != nil {
			e.TakeUp(ctx, client, q.Conversation) // the conversation's language, for a follow-up
		}
		ctx = locale.WithLanguage(ctx, b.decide(ctx, client, q.Language, q.Text))
	}
	return b.answerer.answer(ctx, q, say)
}

// decide is the language of client's turn whose words are text, heard in
// heard ("" for typed text): the one decision for a voice turn (the
// pipeline's Decide) and a typed question alike. What speech recognition
// heard is a guess under [whisper] language = "auto", which the sentence
// templates, and for a follow-up the conversation's language, may
// overrule; a language set there is not.
func (b *Box) decide(ctx context.Context, client, heard, text string) string {
	ctx = command.WithClient(ctx, command.Client{ID: client, Here: client == reply.Microphone})
	return b.commands.Decide(ctx, heard, text, b.Lang(), b.cfg.Whisper.Language == "auto")
}

// decideSpoken is decide for a turn of the box's microphone: the
// pipeline's Decide.
func (b *Box) decideSpoken(ctx context.Context, heard, text string) string {
	return b.decide(ctx, reply.Microphone, heard, text)
}

// engine is the box's own reply engine; nil on a node.
func (b *Box) engine() *reply.Engine {
	if e, ok := b.answerer.(engineAnswerer); ok {
		return e.engine
	}
	return nil
}

// links are the box's links to other machines, for the status.
func (b *Box) links(ctx context.Context) []control.Check {
	if l := b.answerer.links(ctx); l != nil {
		return l
	}
	return b.brain.links(ctx)
}

// modelHint is one short line on how to reach a model, for an error that
// says it cannot be reached; empty for other errors.
func (b *Box) modelHint(err error) string {
	cfg := b.cfg.Ollama
	switch {
	case errors.Is(err, llm.ErrNotOllama):
		return fmt.Sprintf("something other than Ollama answers at %s (another web server or program on that port): point Hark at the Ollama server with OLLAMA_HOST or [ollama] host (Ollama listens on port 11434 unless told otherwise)", b.res.OllamaURL)
	case errors.Is(err, llm.ErrUnreachable):
		return fmt.Sprintf("no model server answers at %s: start Ollama there (ollama serve), or point Hark at one with OLLAMA_HOST or [ollama] host", b.res.OllamaURL)
	case errors.Is(err, reply.ErrStillLoading):
		return fmt.Sprintf("the model server at %s was still loading the model %q after [ollama] load_budget (%v); it goes on loading, so ask again in a minute (or use a smaller model, a faster disk, or a longer load_budget)", b.res.OllamaURL, cfg.Model, cfg.LoadBudget.Duration)
	case errors.Is(err, reply.ErrTooSlow):
		return fmt.Sprintf("the model server at %s took the question but said nothing within [ollama] reply_budget (%v) with the model %q loaded (a load does not count: it is waited for, up to load_budget): it may have hung, or be too slow for this box (a smaller model, or a longer reply_budget)", b.res.OllamaURL, cfg.ReplyBudget.Duration, cfg.Model)
	case errors.Is(err, llm.ErrModelNotFound):
		return fmt.Sprintf("the server at %s does not have the model %q: ollama pull %s", b.res.OllamaURL, cfg.Model, cfg.Model)
	}
	return ""
}
