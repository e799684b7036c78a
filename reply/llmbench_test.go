//go:build llmbench

package reply

import (
	"context"
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
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// TestLLMBench is `make bench-llm`: the reply engine against the real
// Ollama server serving the bench model (random weights in Llama 3.2 1B's
// shape, its real tokenizer, Q4_K_M; `make bench-model` imports it), for a
// greeting, a reply-only question, a one-tool command and a memory
// question, two turns each. Per turn it prints the model calls, the prompt
// tokens the server evaluated and those its cache reused (from the model
// runner's own log), and the time to the first sentence ("first audio");
// beside them, the bare model's time to first token for the same words
// with no system prompt and no tools. Random weights say nothing sensible:
// this measures cost, not content.
func TestLLMBench(t *testing.T) {
	model := envOr("HARK_BENCH_MODEL", "hark-bench-1b")
	models, _ := filepath.Abs(envOr("HARK_BENCH_MODELS", "../build/llm/models"))
	bin, err := ollamaserve.Binary(sharedtest.Dir(), filepath.Dir(models))
	if err != nil {
		t.Skipf("bench-llm skipped: %v", err)
	}
	ctx := t.Context()
	srv, err := ollamaserve.Start(ctx, bin, models)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if !srv.Has(ctx, model) {
		t.Skipf("bench-llm skipped: the server has no model %s (make bench-model imports it)", model)
	}
	// Random weights rarely stop by themselves: each answer is bounded, by
	// a model that shares the bench model's weights.
	bounded := model + "-24"
	if err := srv.Create(ctx, bounded, "FROM "+model+"\nPARAMETER num_predict 24\n", ""); err != nil {
		t.Fatal(err)
	}
	model = bounded
	client, err := llm.New(llm.Options{Host: srv.URL, Model: model, NumCtx: 4096, KeepAlive: -1})
	if err != nil {
		t.Fatal(err)
	}

	type turnCase struct{ first, second string }
	cases := []struct {
		name string
		turn turnCase
	}{
		{"greeting", turnCase{"hello there", "how are you today"}},
		{"reply-only", turnCase{"who wrote the novel Dune and when was it published", "what else did he write"}},
		{"one-tool", turnCase{"could you make sure I water the plants at six this evening", "and the balcony ones at seven"}},
		{"memory", turnCase{"did I tell you when my sister's birthday is", "and what should I give her"}},
	}

	// The bare model first: the same words alone, no system prompt, no tools.
	bare := map[string]time.Duration{}
	client.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "load"}}}, nil) // loads the model
	for _, c := range cases {
		began := time.Now()
		var first time.Duration
		_, err := client.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: c.turn.first}}}, func(ch llm.Chunk) error {
			if first == 0 && ch.Content != "" {
				first = time.Since(began)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		bare[c.name] = first
	}

	fmt.Println("one line per case: calls, prompt tokens evaluated and reused (model runner log), ms to first audio and first token, the bare model's ms to first token")
	for _, c := range cases {
		db, err := storage.Open(t.TempDir(), storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if c.name == "memory" {
			if _, err := db.Facts().Add(ctx, "my sister's birthday is on the fourth of May and she loves orchids", time.Now().Add(-72*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		sched, _ := schedule.New(schedule.Options{Store: db.Schedule(), Location: time.UTC})
		reg := command.NewRegistry(command.Options{Location: time.UTC})
		if err := reg.Register(builtin.All(builtin.Deps{Schedule: sched, Mixer: &fixedMixer{level: 50}, Memory: db.SealedFacts(db.Secrets("")), Status: noStatus{}})...); err != nil {
			t.Fatal(err)
		}
		eng, err := New(benchOptions(Options{Model: client, Info: client, ModelName: model, Commands: reg,
			Dialogue: db.Dialogue(), Diary: db.Diary(), Facts: db.Facts(), Location: time.UTC, Place: "Lisbon",
			ReplyBudget: 10 * time.Minute, ChatTimeout: 10 * time.Minute}, srv.URL.String()))
		if err != nil {
			t.Fatal(err)
		}
		if c.name == cases[0].name {
			// The box starts: the daemon warms the model up.
			began := time.Now()
			warm(ctx, eng)
			fmt.Printf("%-14s calls=%d ms=%.0f\n", "warm-up", len(srv.CacheUses())-1-len(cases), ms(time.Since(began)))
		}
		for i, q := range []string{c.turn.first, c.turn.second} {
			before := len(srv.CacheUses())
			res, err := eng.Reply(context.WithoutCancel(ctx), Query{Text: q}, func(string) {})
			if err != nil {
				t.Logf("%s turn %d: %v", c.name, i+1, err)
			}
			uses := srv.CacheUses()[before:]
			evaluated, reused, prompt := 0, 0, 0
			for _, u := range uses {
				evaluated += u.Prompt - u.Used
				reused += u.Used
				prompt += u.Prompt
			}
			pct := 0.0
			if prompt > 0 {
				pct = 100 * float64(reused) / float64(prompt)
			}
			first := res.Timings.FirstSentence
			note := ""
			if res.Offline {
				note = " (offline)"
			}
			name := c.name
			if i == 1 {
				name += "/turn2"
			}
			fmt.Printf("%-14s calls=%d evaluated=%d reused=%d reused_pct=%.0f first_audio_ms=%.0f first_token_ms=%.0f bare_first_token_ms=%.0f ratio=%.2f tool_tokens=%d stand_ins=%s%s\n",
				name, len(uses), evaluated, reused, pct, ms(first), ms(res.Timings.FirstToken), ms(bare[c.name]),
				float64(first)/float64(max(bare[c.name], 1)), toolTokens(res), strings.Join(standIns(res), ","), note)
		}
		eng.Close()
		db.Close()
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
