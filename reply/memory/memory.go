// Package memory looks up what the user said in earlier conversations for
// the reply engine: a small model picks search terms and an optional time
// range from the request, the diary and the remembered facts are searched,
// and a deterministic gate skips all of it when tool results already in the
// conversation cover the request.
package memory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/speech"
	"github.com/harkbox/hark/storage"
)

// Diary is the conversation diary; *storage.Diary is one.
type Diary interface {
	Search(ctx context.Context, keywords []string, from, to time.Time, limit int) ([]storage.DiaryEntry, error)
}

// Facts are the remembered facts; *storage.Facts is one.
type Facts interface {
	Search(ctx context.Context, query string, limit int) ([]storage.Fact, error)
}

// Params are what to search for.
type Params struct {
	Keywords  []string `json:"keywords"`
	From      string   `json:"from,omitempty"` // YYYY-MM-DD
	To        string   `json:"to,omitempty"`
	Questions []string `json:"questions,omitempty"`
}

// Snippet is one recalled piece of memory.
type Snippet struct {
	Date time.Time
	Text string
}

// String writes a snippet as it appears in the prompt.
func (s Snippet) String() string { return "[" + s.Date.Format("2006-01-02") + "] " + s.Text }

// Options configure a Recall.
type Options struct {
	Model llm.Chatter
	Diary Diary
	Facts Facts
	// MaxResults bounds the snippets returned; default 5.
	MaxResults int
	// Timeout bounds the search-term call; default 8 s.
	Timeout time.Duration
	Log     *slog.Logger
}

// Recall searches memory for requests.
type Recall struct{ o Options }

// Diary and Facts are the stores the Recall searches.
func (r *Recall) Diary() Diary { return r.o.Diary }

// Facts is the facts store searched; see Diary.
func (r *Recall) Facts() Facts { return r.o.Facts }

// New returns a Recall.
func New(o Options) *Recall {
	if o.MaxResults == 0 {
		o.MaxResults = 5
	}
	if o.Timeout == 0 {
		o.Timeout = 8 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Recall{o: o}
}

const extractSystem = `You pick search terms to find what a user told a voice assistant in earlier conversations. Reply with JSON {"keywords": [...], "from": "", "to": "", "questions": [...]}.
- keywords: one to six distinctive words of the request (names, topics, things), no filler words.
- from and to: dates as YYYY-MM-DD, only when the request names a time ("last week", "in March"); otherwise empty. Today is %s.
- questions: what the memory should answer; leave out anything the context below already answers.
Context the assistant already has: %s`

var extractSchema = llm.Schema(`{"type":"object","properties":{"keywords":{"type":"array","items":{"type":"string"}},"from":{"type":"string"},"to":{"type":"string"},"questions":{"type":"array","items":{"type":"string"}}},"required":["keywords"]}`)

// Extract asks for search terms. topic is the planner's hint, context a
// note of what is already known (time, place, recent dialogue). The
// reasoning a reasoning model writes into its answer (<think>…</think>)
// is not read for terms; an answer that was reasoning only is an error.
func (r *Recall) Extract(ctx context.Context, query, topic, context string, now time.Time) (Params, error) {
	user := "Request: " + query
	if topic != "" {
		user += "\nTopic: " + topic
	}
	ctx2, cancel := contextWithTimeout(ctx, r.o.Timeout)
	defer cancel()
	resp, err := r.o.Model.Chat(ctx2, llm.Request{Format: extractSchema, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: fmt.Sprintf(extractSystem, now.Format("Monday 2006-01-02"), orNone(context))},
		{Role: llm.RoleUser, Content: user},
	}}, nil)
	if err != nil {
		return Params{}, fmt.Errorf("memory: extract: %w", err)
	}
	content, thought := speech.SplitReasoning(resp.Message.Content)
	if content == "" && thought != "" {
		return Params{}, errors.New("memory: extract: the answer was reasoning only")
	}
	var p Params
	if err := llm.DecodeJSON(content, &p); err != nil {
		return Params{}, fmt.Errorf("memory: extract: %w", err)
	}
	p.Keywords = slices.DeleteFunc(p.Keywords, func(k string) bool { return strings.TrimSpace(k) == "" })
	return p, nil
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

var contextWithTimeout = context.WithTimeout

