package reply

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/ollamaserve"
	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// TestRealServerReusesThePrefix runs two turns of a conversation against
// the real Ollama server (the pinned release in ../shared/third_party)
// serving a real tiny llama under a Llama 3.2 style template, and reads
// from the model runner's own log how much of each prompt its cache
// reused: the second turn must come mostly from the cache, and the meter's
// estimate of it must be close to what the server did.
func TestRealServerReusesThePrefix(t *testing.T) {
	srv, gguf, ctx := realOllama(t)
	createTiny(t, ctx, srv, gguf, 24)
	client, err := llm.New(llm.Options{Host: srv.URL, Model: "hark-tiny", NumCtx: 2048})
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sched, _ := schedule.New(schedule.Options{Store: db.Schedule(), Location: time.UTC})
	reg := command.NewRegistry(command.Options{Location: time.UTC})
	if err := reg.Register(builtin.All(builtin.Deps{Schedule: sched, Mixer: &fixedMixer{level: 50}, Memory: db.SealedFacts(db.Secrets("")), Status: noStatus{}})...); err != nil {
		t.Fatal(err)
	}
	meter := cost.NewMeter()
	eng, err := New(Options{Model: client, Info: client, AnswerTokens: -1, ModelName: "hark-tiny", Server: srv.URL.String(), Meter: meter,
		Commands: reg, Dialogue: db.Dialogue(), Location: time.UTC,
		// Only the chat calls, so that what the cache holds is theirs.
		Policy: cost.Policy{Floor: time.Nanosecond, Share: 1e-9}, ChatTimeout: time.Minute, ReplyBudget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var results []Result
	for _, q := range []string{"tell me a story about a little dog", "and what happened to the dog next"} {
		res, err := eng.Reply(ctx, Query{Text: q}, func(string) {})
		if err != nil {
			t.Fatalf("%q: %v\n%s", q, err, srv.Log())
		}
		results = append(results, res)
	}
	uses := srv.CacheUses()
	if len(uses) < 2 {
		t.Fatalf("the runner logged %d cache loads, want one per call:\n%s", len(uses), srv.Log())
	}
	first, second := uses[0], uses[len(uses)-1]
	t.Logf("first turn: %d prompt tokens, %d from the cache; second turn: %d, %d from the cache (%.0f %%)",
		first.Prompt, first.Used, second.Prompt, second.Used, 100*second.Reused())
	if second.Reused() < 0.7 || second.Used < first.Prompt*3/4 {
		t.Errorf("the second turn reused %d of %d tokens (the first turn's prompt was %d): want at least 70 %% and most of the first turn",
			second.Used, second.Prompt, first.Prompt)
	}
	// The meter's guess of what the server evaluated is close to the truth.
	guess, truth := results[1].Timings.Evaluated, second.Prompt-second.Used
	if guess > 3*truth+40 || truth > 3*guess+40 {
		t.Errorf("the meter expected %d tokens evaluated in the second turn; the server evaluated %d", guess, truth)
	}
	if r := meter.Rates(cost.Key(srv.URL.String(), "hark-tiny")); !r.Known() {
		t.Errorf("the meter learned nothing from the server's counters: %+v", r)
	}
}

// realOllama starts the real Ollama server (the pinned release in
// ../shared/third_party) with env, or skips; gguf is the real tiny llama
// it serves.
func realOllama(t *testing.T, env ...string) (*ollamaserve.Server, string, context.Context) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the real Ollama server: not with -short")
	}
	shared := sharedtest.Dir()
	gguf := sharedtest.Path(t, "models/stories260K.gguf")
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	bin, err := ollamaserve.Binary(shared, filepath.Join(cache, "hark", "ollama-v0.17.4"))
	if err != nil {
		t.Skipf("no Ollama server to test against: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	srv, err := ollamaserve.Start(ctx, bin, t.TempDir(), env...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv, gguf, ctx
}

// createTiny makes hark-tiny on srv: gguf under a Llama 3.2 style
// template, answering at most predict tokens, always the same. Engines
// asking it leave the bound to it (AnswerTokens -1), or keep it as the
// smaller of its own and theirs.
func createTiny(t *testing.T, ctx context.Context, srv *ollamaserve.Server, gguf string, predict int) {
	t.Helper()
	tmpl, err := os.ReadFile("../internal/benchmodel/llama32.gotmpl")
	if err != nil {
		t.Fatal(err)
	}
	modelfile := fmt.Sprintf("FROM %s\nTEMPLATE \"\"\"%s\"\"\"\nPARAMETER num_predict %d\nPARAMETER temperature 0\n", gguf, tmpl, predict)
	if err := srv.Create(ctx, "hark-tiny", modelfile, ""); err != nil {
		t.Fatal(err)
	}
}

// TestRealServerModelWithoutTools: against the real server, a model whose
// template has no tools is known as such from /api/show, so the engine
// describes its tools in text from the first request and the server never
// answers 400; its answer streams.
func TestRealServerModelWithoutTools(t *testing.T) {
	srv, gguf, ctx := realOllama(t)
	tmpl := "{{- range .Messages }}<|start_header_id|>{{ .Role }}<|end_header_id|>\n\n{{ .Content }}<|eot_id|>{{ end }}<|start_header_id|>assistant<|end_header_id|>\n\n"
	if err := srv.Create(ctx, "hark-tiny-plain", "FROM "+gguf+"\nTEMPLATE \"\"\""+tmpl+"\"\"\"\nPARAMETER num_predict 24\n", ""); err != nil {
		t.Fatal(err)
	}
	client, err := llm.New(llm.Options{Host: srv.URL, Model: "hark-tiny-plain", NumCtx: 2048})
	if err != nil {
		t.Fatal(err)
	}
	info, err := client.Show(ctx, "")
	if err != nil || info.Supports("tools") || !info.Supports("completion") {
		t.Fatalf("capabilities %v, %v: want completion without tools", info.Capabilities, err)
	}
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sched, _ := schedule.New(schedule.Options{Store: db.Schedule(), Location: time.UTC})
	reg := command.NewRegistry(command.Options{Location: time.UTC})
	reg.Register(builtin.All(builtin.Deps{Schedule: sched, Mixer: &fixedMixer{level: 50}, Memory: db.SealedFacts(db.Secrets("")), Status: noStatus{}})...)
	eng, err := New(Options{Model: client, Info: client, AnswerTokens: -1, ModelName: "hark-tiny-plain", Server: srv.URL.String(), Commands: reg,
		Dialogue: db.Dialogue(), Location: time.UTC, Policy: cost.Policy{Floor: time.Nanosecond, Share: 1e-9},
		ChatTimeout: time.Minute, ReplyBudget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	res, err := eng.Reply(ctx, Query{Text: "tell me a story about a little dog"}, func(string) {})
	if err != nil && !strings.Contains(err.Error(), "empty") {
		t.Fatalf("%v\n%s", err, srv.Log())
	}
	t.Logf("requests to the server for the reply: %d to /api/chat, %d to /api/show", strings.Count(srv.Log(), `POST     "/api/chat"`), strings.Count(srv.Log(), `POST     "/api/show"`))
	if strings.Contains(srv.Log(), "| 400 |") {
		t.Errorf("the server answered 400:\n%s", srv.Log())
	}
	if res.Timings.ModelCalls != 1 || res.Timings.FirstToken == 0 || res.Timings.FirstToken >= res.Timings.Total {
		t.Errorf("calls %d, first token %v of %v: want one streamed call", res.Timings.ModelCalls, res.Timings.FirstToken, res.Timings.Total)
	}
}

// TestRealServerLoadIsNotHung: the real server, freshly started, loads the
// model for longer than the reply budget. Without a Keeper the budget
// closes the request and the server aborts its load, as the issue found;
// with one, the question hears its line at once and is answered once the
// model is loaded, and the server never aborts a load.
func TestRealServerLoadIsNotHung(t *testing.T) {
	srv, gguf, ctx := realOllama(t)
	// A short answer: once loaded, the model answers well within the
	// budget the meter allows it, however busy the machine.
	createTiny(t, ctx, srv, gguf, 6)
	client, err := llm.New(llm.Options{Host: srv.URL, Model: "hark-tiny", NumCtx: 2048})
	if err != nil {
		t.Fatal(err)
	}
	const budget = 60 * time.Millisecond // shorter than this server's load of the model
	engine := func(k *llm.Keeper, meter *cost.Meter) *Engine {
		db, err := storage.Open(t.TempDir(), storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		eng, err := New(Options{Model: client, Info: client, AnswerTokens: -1, ModelName: "hark-tiny", Server: srv.URL.String(), Dialogue: db.Dialogue(),
			Location: time.UTC, Keeper: k, ReplyBudget: budget, Meter: meter})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(eng.Close)
		return eng
	}
	unload := func() {
		if err := client.Unload(ctx); err != nil {
			t.Fatal(err)
		}
	}

	// Before: the budget ends the question while the model loads.
	_, err = engine(nil, nil).Reply(ctx, Query{Text: "tell me a story about a little dog"}, func(string) {})
	aborted := 0
	for deadline := time.Now().Add(5 * time.Second); aborted == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		aborted = abortedLoads(srv.Log()) // the server logs it once it notices
	}
	t.Logf("without a keeper: %v; the server aborted %d loads", err, aborted)
	if !errors.Is(err, ErrTooSlow) {
		t.Fatalf("without a keeper the %v budget did not end the question during the load (err %v): the test's load is too fast to prove anything", budget, err)
	}
	if aborted == 0 {
		// The server finished this load although its asker had gone (a
		// warm page cache loads fast): the question was still lost.
		t.Logf("without a keeper the question was lost, though the server did not abort its load this time")
	}

	// After: the same budget, the model unloaded again. Once it is loaded
	// the reply budget is what the meter expects of this server; the
	// meter here knows it as slow as a busy test machine can make it, so
	// that only the load is measured against the budget.
	unload()
	k := llm.NewKeeper(llm.KeeperOptions{Server: client})
	defer k.Close()
	meter := cost.NewMeter()
	meter.Set(cost.Key(srv.URL.String(), "hark-tiny"), cost.Rates{Prompt: 40, Gen: 2, CharsPerToken: 4, Samples: 1})
	var said []string
	res, err := engine(k, meter).Reply(ctx, Query{Text: "tell me a story about a little dog"}, func(s string) { said = append(said, s) })
	if err != nil {
		t.Fatalf("with a keeper: %v (said %q)\n%s", err, said, srv.Log())
	}
	st := k.State()
	t.Logf("with a keeper: waited %v for the load (server's load %v, system prompt %v), first sentence after %v, said %d sentences",
		res.Timings.Loading, st.Load, st.Prompt, res.Timings.FirstSentence, len(said))
	if res.Timings.Loading <= budget {
		t.Errorf("the question waited %v for the load: not longer than the %v budget, so it proves nothing", res.Timings.Loading, budget)
	}
	if len(said) < 2 || said[0] != "One moment, I'm still waking up." || strings.Contains(said[1], "too long") {
		t.Errorf("said %q: want the line first, then the model's answer", said)
	}
	if n := abortedLoads(srv.Log()); n != aborted {
		t.Errorf("the server aborted %d more loads", n-aborted)
	}
	if st.Phase != llm.Ready || st.Warmed.IsZero() {
		t.Errorf("keeper after the answer: %+v", st)
	}
}

// TestRealServerTellsALoadFromAModelInMemory: the real server lists a
// model its own engine runs (gemma3, qwen3; OLLAMA_NEW_ENGINE=1 puts the
// tiny llama on it too) from the start of its load, with an expiry it
// computes afresh at each listing until a request has ended since the
// load; from then on the expiry stands still. This is what llm.Settling
// reads, and what ollamatest serves.
func TestRealServerTellsALoadFromAModelInMemory(t *testing.T) {
	srv, gguf, ctx := realOllama(t, "OLLAMA_NEW_ENGINE=1")
	createTiny(t, ctx, srv, gguf, 6)
	client, err := llm.New(llm.Options{Host: srv.URL, Model: "hark-tiny", NumCtx: 2048})
	if err != nil {
		t.Fatal(err)
	}
	// twice lists the model twice, as the Keeper does; this server's clock
	// (Linux's) moves in nanoseconds, so a few milliseconds apart is enough
	// to catch a short load more than once.
	twice := func() (first, again llm.Loaded, listed bool) {
		l, err := client.Running(ctx)
		if err != nil || len(l) == 0 {
			return first, again, false
		}
		time.Sleep(2 * time.Millisecond)
		m, err := client.Running(ctx)
		if err != nil || len(m) == 0 {
			return first, again, false
		}
		return l[0], m[0], true
	}
	loaded := make(chan error, 1)
	go func() { loaded <- client.Load(ctx) }()
	var during []bool
	for done := false; !done; {
		first, again, listed := twice()
		select {
		case err := <-loaded:
			if err != nil {
				t.Fatalf("load: %v\n%s", err, srv.Log())
			}
			done = true
		default:
			if listed {
				during = append(during, llm.Settling(first, again))
			}
		}
	}
	moved := 0
	for _, s := range during {
		if s {
			moved++
		}
	}
	t.Logf("%d pairs of listings during the load; the expiry moved in %d", len(during), moved)
	if len(during) == 0 {
		t.Skip("the load was over before two listings could be taken: nothing to see")
	}
	if moved != len(during) {
		t.Errorf("the expiry stood still in %d of %d pairs of listings during the load, want it moving in each", len(during)-moved, len(during))
	}
	// The server sets the expiry as it finishes with the load's request,
	// a moment after its answer went out (under load, a listing or two
	// later): once that is done, the expiry stands still.
	var first, again llm.Loaded
	listed := false
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if first, again, listed = twice(); listed && !llm.Settling(first, again) {
			return
		}
	}
	t.Errorf("listings once loaded, for 2 s: last %+v then %+v, want the expiry standing still", first, again)
}

// abortedLoads counts the loads the server gave up because its client
// went away, as its log tells: while it was starting the runner, or
// while the runner was loading the model.
func abortedLoads(log string) int {
	n := strings.Count(log, "aborting load")
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, `msg="Load failed"`) && strings.Contains(l, "context canceled") {
			n++
		}
	}
	return n
}
