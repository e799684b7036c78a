package reply

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/llm"
)

// TestRealServerRamblingAnswerEnds: the real tiny llama, with no bound of
// its own, never stops telling its story; the chat answer's bound stops it
// at its last whole sentence, where without the bound it talked for the
// whole chat time-out and then said it took too long (measured here, with
// the default bound of 256 tokens on a busy 2-core machine: 60 s and 32
// sentences without it, 24 to 44 s and 12 sentences with it). A bound of
// 64 keeps the test short. What tells the bound from the time-out is not
// the time taken (a busy machine runs the tiny llama many times slower),
// but how the answer ends: within the bound's words, with no apology; the
// time-out is long enough that it is never what stops it.
func TestRealServerRamblingAnswerEnds(t *testing.T) {
	srv, gguf, ctx := realOllama(t)
	tmpl, err := os.ReadFile("../internal/benchmodel/llama32.gotmpl")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Create(ctx, "hark-rambler", fmt.Sprintf("FROM %s\nTEMPLATE \"\"\"%s\"\"\"\nPARAMETER temperature 0\n", gguf, tmpl), ""); err != nil {
		t.Fatal(err)
	}
	client, err := llm.New(llm.Options{Host: srv.URL, Model: "hark-rambler", NumCtx: 2048})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := New(Options{Model: client, Info: client, ModelName: "hark-rambler", Server: srv.URL.String(), PlannerOff: true, AnswerTokens: 64,
		Location: time.UTC, ChatTimeout: 5 * time.Minute, ReplyBudget: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var said []string
	began := time.Now()
	res, err := eng.Reply(ctx, Query{Text: "tell me a story about a little dog"}, func(s string) { said = append(said, s) })
	took := time.Since(began)
	words := len(strings.Fields(strings.Join(said, " ")))
	t.Logf("answered in %v (first token after %v): %d sentences, %d words", took.Round(time.Millisecond), res.Timings.FirstToken.Round(time.Millisecond), len(said), words)
	if err != nil {
		t.Fatalf("err = %v after %v", err, took)
	}
	// 64 tokens are fewer than 64 words.
	if words == 0 || words > 64 || strings.Contains(said[len(said)-1], "too long") {
		t.Errorf("took %v, said %d sentences (%d words) ending %q: want the story over at its bound of 64 tokens, not at the time-out", took, len(said), words, said[max(0, len(said)-1):])
	}
}

// TestRealServerKeepsTheModelsBound: the real server shows a Modelfile's
// num_predict in its parameters, and a model that bounds its answers
// there to fewer tokens than Hark's default bound (256) keeps its own:
// the tiny llama's story, bounded to 12 tokens by its Modelfile, ends
// within them, where Hark's num_predict of 256 took the bound's place and
// let it ramble.
func TestRealServerKeepsTheModelsBound(t *testing.T) {
	srv, gguf, ctx := realOllama(t)
	createTiny(t, ctx, srv, gguf, 12)
	client, err := llm.New(llm.Options{Host: srv.URL, Model: "hark-tiny", NumCtx: 2048})
	if err != nil {
		t.Fatal(err)
	}
	info, err := client.Show(ctx, "")
	if err != nil || info.NumPredict != 12 {
		t.Fatalf("Show = %+v, %v: want NumPredict 12", info, err)
	}
	eng, err := New(Options{Model: client, Info: client, ModelName: "hark-tiny", Server: srv.URL.String(), PlannerOff: true,
		Location: time.UTC, ChatTimeout: 5 * time.Minute, ReplyBudget: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var said []string
	if _, err := eng.Reply(ctx, Query{Text: "tell me a story about a little dog"}, func(s string) { said = append(said, s) }); err != nil {
		t.Fatal(err)
	}
	// 12 tokens are fewer than 12 words.
	if words := len(strings.Fields(strings.Join(said, " "))); words == 0 || words > 12 {
		t.Errorf("said %d words: %q; want the story over within the model's own 12 tokens", words, said)
	}
}
