package reply

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// TestReplyNamesTheServerThatAnswered: with the first server of the
// fallback chain down, the reply and the stored exchange name the backup
// server and its model, not the first configured.
func TestReplyNamesTheServerThatAnswered(t *testing.T) {
	backupModel := ollamatest.Model{Name: "qwen3:1.7b", Family: "qwen3", ParameterSize: "1.7B", Capabilities: []string{"completion", "tools"}}
	backup := ollamatest.New(backupModel)
	t.Cleanup(backup.Close)
	first, _ := llm.New(llm.Options{Host: deadHost(t), Model: smallModel.Name})
	bu, _ := url.Parse(backup.URL)
	second, _ := llm.New(llm.Options{Host: bu, Model: backupModel.Name})
	chain, err := llm.NewChain(llm.ChainOptions{Endpoints: []*llm.Client{first, second}})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, smallModel, Options{Model: chain, Info: chain})
	backup.Respond(f.model.respond)
	f.model.on(kindChat, ollamatest.Reply{Content: "Why did the kettle sing? It was steamed up."})
	res, _, err := f.ask(t, "tell me a joke")
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != backupModel.Name || res.Server != backup.URL {
		t.Errorf("result names %q at %q, want %q at %q", res.Model, res.Server, backupModel.Name, backup.URL)
	}
	got, _ := f.db.Dialogue().Recent(t.Context(), clock.Add(-time.Hour), 5)
	if len(got) != 1 || got[0].Model != backupModel.Name || got[0].Server != backup.URL {
		t.Errorf("stored %+v", got)
	}
}

// TestNativeToolsComeBackWithTheServer: the household's big server takes
// native tools; its backup's model does not, so the question it answers
// while the big server is down describes the tools in text. Once the big
// server is back, its requests carry native tools again.
func TestNativeToolsComeBackWithTheServer(t *testing.T) {
	backup := ollamatest.New(textModel)
	t.Cleanup(backup.Close)
	var chain *llm.Chain
	f := newFixtureHooked(t, smallModel, Options{PlannerOff: true}, nil, func(o *Options, first *llm.Client) {
		bu, _ := url.Parse(backup.URL)
		second, _ := llm.New(llm.Options{Host: bu, Model: textModel.Name})
		chain, _ = llm.NewChain(llm.ChainOptions{Endpoints: []*llm.Client{first, second}})
		o.Model, o.Info = chain, chain
	})
	backup.Respond(f.model.respond)
	down := false
	f.srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
		if down {
			return ollamatest.Reply{Fault: ollamatest.ServerError, Error: "llama runner process has terminated"}
		}
		return f.model.respond(r)
	})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Why did the kettle sing? It was steamed up."})
	// lastChat is the last chat call a server saw.
	lastChat := func(srv *ollamatest.Server) ollamatest.ChatRequest {
		t.Helper()
		chats := srv.Chats()
		for i := len(chats) - 1; i >= 0; i-- {
			if kindOf(chats[i]) == kindChat {
				return chats[i]
			}
		}
		t.Fatal("no chat call")
		return ollamatest.ChatRequest{}
	}
	ask := func(q string) {
		t.Helper()
		if _, said, err := f.ask(t, q); err != nil {
			t.Fatalf("%q: said %q, err %v", q, said, err)
		}
	}
	ask("tell me a joke")
	if len(lastChat(f.srv).Tools) == 0 {
		t.Fatal("the big server got no native tools")
	}
	down = true
	ask("tell me another joke")
	if c := lastChat(backup); len(c.Tools) != 0 || !strings.Contains(c.Messages[0].Content, "```tool_call") {
		t.Fatalf("the backup's answer was asked with %d native tools, want them in text", len(c.Tools))
	}
	down = false
	chain.CheckNow(t.Context())
	ask("and one more joke please")
	if len(lastChat(f.srv).Tools) == 0 {
		t.Error("the big server is back, and got no native tools")
	}
}

// hungChain is the engine over a chain of two servers: the fixture's,
// whose model hangs on every chat call (the server answers everything
// else: its version, /api/ps, /api/show, loading the model), and a backup
// whose model answers. stalls is the chain's ChainOptions.Stalls; with
// keep, the engine has a Keeper, as the daemon. The engine's meter knows
// neither server, so the reply budget is o.ReplyBudget.
func hungChain(t *testing.T, served ollamatest.Model, o Options, stalls int, keep bool) (*fixture, *llm.Chain, *ollamatest.Server) {
	t.Helper()
	o.Meter = cost.NewMeter()
	backup := ollamatest.New(smallModel)
	t.Cleanup(backup.Close)
	backupModel := &model{replytest.New()}
	backupModel.Default(kindChat, ollamatest.Reply{Content: "From the backup."})
	backup.Respond(backupModel.respond)
	var chain *llm.Chain
	f := newFixtureHooked(t, served, o, nil, func(o *Options, first *llm.Client) {
		bu, _ := url.Parse(backup.URL)
		second, _ := llm.New(llm.Options{Host: bu, Model: smallModel.Name})
		var err error
		if chain, err = llm.NewChain(llm.ChainOptions{Endpoints: []*llm.Client{first, second}, Stalls: stalls}); err != nil {
			t.Fatal(err)
		}
		o.Model, o.Info = chain, chain
		if keep {
			o.Keeper = llm.NewKeeper(llm.KeeperOptions{Server: chain})
			t.Cleanup(o.Keeper.Close)
		}
	})
	f.srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{Content: "Too late.", FirstTokenDelay: time.Hour}
	})
	return f, chain, backup
}