// Search finds diary entries and facts for p, newest first, at most
// MaxResults of them.
func (r *Recall) Search(ctx context.Context, p Params, loc *time.Location) ([]Snippet, error) {
	if len(p.Keywords) == 0 {
		return nil, nil
	}
	from, _ := time.ParseInLocation("2006-01-02", p.From, loc)
	to, _ := time.ParseInLocation("2006-01-02", p.To, loc)
	if !to.IsZero() {
		to = to.Add(24*time.Hour - time.Nanosecond)
	}
	var out []Snippet
	if r.o.Diary != nil {
		entries, err := r.o.Diary.Search(ctx, p.Keywords, from, to, r.o.MaxResults)
		if err != nil {
			return nil, fmt.Errorf("memory: %w", err)
		}
		for _, e := range entries {
			out = append(out, Snippet{Date: e.Date, Text: e.Summary})
		}
	}
	if r.o.Facts != nil {
		facts, err := r.o.Facts.Search(ctx, strings.Join(p.Keywords, " "), r.o.MaxResults)
		if err != nil {
			return nil, fmt.Errorf("memory: %w", err)
		}
		for _, f := range facts {
			if (from.IsZero() || !f.At.Before(from)) && (to.IsZero() || !f.At.After(to)) {
				out = append(out, Snippet{Date: f.At, Text: "The user said: " + f.Text})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Snippet) int { return b.Date.Compare(a.Date) })
	return out[:min(len(out), r.o.MaxResults)], nil
}

// Covered is the recall gate: it reports whether the tool results already
// in the conversation hold at least half of the query's content words
// (words of three or more letters, in any script), so that searching memory
// would only repeat them.
func Covered(query string, toolResults []string) bool {
	want := storage.ContentWords(query)
	if len(want) == 0 || len(toolResults) == 0 {
		return false
	}
	have := storage.ContentWords(strings.Join(toolResults, " "))
	n := 0
	for w := range want {
		if have[w] {
			n++
		}
	}
	return 2*n >= len(want)
}

// Overhead is the search-term prompt's length without the request and its
// context, for pricing the call before it is made.
const Overhead = len(extractSystem) + 64

// cues are words that ask about something said or done before.
var cues = []string{
	"remember", "remind me what", "told you", "tell you", "said", "last time", "earlier", "before",
	"yesterday", "last week", "last month", "again", "did i", "have i", "what was", "what's my", "what is my",
	"we talked", "we discussed", "you said", "recall",
}

// Cued reports whether a request asks about something from earlier
// conversations. It is the deterministic gate that stands in for the
// search-term model when that call is not worth its time.
func Cued(query string) bool {
	q := " " + strings.ToLower(query) + " "
	for _, c := range cues {
		if strings.Contains(q, c) {
			return true
		}
	}
	return false
}

// Terms are the search terms of a request without a model: its content
// words, with the plan's topic, without function words
// (storage.FunctionWord) and English's words of asking.
func Terms(query, topic string) Params {
	var p Params
	for w := range storage.ContentWords(query + " " + topic) {
		if !storage.FunctionWord(w, "en") && !asking["en"][w] {
			p.Keywords = append(p.Keywords, w)
		}
	}
	slices.Sort(p.Keywords)
	return p
}

// Keywords are the words of a question in language lang (an ISO 639-1
// code) that say what it is about: its content words without the
// function words of the language (storage.FunctionWord) and its words of
// asking about what was said ("tell", "gesagt", "dime"), nor English's,
// which a household mixes in.
func Keywords(question, lang string) []string {
	var out []string
	for w := range storage.ContentWords(question) {
		if !storage.FunctionWord(w, lang) && !asking["en"][w] && !asking[lang][w] {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

// asking are, by language, the words with which a household asks about
// what it said, that are no function words (storage.FunctionWord keeps
// those): the verbs of saying, knowing, remembering and of where a thing
// lies, the words of earlier times and of politeness, and the
// prepositions that mean "about" (which also say where a thing is, so
// are content words of a fact).
var asking = map[string]map[string]bool{
	"en": storage.ContentWords(`again before earlier last time yesterday week month tell told say said remember recall
		know think want like let please thank thanks very really`),
	"de": storage.ContentWords(`über liegt liegen steht stehen gibt lautet lauten heißt kann kannst mal bitte sag sage sagen
		weißt weiß gesagt erzählt erinnerst erinnere erinnern`),
	"es": storage.ContentWords(`sobre dije dijiste recuerdas recuerda acuerdas sabes dime decir`),
	"fr": storage.ContentWords(`sur dit sais rappelles souviens trouve trouvent`),
}
