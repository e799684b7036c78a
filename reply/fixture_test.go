package reply

import (
	"context"
	"encoding/json"
	"flag"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/command/weather"
	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

var update = flag.Bool("update", false, "rewrite golden files")

var (
	smallModel = ollamatest.Model{Name: "llama3.2:3b", Family: "llama", ParameterSize: "3.2B", Capabilities: []string{"completion", "tools"}}
	textModel  = ollamatest.Model{Name: "gemma2:2b", Family: "gemma2", ParameterSize: "2.6B", Capabilities: []string{"completion"}}
	largeModel = ollamatest.Model{Name: "llama3.3:70b", Family: "llama", ParameterSize: "70.6B", Capabilities: []string{"completion", "tools"}}
)

// clock is 10:15 on a Sunday in Berlin.
var (
	berlin, _ = time.LoadLocation("Europe/Berlin")
	clock     = time.Date(2026, 11, 22, 10, 15, 0, 0, berlin)
)

// The kinds of model call, as replytest tells them apart.
const (
	kindPlanner = replytest.Planner
	kindRouter  = replytest.Router
	kindExtract = replytest.Extract
	kindMemory  = replytest.Memory
	kindTool    = replytest.Tool
	kindLoop    = replytest.Loop
	kindDiary   = replytest.Diary
	kindResolve = replytest.Resolve
	kindChat    = replytest.Chat
)

var kindOf = replytest.KindOf

// model is replytest.Model with shorter names for these tests.
type model struct{ *replytest.Model }

func (m *model) on(kind string, replies ...ollamatest.Reply) *model {
	m.Model.On(kind, replies...)
	return m
}
func (m *model) json(kind, content string) *model                  { m.Model.Says(kind, content); return m }
func (m *model) respond(r ollamatest.ChatRequest) ollamatest.Reply { return m.Model.Respond(r) }

type fixture struct {
	srv   *ollamatest.Server
	model *model
	db    *storage.DB
	eng   *Engine
	log   *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type fixedMixer struct{ level int }

func (m *fixedMixer) Volume(context.Context) (int, bool, error) { return m.level, false, nil }
func (m *fixedMixer) SetVolume(_ context.Context, l int, _ bool) error {
	m.level = l
	return nil
}

type noStatus struct{}

func (noStatus) Status(context.Context) builtin.DeviceStatus {
	return builtin.DeviceStatus{Version: "test"}
}

type noHome struct{}

func (noHome) Home(context.Context) (weather.Place, bool, error) { return weather.Place{}, false, nil }
func (noHome) SetHome(context.Context, weather.Place) error      { return nil }

// newFixture is the engine over the test server and a real store, with the
// built-in commands (and get_weather) unless o.Commands is set.
func newFixture(t testing.TB, served ollamatest.Model, o Options) *fixture {
	t.Helper()
	return newFixtureWith(t, served, o, nil)
}

// newFixtureWith is newFixture with more commands beside the built-ins,
// made over the fixture's store.
func newFixtureWith(t testing.TB, served ollamatest.Model, o Options, more func(db *storage.DB) []*command.Command) *fixture {
	t.Helper()
	return newFixtureHooked(t, served, o, more, nil)
}

// newFixtureHooked is newFixtureWith, with hook setting more options from
// the test server's client before the engine is made.
func newFixtureHooked(t testing.TB, served ollamatest.Model, o Options, more func(db *storage.DB) []*command.Command, hook func(*Options, *llm.Client)) *fixture {
	t.Helper()
	f := &fixture{srv: ollamatest.New(served), model: &model{replytest.New()}, log: &syncBuffer{}}
	t.Cleanup(f.srv.Close)
	f.srv.Respond(f.model.respond)
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f.db = db
	u, _ := url.Parse(f.srv.URL)
	client, err := llm.New(llm.Options{Host: u, Model: served.Name})
	if err != nil {
		t.Fatal(err)
	}
	if o.Model == nil {
		o.Model = client
	}
	if o.Info == nil {
		o.Info = client
	}
	o.ModelName = served.Name
	o.Server = f.srv.URL
	if o.Meter == nil {
		// The test server answers at a GPU's speed; the engine knows it
		// as if it had heard from it before.
		o.Meter = cost.NewMeter()
		for _, name := range []string{served.Name, o.AuxModelName} {
			o.Meter.Set(cost.Key(o.Server, name), cost.Rates{Prompt: 5000, Gen: 500, CharsPerToken: 4})
		}
	}
	if o.Dialogue == nil {
		o.Dialogue = db.Dialogue()
	}
	o.Diary, o.Facts = db.Diary(), db.Facts()
	o.Location, o.Place = berlin, "Berlin"
	if o.Now == nil {
		o.Now = func() time.Time { return clock }
	}
	if o.Commands == nil {
		now := o.Now
		sched, _ := schedule.New(schedule.Options{Store: db.Schedule(), Now: now, Location: berlin})
		reg := command.NewRegistry(command.Options{Now: now, Location: berlin})
		cmds := builtin.All(builtin.Deps{Schedule: sched, Mixer: &fixedMixer{level: 50}, Memory: db.SealedFacts(db.Secrets("")), Diary: db.Diary(), Status: noStatus{}})
		cmds = append(cmds, weather.Command(weather.New(weather.Options{ForecastURL: deadURL(t), GeocodeURL: deadURL(t)}), noHome{}))
		if more != nil {
			cmds = append(cmds, more(db)...)
		}
		if err := reg.Register(cmds...); err != nil {
			t.Fatal(err)
		}
		o.Commands = reg
	}
	o.Log = slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if hook != nil {
		hook(&o, client)
	}
	f.eng, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.eng.Close)
	return f
}

func (f *fixture) ask(t testing.TB, text string) (Result, []string, error) {
	t.Helper()
	var said []string
	res, err := f.eng.Reply(t.Context(), Query{Text: text}, func(s string) { said = append(said, s) })
	return res, said, err
}

func deadURL(t testing.TB) string {
	return deadHost(t).String()
}

func deadHost(t testing.TB) *url.URL {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return &url.URL{Scheme: "http", Host: addr}
}

// sent is one model call as the golden files show it.
type sent struct {
	Kind   string   `json:"kind"`
	Tools  []string `json:"tools,omitempty"`
	Format bool     `json:"json_format,omitempty"`
	// Predict is the answer's bound in tokens (num_predict), when set.
	Predict  any                  `json:"num_predict,omitempty"`
	Messages []ollamatest.Message `json:"messages"`
}

// golden compares every model call the server saw with a file in testdata,
// or rewrites it with -update.
func golden(t *testing.T, srv *ollamatest.Server, name string) {
	t.Helper()
	var calls []sent
	for _, c := range srv.Chats() {
		s := sent{Kind: kindOf(c), Messages: c.Messages, Format: len(c.Format) > 0, Predict: c.Options["num_predict"]}
		for _, tl := range c.Tools {
			s.Tools = append(s.Tools, tl.Function.Name)
		}
		calls = append(calls, s)
	}
	got, err := json.MarshalIndent(calls, "", "  ")
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
		t.Errorf("model calls differ from %s (go test -update rewrites it):\ngot:\n%s", path, got)
	}
}

var kinds = replytest.Kinds
