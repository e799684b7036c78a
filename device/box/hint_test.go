package box

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// TestModelHints: each hint names the server and says the model's name
// as a model's, quoted, so that a model called "stories" reads as one.
func TestModelHints(t *testing.T) {
	const url = "http://gpu.lan:11434"
	cfg, res := configure(t, "[ollama]\nmodel = \"stories\"\nreply_budget = \"15s\"\nload_budget = \"3m\"\n", map[string]string{"OLLAMA_HOST": "gpu.lan"})
	b := &Box{cfg: cfg, res: res}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x: %w", reply.ErrStillLoading),
			`the model server at ` + url + ` was still loading the model "stories" after [ollama] load_budget (3m0s); it goes on loading, so ask again in a minute (or use a smaller model, a faster disk, or a longer load_budget)`},
		{fmt.Errorf("x: %w", reply.ErrTooSlow),
			`the model server at ` + url + ` took the question but said nothing within [ollama] reply_budget (15s) with the model "stories" loaded (a load does not count: it is waited for, up to load_budget): it may have hung, or be too slow for this box (a smaller model, or a longer reply_budget)`},
		{fmt.Errorf("x: %w", llm.ErrModelNotFound),
			`the server at ` + url + ` does not have the model "stories": ollama pull stories`},
	} {
		if got := b.modelHint(tc.err); got != tc.want {
			t.Errorf("hint for %v:\n got %s\nwant %s", tc.err, got, tc.want)
		}
	}
}

// TestHoldNotice: a typed question waiting for a load is told so, the
// model said as a model's name, and how long the load has taken only when
// that is a second or more: never "for 0 s so far".
func TestHoldNotice(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		since time.Duration
		want  string
	}{
		{0, `the model server is loading the model "stories"; the answer follows once it is loaded`},
		{400 * time.Millisecond, `the model server is loading the model "stories"; the answer follows once it is loaded`},
		{12 * time.Second, `the model server has been loading the model "stories" for 12 s; the answer follows once it is loaded`},
		{95 * time.Second, `the model server has been loading the model "stories" for 1 min 35 s; the answer follows once it is loaded`},
	} {
		got := holdNotice(reply.Hold{Why: reply.ForLoad, Model: "stories", Since: now.Add(-tc.since)}, now)
		if got != tc.want {
			t.Errorf("loading for %v:\n got %s\nwant %s", tc.since, got, tc.want)
		}
	}
}

// TestAskNotOllama: a web server at the model server's address, asked a
// typed question: the box says it cannot reach its model, and the hint
// names the server as not answering as Ollama does, without its page.
func TestAskNotOllama(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<html>\n<head><title>404 Not Found</title></head>\n<body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body>\n</html>\n")
	}))
	defer page.Close()
	cfg, res := configure(t, "[reply]\nplanner = false\n", map[string]string{"OLLAMA_HOST": page.URL})
	b, err := Open(cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var said []string
	_, err = b.API().Asker.Ask(t.Context(), control.Question{Text: "who wrote the novel Dune"}, func(s string) { said = append(said, s) }, func(string) {})
	he, ok := err.(*control.HintError)
	if !ok {
		t.Fatalf("err = %v, want one with a hint", err)
	}
	if want := "something other than Ollama answers at " + page.URL; !strings.HasPrefix(he.Hint, want) || strings.ContainsAny(he.Hint+err.Error(), "<>") {
		t.Errorf("hint %q (err %v): want it to start %q, without the page", he.Hint, err, want)
	}
	if len(said) != 1 || said[0] != "I didn't understand that, and I can't reach my language model right now." {
		t.Errorf("said %q", said)
	}
}

// TestAnswerTokensConfigured: [ollama] answer_tokens bounds the chat
// model's answers (num_predict); the default is the reply engine's.
func TestAnswerTokensConfigured(t *testing.T) {
	for _, tc := range []struct {
		toml string
		want any
	}{
		{"", float64(256)},
		{"[ollama]\nanswer_tokens = 120\n", float64(120)},
		{"[ollama]\nanswer_tokens = -1\n", nil},
	} {
		srv, m := modelServer(t)
		m.On(replytest.Chat, ollamatest.Reply{Content: "Woof."})
		cfg, res := configure(t, "[reply]\nplanner = false\n"+tc.toml, map[string]string{"OLLAMA_HOST": srv.URL})
		b, err := Open(cfg, res, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.API().Asker.Ask(t.Context(), control.Question{Text: "tell me about dogs"}, func(string) {}, func(string) {}); err != nil {
			t.Errorf("%q: %v", tc.toml, err)
		}
		b.Close()
		var got any
		for _, c := range srv.Chats() {
			if replytest.KindOf(c) == replytest.Chat {
				got = c.Options["num_predict"]
			}
		}
		if got != tc.want {
			t.Errorf("%q: the chat asked for num_predict %v, want %v", tc.toml, got, tc.want)
		}
	}
}
