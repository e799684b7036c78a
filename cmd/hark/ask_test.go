package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/storage"
)

func ask(t *testing.T, getenv func(string) string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut output
	code := run(t.Context(), args, env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: getenv})
	return code, out.String(), errOut.String()
}

func TestAskGlobalFlagsEitherSide(t *testing.T) {
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "Paris. It is lovely."}, ollamatest.Reply{Content: "About two million."}, ollamatest.Reply{Content: "Which city?"})
	dir := t.TempDir()
	getenv := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()})

	code, out, errOut := ask(t, getenv, "ask", "--data", dir, "what is the capital of France")
	if code != 0 || out != "Paris. It is lovely.\n" {
		t.Fatalf("ask --data after: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = ask(t, getenv, "--data", dir, "ask", "--continue", "how", "many", "people", "live", "there")
	if code != 0 || out != "About two million.\n" {
		t.Fatalf("--data before ask: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Both used the same data directory, and the second continued the
	// first: it carried the first as history.
	msgs := chats(srv)[1].Messages
	if len(msgs) != 4 || !strings.HasSuffix(msgs[1].Content, "]\nwhat is the capital of France") || !strings.HasSuffix(msgs[3].Content, "]\nhow many people live there") {
		t.Errorf("second request's messages %+v", msgs)
	}
	// Without --continue a question is a conversation of its own.
	if code, out, _ = ask(t, getenv, "--data", dir, "ask", "and", "its", "river"); code != 0 || out != "Which city?\n" {
		t.Fatalf("a third question: code %d, stdout %q", code, out)
	}
	if msgs := chats(srv)[2].Messages; len(msgs) != 2 {
		t.Errorf("a question without --continue went with %d messages, want its own alone", len(msgs))
	}
}

func TestAskJSON(t *testing.T) {
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "Hello! How can I help?"})
	code, out, errOut := ask(t, vars(map[string]string{"OLLAMA_HOST": srv.URL}), "ask", "--json", "--data", t.TempDir(), "tell me a joke")
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	var got struct {
		Reply     string   `json:"reply"`
		Sentences []string `json:"sentences"`
		Tools     []any    `json:"tools"`
		Model     string   `json:"model"`
		Timings   struct {
			Total      float64 `json:"total_ms"`
			ModelCalls int     `json:"model_calls"`
		} `json:"timings"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.Reply != "Hello! How can I help?" || len(got.Sentences) != 2 || got.Tools == nil || got.Model != "llama3.2:3b" || got.Timings.ModelCalls < 1 || got.Timings.Total <= 0 {
		t.Errorf("json = %+v", got)
	}
}

// An unreachable model: the spoken sentence (what the offline path did not
// understand), then one hint on what to do, and neither a log line nor the
// error repeated.
func TestAskUnreachable(t *testing.T) {
	host := deadPort(t)
	code, out, errOut := ask(t, vars(map[string]string{"OLLAMA_HOST": host}), "ask", "--data", t.TempDir(), "tell me a joke")
	if code != 1 || out != "I didn't understand that, and I can't reach my language model right now.\n" {
		t.Errorf("code %d, stdout %q; want 1 and the spoken sentence", code, out)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "hint: no model server answers at http://"+strings.TrimPrefix(host, "http://")) ||
		!strings.Contains(lines[0], "OLLAMA_HOST") || !strings.Contains(lines[0], "[ollama] host") {
		t.Errorf("stderr %q; want one hint line naming the URL, OLLAMA_HOST and [ollama] host", errOut)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{}, {"frobnicate"}, {"ask"}, {"ask", "--nope", "x"}, {"--data"}} {
		if code, _, errOut := ask(t, vars(nil), args...); code != 2 || !strings.Contains(errOut, "usage") {
			t.Errorf("%q: code %d, stderr %q; want 2 and the usage", args, code, errOut)
		}
	}
}

func TestConfigErrorsNameKeyAndFile(t *testing.T) {
	cfg := writeConfig(t, "[ollama]\nmodle = \"x\"\n")
	code, _, errOut := ask(t, vars(nil), "--config", cfg, "ask", "--data", t.TempDir(), "tell me a joke")
	if code != 1 || !strings.Contains(errOut, cfg+":2: unknown key ollama.modle") {
		t.Errorf("code %d, stderr %q", code, errOut)
	}
	cfg = writeConfig(t, "[tts]\npitch = 120\n")
	code, _, errOut = ask(t, vars(nil), "run", "--sim", "--config", cfg, "--data", t.TempDir())
	if code != 1 || !strings.Contains(errOut, cfg+": tts.pitch: 120 is outside 0..99") {
		t.Errorf("code %d, stderr %q", code, errOut)
	}
}

func TestConfigShowsSources(t *testing.T) {
	cfg := writeConfig(t, "[assistant]\nname = \"Ada\"\n")
	dir := t.TempDir()
	code, out, errOut := ask(t, vars(map[string]string{"OLLAMA_HOST": "box.lan"}), "config", "--config", cfg, "--data", dir)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	for _, want := range []string{
		"# configuration file: " + cfg,
		"name = 'Ada'", "# file " + cfg,
		"host = 'http://box.lan:11434'", "# env OLLAMA_HOST",
		"data_dir = '" + dir + "'", "# flag --data",
		"model = 'llama3.2:3b'", "# default",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("hark config output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = ask(t, vars(nil), "config", "--example")
	if code != 0 || !strings.Contains(out, "[ollama]") {
		t.Errorf("config --example: %d %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := ask(t, vars(nil), "version")
	if code != 0 || !strings.HasPrefix(out, "hark ") || !strings.Contains(out, "speech-to-text:") {
		t.Errorf("version: %d %q", code, out)
	}
}

// coldServer is a model server that has not loaded the model, whose load
// takes delay, and whose chats answer "Hello there yourself."
func coldServer(t *testing.T, delay time.Duration) *ollamatest.Server {
	t.Helper()
	cold := testModel
	cold.LoadDelay = delay
	srv := ollamatest.New(cold)
	t.Cleanup(srv.Close)
	m := replytest.New()
	srv.Respond(m.Respond)
	m.On(replytest.Chat, ollamatest.Reply{Content: "Hello there yourself."})
	return srv
}

// TestAskColdModel: one `hark ask` on a model the server has not loaded,
// whose load takes longer than the reply budget: standard error says it is
// loading, and the answer comes with exit 0; the load is never abandoned.
func TestAskColdModel(t *testing.T) {
	srv := coldServer(t, 1500*time.Millisecond)
	dir := t.TempDir() // empty: hark ask makes the store
	cfg := filepath.Join(t.TempDir(), "hark.toml")
	if err := os.WriteFile(cfg, []byte("[ollama]\nreply_budget = \"500ms\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ask(t, vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()}), "ask", "--config", cfg, "--data", dir, "tell me a joke")
	if code != 0 || out != "Hello there yourself.\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, `loading the model "llama3.2:3b"`) || !strings.Contains(errOut, "hark: the model server ") {
		t.Errorf("stderr %q: want a line that the model is loading", errOut)
	}
	if loads, aborted := srv.Loads(); loads != 1 || aborted != 0 {
		t.Errorf("loads %d, aborted %d", loads, aborted)
	}
}

// leftUnwritten is a store in dir with conversations that have no diary
// entry though they lapsed long ago, as a daemon that was stopped, or a
// model server that was down, left them.
func leftUnwritten(t *testing.T, dir string, ids ...string) {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, id := range ids {
		x := storage.Exchange{At: time.Now().Add(-time.Duration(len(ids)-i) * time.Hour), Conversation: id, Client: "ask:uid0:earlier",
			User: "my sister Clara arrives from Lisbon on Friday", Assistant: "Noted."}
		if err := db.Dialogue().Append(t.Context(), x); err != nil {
			t.Fatal(err)
		}
	}
}

// unwritten are those of ids that have no diary entry in dir's store.
func unwritten(t *testing.T, dir string, ids ...string) []string {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	missing, err := db.Diary().Missing(t.Context(), ids)
	if err != nil {
		t.Fatal(err)
	}
	return missing
}

// TestAskWritesTheDiaryBacklogAfterItsAnswer: without the daemon, hark
// ask answers first, then writes the diary entries earlier conversations
// left unwritten, which recall needs to find them again.
func TestAskWritesTheDiaryBacklogAfterItsAnswer(t *testing.T) {
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "Paris."})
	m.Default(replytest.Diary, ollamatest.Reply{Content: `{"summary": "Clara visits on Friday.", "keywords": ["clara"]}`, FirstTokenDelay: 200 * time.Millisecond})
	dir := t.TempDir()
	leftUnwritten(t, dir, "monday", "tuesday")
	code, out, errOut := ask(t, vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()}), "ask", "--data", dir, "what is the capital of France")
	if code != 0 || out != "Paris.\n" || errOut != "" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if left := unwritten(t, dir, "monday", "tuesday"); len(left) > 0 {
		t.Errorf("%q still without a diary entry after hark ask", left)
	}
	kinds := replytest.Kinds(srv)
	if i := slices.Index(kinds, replytest.Diary); i >= 0 && i < slices.Index(kinds, replytest.Chat) {
		t.Errorf("model calls %q: a diary entry was written before the answer", kinds)
	}
}

// TestAskLeavesTheDiaryBacklogToAStalledServer: a model server that takes
// the question but never writes an entry holds hark ask's exit a few
// seconds at most; the answer is out before, and the entries wait.
func TestAskLeavesTheDiaryBacklogToAStalledServer(t *testing.T) {
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "Paris."})
	m.Default(replytest.Diary, ollamatest.Reply{Content: `{"summary": "Clara visits.", "keywords": ["clara"]}`, FirstTokenDelay: time.Hour})
	dir := t.TempDir()
	leftUnwritten(t, dir, "monday")
	began := time.Now()
	code, out, errOut := ask(t, vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()}), "ask", "--data", dir, "what is the capital of France")
	if took := time.Since(began); code != 0 || out != "Paris.\n" || errOut != "" || took > catchUpFor+2*time.Second {
		t.Errorf("code %d, stdout %q, stderr %q, after %v; want the answer, and exit within %v of it", code, out, errOut, took.Round(time.Millisecond), catchUpFor)
	}
	if left := unwritten(t, dir, "monday"); len(left) != 1 {
		t.Errorf("the stalled entry was written: %q left", left)
	}
}

// TestAskLetsASlowServerFinishADiaryEntry: a model server on a slow CPU
// (its answers' counters say so) begins a diary entry only after hark
// ask's catch-up time: the entry under way is let finish, and no other
// begins, so that each hark ask writes one rather than none ever.
func TestAskLetsASlowServerFinishADiaryEntry(t *testing.T) {
	slow := testModel
	slow.PromptRate, slow.GenRate = 20, 5
	srv := ollamatest.New(slow)
	t.Cleanup(srv.Close)
	m := replytest.New()
	srv.Respond(m.Respond)
	m.On(replytest.Chat, ollamatest.Reply{Content: "Paris."})
	m.Default(replytest.Diary, ollamatest.Reply{Content: `{"summary": "Clara visits.", "keywords": ["clara"]}`, FirstTokenDelay: catchUpFor + time.Second})
	dir := t.TempDir()
	leftUnwritten(t, dir, "monday", "tuesday")
	began := time.Now()
	code, out, errOut := ask(t, vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()}), "ask", "--data", dir, "what is the capital of France")
	took := time.Since(began)
	if code != 0 || out != "Paris.\n" || errOut != "" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if left := unwritten(t, dir, "monday", "tuesday"); len(left) != 1 {
		t.Errorf("%q without a diary entry after hark ask; want one written, the other left", left)
	}
	if limit := catchUpFor + 3*time.Second; took > limit {
		t.Errorf("hark ask took %v, more than %v: an entry began after the catch-up's time", took.Round(time.Millisecond), limit)
	}
}

// TestAskCtrlCEndsTheDiaryCatchUp: Ctrl-C while hark ask writes the
// backlog after its answer ends it at once; the answer stands.
func TestAskCtrlCEndsTheDiaryCatchUp(t *testing.T) {
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "Paris."})
	asked := make(chan struct{})
	var once sync.Once
	srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
		if replytest.KindOf(r) == replytest.Diary {
			once.Do(func() { close(asked) })
			return ollamatest.Reply{Content: `{"summary": "Clara visits.", "keywords": ["clara"]}`, FirstTokenDelay: time.Hour}
		}
		return m.Respond(r)
	})
	dir := t.TempDir()
	leftUnwritten(t, dir, "monday")
	ctx, interrupt := context.WithCancel(t.Context())
	var out, errOut output
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"ask", "--data", dir, "what is the capital of France"},
			env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()})})
	}()
	out.waitFor(t, "Paris.\n", 1) // the answer is out
	<-asked                       // and the backlog is being written
	interrupt()
	select {
	case code := <-exited:
		if code != 0 || out.String() != "Paris.\n" {
			t.Errorf("code %d, stdout %q, stderr %q; want the answer and 0", code, out.String(), errOut.String())
		}
	case <-time.After(time.Second):
		t.Fatal("hark ask still writing the diary a second after Ctrl-C")
	}
}
