package reply

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/ollamaserve"
	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// benchServer is the real Ollama server with the bench model (random
// weights in Llama 3.2 1B's shape; `make bench-model` imports it), bounded
// to 24 tokens an answer; or a skip saying what is missing.
func benchServer(b *testing.B) *llm.Client {
	b.Helper()
	model := os.Getenv("HARK_BENCH_MODEL")
	if model == "" {
		model = "hark-bench-1b"
	}
	models := os.Getenv("HARK_BENCH_MODELS")
	if models == "" {
		models = "../build/llm/models"
	}
	models, _ = filepath.Abs(models)
	if _, err := os.Stat(models); err != nil {
		b.Skipf("no bench model: %s is absent (make bench-model imports it)", models)
	}
	bin, err := ollamaserve.Binary(sharedtest.Dir(), filepath.Dir(models))
	if err != nil {
		b.Skipf("no Ollama server: %v", err)
	}
	srv, err := ollamaserve.Start(b.Context(), bin, models)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	if !srv.Has(b.Context(), model) {
		b.Skipf("the server has no model %s (make bench-model imports it)", model)
	}
	bounded := model + "-24"
	if err := srv.Create(b.Context(), bounded, "FROM "+model+"\nPARAMETER num_predict 24\n", ""); err != nil {
		b.Fatal(err)
	}
	client, err := llm.New(llm.Options{Host: srv.URL, Model: bounded, NumCtx: 4096, KeepAlive: 30 * time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	return client
}

// benchEngine is a box's engine over the bench server, with the built-in
// commands and the default budgets.
func benchEngine(b *testing.B, client *llm.Client, k *llm.Keeper) *Engine {
	b.Helper()
	db, err := storage.Open(b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	sched, _ := schedule.New(schedule.Options{Store: db.Schedule(), Location: time.UTC})
	reg := command.NewRegistry(command.Options{Location: time.UTC})
	if err := reg.Register(builtin.All(builtin.Deps{Schedule: sched, Mixer: &fixedMixer{level: 50}, Memory: db.SealedFacts(db.Secrets("")), Status: noStatus{}})...); err != nil {
		b.Fatal(err)
	}
	eng, err := New(Options{Model: client, Info: client, AnswerTokens: -1, ModelName: client.Model(), Server: client.Host().String(), Commands: reg,
		Dialogue: db.Dialogue(), Diary: db.Diary(), Facts: db.Facts(), Location: time.UTC, Keeper: k})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(eng.Close)
	return eng
}

// heard is when a question's words came: the first (the waiting line,
// when there was one) and the answer's first sentence.
type heard struct {
	first, answer time.Duration
	line          bool
}

func askTimed(ctx context.Context, e *Engine, text string) (heard, error) {
	began := time.Now()
	var h heard
	_, err := e.Reply(ctx, Query{Text: text}, func(s string) {
		at := time.Since(began)
		if h.first == 0 {
			h.first = at
		}
		if s == "One moment, I'm still waking up." {
			h.line = true
			return
		}
		if h.answer == 0 {
			h.answer = at
		}
	})
	return h, err
}

// BenchmarkModelReadiness is the box's first minute against the real
// server and the bench model: power-on to ready (the model loaded and the
// system prompt in the server's cache), a question 2 s into the warm-up
// (time to the first words, and to the answer's first sentence), and the
// first question after another client unloaded the model and the Keeper
// loaded it again. Each starts from the model unloaded.
func BenchmarkModelReadiness(b *testing.B) {
	client := benchServer(b)
	ctx := b.Context()
	unload := func() {
		if err := client.Unload(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("power-on-to-ready", func(b *testing.B) {
		b.StopTimer()
		for range b.N {
			unload()
			k := llm.NewKeeper(llm.KeeperOptions{Server: client})
			e := benchEngine(b, client, k)
			b.StartTimer()
			k.Probe(ctx)
			k.Load(e.Warm)
			if err := k.Wait(ctx); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			st := k.State()
			b.ReportMetric(st.Load.Seconds(), "load_s")
			b.ReportMetric(st.Prompt.Seconds(), "system_prompt_s")
			k.Close()
		}
	})
	b.Run("question-during-warm-up", func(b *testing.B) {
		b.StopTimer()
		for range b.N {
			unload()
			k := llm.NewKeeper(llm.KeeperOptions{Server: client})
			e := benchEngine(b, client, k)
			k.Probe(ctx) // as the daemon's Keep does: the model is found cold
			k.Load(e.Warm)
			time.Sleep(2 * time.Second) // the question comes 2 s after start
			b.StartTimer()
			h, err := askTimed(ctx, e, "who wrote the novel Dune and when was it published")
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if !h.line && h.first > 3*time.Second {
				b.Fatalf("no words for %v and no waiting line while the model loaded", h.first)
			}
			b.ReportMetric(h.first.Seconds(), "first_words_s")
			b.ReportMetric(h.answer.Seconds(), "answer_s")
			k.Close()
		}
	})
	b.Run("first-question-after-eviction", func(b *testing.B) {
		b.StopTimer()
		for range b.N {
			k := llm.NewKeeper(llm.KeeperOptions{Server: client})
			e := benchEngine(b, client, k)
			kctx, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { defer close(done); k.Keep(kctx, time.Second, e.Warm, true) }()
			waitReady(b, k)
			unload()
			for k.State().Phase == llm.Ready { // until the Keeper notices
				<-k.Changed()
			}
			waitReady(b, k)
			b.StartTimer()
			h, err := askTimed(ctx, e, "who wrote the novel Dune and when was it published")
			b.StopTimer()
			stop()
			<-done
			if err != nil || h.line {
				b.Fatalf("err %v, waiting line %v: the model was loaded again before the question", err, h.line)
			}
			b.ReportMetric(h.answer.Seconds(), "answer_s")
			k.Close()
		}
	})
}

func waitReady(b *testing.B, k *llm.Keeper) {
	b.Helper()
	for {
		ch := k.Changed()
		if st := k.State(); st.Phase == llm.Ready && !st.Warmed.IsZero() && k.Wait(b.Context()) == nil {
			return
		}
		<-ch
	}
}
