package reply

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
)

// coldModel takes longer to load than any reply budget these tests give.
var coldModel = ollamatest.Model{Name: "llama3.2:3b", Family: "llama", ParameterSize: "3.2B", Capabilities: []string{"completion", "tools"},
	LoadDelay: 1200 * time.Millisecond}

// keptFixture is the engine over a server whose model starts unloaded,
// with a Keeper, as the daemon has it.
func keptFixture(t *testing.T, o Options) (*fixture, *llm.Keeper) {
	t.Helper()
	f := newFixtureHooked(t, coldModel, o, nil, func(o *Options, c *llm.Client) {
		o.Keeper = llm.NewKeeper(llm.KeeperOptions{Server: c})
		t.Cleanup(o.Keeper.Close)
	})
	return f, f.eng.o.Keeper
}

// TestLoadingModelIsNotHung: a question while the model loads, for longer
// than the reply budget, hears a line at once, waits for the load, and is
// answered; the load is the Keeper's warm-up, never cut short.
func TestLoadingModelIsNotHung(t *testing.T) {
	f, k := keptFixture(t, Options{ReplyBudget: 300 * time.Millisecond})
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).on(kindChat, ollamatest.Reply{Content: "Good morning to you."})
	began := time.Now()
	var firstWords time.Duration
	var said []string
	res, err := f.eng.Reply(t.Context(), Query{Text: "good morning, how are you"}, func(s string) {
		if firstWords == 0 {
			firstWords = time.Since(began)
		}
		said = append(said, s)
	})
	if err != nil {
		t.Fatalf("%v (said %q)", err, said)
	}
	if len(said) != 2 || said[0] != "One moment, I'm still waking up." || said[1] != "Good morning to you." {
		t.Errorf("said %q, want the waiting line, then the answer", said)
	}
	if !slices.Equal(res.Sentences, []string{"Good morning to you."}) {
		t.Errorf("the answer's sentences are %q: the waiting line is not part of it", res.Sentences)
	}
	if firstWords > time.Second || res.Timings.Loading < time.Second {
		t.Errorf("first words after %v, waited %v for the load: want words at once and the load's 1.2 s waited", firstWords, res.Timings.Loading)
	}
	if loads, aborted := f.srv.Loads(); loads != 1 || aborted != 0 {
		t.Errorf("loads %d, aborted %d: want one load, never abandoned", loads, aborted)
	}
	if st := k.State(); st.Phase != llm.Ready || st.Warmed.IsZero() {
		t.Errorf("keeper after the answer: %+v", st)
	}
	if kinds := kinds(f.srv); kinds[0] != "warm" {
		t.Errorf("calls %v: the load is the warm-up, with the system prompt", kinds)
	}
}

// TestLoadBegunElsewhereIsWaitedFor: two speakers share the model server.
// The bedroom's question of the morning began loading the model a moment
// ago, and the server lists it from then on; the kitchen's question hears
// the line at once, waits for that load (no second one), and is answered.
func TestLoadBegunElsewhereIsWaitedFor(t *testing.T) {
	var bedroom *llm.Client
	// The meter knows nothing of the server: the budget is the 300 ms.
	o := Options{ReplyBudget: 300 * time.Millisecond, PlannerOff: true, Meter: cost.NewMeter()}
	f := newFixtureHooked(t, coldModel, o, nil, func(o *Options, c *llm.Client) {
		o.Keeper = llm.NewKeeper(llm.KeeperOptions{Server: c})
		t.Cleanup(o.Keeper.Close)
		bedroom, _ = llm.New(llm.Options{Host: c.Host(), Model: coldModel.Name})
	})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Good morning to you."})
	loaded := make(chan error, 1)
	go func() { loaded <- bedroom.Load(t.Context()) }()
	defer func() { <-loaded }()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if l, _ := bedroom.Running(t.Context()); len(l) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never listed the bedroom's load")
		}
	}
	_, said, err := f.ask(t, "good morning, how are you")
	if err != nil || !slices.Equal(said, []string{"One moment, I'm still waking up.", "Good morning to you."}) {
		t.Errorf("said %q, err %v: want the waiting line, then the answer", said, err)
	}
	if loads, aborted := f.srv.Loads(); loads != 1 || aborted != 0 {
		t.Errorf("loads %d, aborted %d: want the bedroom's one load", loads, aborted)
	}
}

// TestHoldGoesToTheAsker: with Query.Hold set, the wait is told there and
// not said.
func TestHoldGoesToTheAsker(t *testing.T) {
	f, _ := keptFixture(t, Options{ReplyBudget: 300 * time.Millisecond})
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).on(kindChat, ollamatest.Reply{Content: "Hello."})
	var holds []Hold
	var said []string
	_, err := f.eng.Reply(t.Context(), Query{Text: "tell me something nice", Hold: func(h Hold) { holds = append(holds, h) }},
		func(s string) { said = append(said, s) })
	if err != nil || len(holds) != 1 || holds[0].Why != ForLoad || holds[0].Model == "" || !slices.Equal(said, []string{"Hello."}) {
		t.Errorf("holds %+v, said %q, err %v", holds, said, err)
	}
}