// TestHungServerMakesWayForTheBackup: the household's first model server
// takes questions and never answers them (its model hung; it still
// answers its version). Each question's budget ends with the line that
// the model is taking too long; after two in a row the backup answers.
func TestHungServerMakesWayForTheBackup(t *testing.T) {
	f, chain, backup := hungChain(t, smallModel, Options{PlannerOff: true, ReplyBudget: 200 * time.Millisecond}, 0, false)
	for i := range 2 {
		if _, said, err := f.ask(t, "what is the capital of france"); !errors.Is(err, ErrTooSlow) {
			t.Fatalf("question %d: said %q, err %v: want the budget's line", i+1, said, err)
		}
	}
	res, said, err := f.ask(t, "what is the capital of france")
	if err != nil || !slices.Equal(said, []string{"From the backup."}) || res.Server != backup.URL {
		t.Errorf("third question: said %q by %q, err %v; chain %+v", said, res.Server, err, chain.Status())
	}
}

// TestLoadingModelIsNotTakenForHung: the budget of a question ends while
// the Keeper knows the model to be loading again (evicted under the
// question): the server is not blamed. Once loaded, a question it leaves
// unanswered is (here, one is enough to skip it).
func TestLoadingModelIsNotTakenForHung(t *testing.T) {
	// The budget leaves room for the reply's preparation on a busy
	// machine; the load outlasts what is left of it.
	loading := coldModel
	loading.LoadDelay = 2 * time.Second
	f, chain, _ := hungChain(t, loading, Options{PlannerOff: true, ReplyBudget: time.Second}, 1, true)
	k := f.eng.o.Keeper
	k.Ensure(t.Context(), nil)
	if err := k.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	asked := make(chan error, 1)
	go func() {
		_, _, err := f.ask(t, "what is the capital of france")
		asked <- err
	}()
	for !slices.Contains(kinds(f.srv), kindChat) {
		select {
		case err := <-asked:
			t.Fatalf("the reply ended before its model call was sent: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	f.srv.Unload(loading.Name) // another client's model takes its place
	if st := k.Ensure(t.Context(), nil); st.Phase != llm.Loading {
		t.Fatalf("keeper %+v after the eviction, want it loading", st)
	}
	if err := <-asked; !errors.Is(err, ErrTooSlow) {
		t.Fatalf("err %v, want the budget's end", err)
	}
	if st := chain.Status(); !st[0].Up {
		t.Fatalf("status %+v: a server whose model is loading is not hung", st)
	}
	if err := k.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.ask(t, "what is the capital of france"); !errors.Is(err, ErrTooSlow) {
		t.Fatalf("err %v, want the budget's end", err)
	}
	if st := chain.Status(); st[0].Up {
		t.Errorf("status %+v: a loaded model that says nothing is a hung server", st)
	}
}

// TestInlineReasoningMarksOneModel: the mark that a model reasons in its
// answer's text, and so is not bounded, is its server's and model's: the
// backup's other model, answering while the first server is down, is
// bounded; the first, back, is not. A model changed in the settings
// applies with a restart, a new engine, which starts with no mark.
func TestInlineReasoningMarksOneModel(t *testing.T) {
	backup := ollamatest.New(textModel)
	t.Cleanup(backup.Close)
	var chain *llm.Chain
	f := newFixtureHooked(t, smallModel, Options{PlannerOff: true, AnswerTokens: 20}, nil, func(o *Options, first *llm.Client) {
		bu, _ := url.Parse(backup.URL)
		second, _ := llm.New(llm.Options{Host: bu, Model: textModel.Name})
		chain, _ = llm.NewChain(llm.ChainOptions{Endpoints: []*llm.Client{first, second}})
		o.Model, o.Info = chain, chain
	})
	backup.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "Dogs bark."} })
	down := false
	f.srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
		if down {
			return ollamatest.Reply{Fault: ollamatest.ServerError, Error: "llama runner process has terminated"}
		}
		return ollamatest.Reply{Content: "<think> hmm </think> Dogs wag."}
	})
	predict := func(srv *ollamatest.Server) any {
		t.Helper()
		chats := srv.Chats()
		for i := len(chats) - 1; i >= 0; i-- {
			if kindOf(chats[i]) == kindChat {
				return chats[i].Options["num_predict"]
			}
		}
		t.Fatal("no chat call")
		return nil
	}
	for _, step := range []struct {
		q    string
		down bool
		srv  *ollamatest.Server
		want any
	}{
		{"tell me about dogs", false, f.srv, float64(20)}, // not known yet: bounded
		{"and their tails", false, f.srv, nil},            // seen reasoning: unbounded
		{"and their ears", true, backup, float64(20)},     // another model: bounded
		{"and their paws", false, f.srv, nil},             // the first again: unbounded
	} {
		down = step.down
		chain.CheckNow(t.Context())
		if _, said, err := f.ask(t, step.q); err != nil || len(said) == 0 {
			t.Fatalf("%q: said %q, err %v", step.q, said, err)
		}
		if got := predict(step.srv); got != step.want {
			t.Errorf("%q: num_predict %v, want %v", step.q, got, step.want)
		}
	}
}
