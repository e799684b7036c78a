package box

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

var testModel = ollamatest.Model{Name: "llama3.2:3b", Family: "llama", ParameterSize: "3.2B", Capabilities: []string{"completion", "tools"}}

// modelServer is an Ollama test server whose model answers the reply
// engine's helper calls by default and the chat from m's script.
func modelServer(t testing.TB) (*ollamatest.Server, *replytest.Model) {
	t.Helper()
	srv := ollamatest.New(testModel)
	t.Cleanup(srv.Close)
	m := replytest.New()
	srv.Respond(m.Respond)
	return srv, m
}

// configure is the configuration of text (a TOML file's contents) with the
// environment vars, over a data directory of its own.
func configure(t testing.TB, text string, vars map[string]string) (*config.Loaded, config.Resolved) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hark.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "HOME" {
			return t.TempDir()
		}
		return vars[k]
	}
	l, err := config.Load(path, env)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Override("data_dir", t.TempDir(), "test"); err != nil {
		t.Fatal(err)
	}
	res, err := l.Resolve(env)
	if err != nil {
		t.Fatal(err)
	}
	return l, res
}
