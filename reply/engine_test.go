package reply

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/storage"
)

var update = flag.Bool("update", false, "rewrite golden files")

var model = ollamatest.Model{Name: "llama3.2:3b", Family: "llama", ParameterSize: "3.2B", Capabilities: []string{"completion", "tools"}}

// clock is 10:15 on a Sunday in Berlin.
var (
	berlin, _ = time.LoadLocation("Europe/Berlin")
	clock     = time.Date(2026, 11, 22, 10, 15, 0, 0, berlin)
)

type fixture struct {
	srv *ollamatest.Server
	db  *storage.DB
	eng *Engine
}

func newFixture(t testing.TB, o Options) *fixture {
	t.Helper()
	f := &fixture{srv: ollamatest.New(model)}
	t.Cleanup(f.srv.Close)
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f.db = db
	u, _ := url.Parse(f.srv.URL)
	client, err := llm.New(llm.Options{Host: u, Model: model.Name})
	if err != nil {
		t.Fatal(err)
	}
	if o.Model == nil {
		o.Model = client
	}
	o.ModelName = model.Name
	if o.Dialogue == nil {
		o.Dialogue = db.Dialogue()
	}
	o.Location = berlin
	if o.Now == nil {
		o.Now = func() time.Time { return clock }
	}
	f.eng, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) ask(t *testing.T, text string) (Result, []string, error) {
	t.Helper()
	var said []string
	res, err := f.eng.Reply(t.Context(), Query{Text: text, Language: "en"}, func(s string) { said = append(said, s) })
	return res, said, err
}

// golden compares the messages of the n-th chat request with a file in
// testdata, or rewrites it with -update.
func golden(t *testing.T, srv *ollamatest.Server, n int, name string) {
	t.Helper()
	chats := srv.Chats()
	if len(chats) <= n {
		t.Fatalf("server saw %d chat requests, want more than %d", len(chats), n)
	}
	got, err := json.MarshalIndent(chats[n].Messages, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("messages sent differ from %s (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestFirstQuestionMessages(t *testing.T) {
	f := newFixture(t, Options{})
	f.srv.Enqueue(ollamatest.Reply{Content: "It's quarter past ten."})
	res, said, err := f.ask(t, "what time is it")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, f.srv, 0, "first_question")
	if !slices.Equal(said, []string{"It's quarter past ten."}) || res.Text != "It's quarter past ten." {
		t.Errorf("said %q, result %q", said, res.Text)
	}
	if res.Timings.ModelCalls != 1 || res.Timings.PromptChars == 0 || res.Model != model.Name {
		t.Errorf("result = %+v", res)
	}
}

func TestConversationHistory(t *testing.T) {
	f := newFixture(t, Options{})
	d := f.db.Dialogue()
	for _, x := range []storage.Exchange{
		{At: clock.Add(-2 * time.Hour), Conversation: "old", User: "yesterday's topic", Assistant: "old answer"},
		{At: clock.Add(-4 * time.Minute), Conversation: "now", User: "who wrote Dune", Assistant: "Frank Herbert wrote Dune."},
		{At: clock.Add(-3 * time.Minute), Conversation: "now", User: "when", Assistant: "I can't reach my language model right now.", Failed: true},
		{At: clock.Add(-2 * time.Minute), Conversation: "now", User: "when was it published", Assistant: "In 1965."},
	} {
		if err := d.Append(t.Context(), x); err != nil {
			t.Fatal(err)
		}
	}
	f.srv.Enqueue(ollamatest.Reply{Content: "Yes, he wrote five sequels."})
	res, _, err := f.ask(t, "did he write more")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, f.srv, 0, "history")
	if res.Conversation != "now" {
		t.Errorf("conversation = %q, want the open one", res.Conversation)
	}
	// The exchange is stored in the same conversation.
	got, _ := d.Recent(t.Context(), clock, 5)
	if len(got) != 1 || got[0].User != "did he write more" || got[0].Assistant != "Yes, he wrote five sequels." || got[0].Conversation != "now" {
		t.Errorf("stored %+v", got)
	}
}

func TestLapsedConversationStartsAfresh(t *testing.T) {
	f := newFixture(t, Options{})
	f.db.Dialogue().Append(t.Context(), storage.Exchange{At: clock.Add(-6 * time.Minute), Conversation: "before", User: "hi", Assistant: "Hello."})
	f.srv.Enqueue(ollamatest.Reply{Content: "Sure."})
	res, _, err := f.ask(t, "new topic")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.srv.Chats()[0].Messages); n != 2 {
		t.Errorf("sent %d messages, want system and user only", n)
	}
	if res.Conversation == "before" {
		t.Error("a lapsed conversation was continued")
	}
}

func TestHistoryCaps(t *testing.T) {
	f := newFixture(t, Options{HistoryTurns: 2, HistoryChars: 1000})
	for i := range 5 {
		f.db.Dialogue().Append(t.Context(), storage.Exchange{At: clock.Add(time.Duration(i-5) * time.Minute), Conversation: "c", User: "q" + string(rune('0'+i)), Assistant: "a"})
	}
	f.srv.Enqueue(ollamatest.Reply{Content: "ok"})
	f.ask(t, "next")
	var users []string
	for _, m := range f.srv.Chats()[0].Messages {
		if m.Role == "user" {
			users = append(users, m.Content)
		}
	}
	if !slices.Equal(users, []string{"q3", "q4", "next"}) {
		t.Errorf("user messages = %v, want the newest two turns then the question", users)
	}
}

