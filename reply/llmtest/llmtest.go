// Package llmtest gives tests the real model client on the test server
// (reply/ollamatest) with the models they need.
package llmtest

import (
	"net/url"
	"testing"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
)

// Reasoner is the real client for a reasoning model on the test server,
// answering replies in turn: a model that writes its reasoning into its
// answer between <think> tags, as it does behind a server that does not
// parse reasoning out. The server closes when the test ends.
func Reasoner(t testing.TB, replies ...ollamatest.Reply) *llm.Client {
	t.Helper()
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:1.7b", Family: "qwen3", ParameterSize: "1.7B", Capabilities: []string{"completion", "thinking"}})
	t.Cleanup(srv.Close)
	srv.Enqueue(replies...)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.New(llm.Options{Host: u, Model: "qwen3:1.7b"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