// TestCancelledQuestionLeavesTheLoad: the button cuts a question short
// while the model loads; the load goes on, and the next question finds
// the model ready, with no line.
func TestCancelledQuestionLeavesTheLoad(t *testing.T) {
	f, k := keptFixture(t, Options{ReplyBudget: 300 * time.Millisecond})
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).on(kindChat, ollamatest.Reply{Content: "Here I am."})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := f.eng.Reply(ctx, Query{Text: "are you there"}, func(string) {}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the cancellation", err)
	}
	if err := k.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, said, err := f.ask(t, "are you there")
	if err != nil || !slices.Equal(said, []string{"Here I am."}) {
		t.Errorf("said %q, err %v", said, err)
	}
	if loads, aborted := f.srv.Loads(); loads != 1 || aborted != 0 {
		t.Errorf("loads %d, aborted %d", loads, aborted)
	}
}

// TestLoadBudget: a load longer than the load budget ends the question
// with a line that says so; the load itself goes on to the end.
func TestLoadBudget(t *testing.T) {
	f, k := keptFixture(t, Options{ReplyBudget: 100 * time.Millisecond, LoadBudget: 400 * time.Millisecond})
	_, said, err := f.ask(t, "tell me something nice")
	if !errors.Is(err, ErrStillLoading) || len(said) != 2 || !strings.Contains(said[1], "still loading") {
		t.Fatalf("said %q, err %v: want the waiting line, then that the model is still loading", said, err)
	}
	if err := k.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if loads, aborted := f.srv.Loads(); loads != 1 || aborted != 0 {
		t.Errorf("loads %d, aborted %d: the load must finish", loads, aborted)
	}
}

// TestOfflineNeverWaitsForTheModel: a timer is set while the model loads,
// with no line and no wait.
func TestOfflineNeverWaitsForTheModel(t *testing.T) {
	f, k := keptFixture(t, Options{})
	k.Load(nil)
	began := time.Now()
	res, said, err := f.ask(t, "set a timer for 5 minutes")
	if err != nil || !res.Offline || len(said) != 1 || strings.Contains(said[0], "moment") || time.Since(began) > time.Second {
		t.Errorf("said %q, offline %v, err %v, after %v", said, res.Offline, err, time.Since(began))
	}
}

// TestBudgetStillEndsSilence: with a Keeper, a loaded model that says
// nothing, and a server that never answers, still get the budget's line
// within the budget.
func TestBudgetStillEndsSilence(t *testing.T) {
	const budget = 500 * time.Millisecond
	t.Run("loaded model says nothing", func(t *testing.T) {
		f, k := keptFixture(t, Options{ReplyBudget: budget})
		k.Load(nil)
		if err := k.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		f.model.json(kindPlanner, `{"steps": ["reply"]}`).on(kindChat, ollamatest.Reply{Content: "Late.", FirstTokenDelay: 20 * time.Second})
		began := time.Now()
		_, said, err := f.ask(t, "hello there my friend")
		if !errors.Is(err, ErrTooSlow) || len(said) != 1 || time.Since(began) > budget+3*time.Second {
			t.Errorf("said %q, err %v, after %v", said, err, time.Since(began))
		}
	})
	t.Run("silent server", func(t *testing.T) {
		srv := newSilentServer(t)
		client, err := llm.New(llm.Options{Host: &url.URL{Scheme: "http", Host: srv.ln.Addr().String()}, Model: "llama3.2:3b"})
		if err != nil {
			t.Fatal(err)
		}
		k := llm.NewKeeper(llm.KeeperOptions{Server: client})
		defer k.Close()
		f := newFixture(t, smallModel, Options{Model: client, Aux: client, Info: client, Keeper: k, ReplyBudget: budget})
		began := time.Now()
		_, said, err := f.ask(t, "who wrote the novel Dune")
		if !errors.Is(err, ErrTooSlow) || len(said) != 1 || !strings.Contains(said[0], "taking too long") {
			t.Errorf("said %q, err %v", said, err)
		}
		if took := time.Since(began); took > budget+3*time.Second {
			t.Errorf("the budget's line came after %v with a %v budget", took, budget)
		}
	})
}

// TestModelTheServerLacksIsNotWaitedFor: the configured model is not on
// the server (a typo, or never pulled). Asking to load it fails at once;
// the household hears that the model is not installed, not first that
// the box is still waking up, on the first question and every one after.
func TestModelTheServerLacksIsNotWaitedFor(t *testing.T) {
	f := newFixtureHooked(t, coldModel, Options{ReplyBudget: 300 * time.Millisecond, PlannerOff: true}, nil, func(o *Options, c *llm.Client) {
		missing, err := llm.New(llm.Options{Host: c.Host(), Model: "llama3.2:3bb"})
		if err != nil {
			t.Fatal(err)
		}
		o.Model, o.Info, o.ModelName = missing, missing, "llama3.2:3bb"
		o.Keeper = llm.NewKeeper(llm.KeeperOptions{Server: missing})
		t.Cleanup(o.Keeper.Close)
	})
	for i := range 2 {
		_, said, err := f.ask(t, "tell me a story")
		if !errors.Is(err, llm.ErrModelNotFound) || !slices.Equal(said, []string{"My language model isn't installed on the server."}) {
			t.Errorf("question %d: said %q, err %v; want only that the model is not installed", i+1, said, err)
		}
	}
}
