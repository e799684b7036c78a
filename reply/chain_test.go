package reply

import (
	"net/url"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
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