func TestSpeaksFirstSentenceWhileStreaming(t *testing.T) {
	f := newFixture(t, Options{})
	gate := make(chan struct{})
	// The server holds the stream after "It is sunny." plus the next word.
	f.srv.Enqueue(ollamatest.Reply{Content: "It is sunny. Highs of twelve degrees today.", Gate: gate, GateAfter: 4})
	var said []string
	_, err := f.eng.Reply(t.Context(), Query{Text: "weather"}, func(s string) {
		said = append(said, s)
		if len(said) == 1 {
			close(gate) // only now may the model go on
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(said, []string{"It is sunny.", "Highs of twelve degrees today."}) {
		t.Errorf("said %q", said)
	}
}

func TestThinkingIsNotSpoken(t *testing.T) {
	f := newFixture(t, Options{})
	f.srv.Enqueue(ollamatest.Reply{Thinking: "They want a greeting. Keep it short.", Content: "Hello!"})
	_, said, err := f.ask(t, "hi")
	if err != nil || !slices.Equal(said, []string{"Hello!"}) {
		t.Errorf("said %q, err %v", said, err)
	}
}

func TestFailuresAreSpokenAndRecorded(t *testing.T) {
	dead := func() llm.Options {
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := l.Addr().String()
		l.Close()
		return llm.Options{Host: &url.URL{Scheme: "http", Host: addr}, Model: "llama3.2:3b"}
	}
	tests := []struct {
		name    string
		client  *llm.Options
		reply   ollamatest.Reply
		timeout time.Duration
		want    error
		say     string
	}{
		{name: "unreachable", client: ptr(dead()), want: llm.ErrUnreachable, say: "I can't reach my language model right now."},
		{name: "not pulled", client: &llm.Options{Model: "missing:1b"}, want: llm.ErrModelNotFound, say: "My language model isn't installed on the server."},
		{name: "cut", reply: ollamatest.Reply{Content: "Half an", Fault: ollamatest.DropMidStream, DropAfter: 1}, want: llm.ErrStreamCut, say: "I lost the connection to my language model."},
		{name: "500", reply: ollamatest.Reply{Fault: ollamatest.ServerError}, say: "Something went wrong with my language model."},
		{name: "slow", reply: ollamatest.Reply{Content: "late", FirstTokenDelay: 5 * time.Second}, timeout: 50 * time.Millisecond, want: context.DeadlineExceeded, say: "My language model took too long to answer."},
		{name: "empty", reply: ollamatest.Reply{Content: ""}, say: "Sorry, I have no answer to that."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{ChatTimeout: tt.timeout}
			f := newFixture(t, o)
			if tt.client != nil {
				co := *tt.client
				if co.Host == nil {
					co.Host, _ = url.Parse(f.srv.URL)
				}
				c, _ := llm.New(co)
				f.eng.o.Model = c
			} else {
				f.srv.Enqueue(tt.reply)
			}
			_, said, err := f.ask(t, "hello")
			if err == nil {
				t.Fatal("Reply succeeded")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if len(said) == 0 || said[len(said)-1] != tt.say {
				t.Errorf("said %q, want it to end with %q", said, tt.say)
			}
			got, _ := f.db.Dialogue().Recent(t.Context(), clock, 5)
			if len(got) != 1 || !got[0].Failed || got[0].User != "hello" {
				t.Errorf("stored %+v, want the exchange marked failed", got)
			}
		})
	}
}

func TestCancelledReplySaysNothingMore(t *testing.T) {
	f := newFixture(t, Options{})
	gate := make(chan struct{})
	f.srv.Enqueue(ollamatest.Reply{Content: "First part. Second part.", Gate: gate, GateAfter: 3})
	ctx, cancel := context.WithCancel(t.Context())
	var said []string
	_, err := f.eng.Reply(ctx, Query{Text: "story"}, func(s string) {
		said = append(said, s)
		cancel() // the button is pressed while the first sentence plays
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !slices.Equal(said, []string{"First part."}) {
		t.Errorf("said %q, want only the first sentence and no apology", said)
	}
	f.srv.Quiet()
	if r := f.srv.Requests(); len(r) != 1 || !r[0].Cancelled {
		t.Errorf("the model request was not cancelled: %+v", r)
	}
}

// brokenDialogue fails every write, as a full SD card does.
type brokenDialogue struct{}

func (brokenDialogue) Append(context.Context, storage.Exchange) error {
	return errors.New("no space left on device")
}
func (brokenDialogue) Recent(context.Context, time.Time, int) ([]storage.Exchange, error) {
	return nil, errors.New("no space left on device")
}

func TestStorageFailureDoesNotBreakTheReply(t *testing.T) {
	var logged strings.Builder
	f := newFixture(t, Options{Dialogue: brokenDialogue{}, Log: slogTo(&logged)})
	f.srv.Enqueue(ollamatest.Reply{Content: "Still here."})
	_, said, err := f.ask(t, "hello")
	if err != nil || !slices.Equal(said, []string{"Still here."}) {
		t.Errorf("said %q, err %v", said, err)
	}
	if !strings.Contains(logged.String(), "store exchange failed") || strings.Contains(logged.String(), "hello") {
		t.Errorf("log = %q, want the failure logged without the user's words", logged.String())
	}
}

func TestLanguageHint(t *testing.T) {
	f := newFixture(t, Options{})
	f.srv.Enqueue(ollamatest.Reply{Content: "Es ist zehn Uhr."})
	f.eng.Reply(t.Context(), Query{Text: "wie spät ist es", Language: "de"}, func(string) {})
	if sys := f.srv.Chats()[0].Messages[0].Content; !strings.Contains(sys, `"de"`) {
		t.Errorf("system prompt does not pass the language on: %q", sys)
	}
}

func ptr[T any](v T) *T { return &v }

func deadHost(t *testing.T) *url.URL {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return &url.URL{Scheme: "http", Host: addr}
}
