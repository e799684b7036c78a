package llm

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Loaded is a model the server holds in memory, as GET /api/ps lists it.
// Ollama lists a model its own engine runs (gemma3, qwen3, any model with
// OLLAMA_NEW_ENGINE) from the moment its load begins, one on llama.cpp's
// engine once it is loaded; Settling tells the first kind's load.
type Loaded struct {
	Name string
	// Expires is when the server will unload it unless asked again.
	Expires time.Time
	Size    int64 // bytes in memory
}

// Running lists the models the server holds in memory (or is loading).
func (c *Client) Running(ctx context.Context) ([]Loaded, error) {
	r, err := c.api.ListRunning(ctx)
	if err != nil {
		return nil, c.classify("list loaded models", err)
	}
	if r.Models == nil {
		// Ollama lists its loaded models always, none as an empty list.
		return nil, fmt.Errorf("llm: list loaded models: %w", c.notOllama("it answered without a list of models"))
	}
	out := make([]Loaded, 0, len(r.Models))
	for _, m := range r.Models {
		name := m.Name
		if name == "" {
			name = m.Model
		}
		out = append(out, Loaded{Name: name, Expires: m.ExpiresAt, Size: m.Size})
	}
	return out, nil
}

// Load asks the server to load the client's model, or to keep it loaded
// for another KeepAlive when it is: a chat with no messages, which answers
// as soon as the model is in memory and evaluates nothing. It asks for the
// client's context window, as its chats do: Ollama loads a model again
// for a request whose window differs from the one it was loaded with.
func (c *Client) Load(ctx context.Context) error {
	stream := false
	req := &api.ChatRequest{Model: c.o.Model, Stream: &stream}
	if c.o.KeepAlive != 0 {
		req.KeepAlive = &api.Duration{Duration: c.o.KeepAlive}
	}
	if c.o.NumCtx > 0 {
		req.Options = map[string]any{"num_ctx": c.o.NumCtx}
	}
	if err := c.chat(ctx, req, func(api.ChatResponse) error { return nil }); err != nil {
		return c.classify("load "+c.o.Model, err)
	}
	return nil
}

// Unload asks the server to unload the client's model at once, as another
// client's keep_alive 0 does.
func (c *Client) Unload(ctx context.Context) error {
	stream := false
	req := &api.ChatRequest{Model: c.o.Model, Stream: &stream, KeepAlive: &api.Duration{}}
	if err := c.chat(ctx, req, func(api.ChatResponse) error { return nil }); err != nil {
		return c.classify("unload "+c.o.Model, err)
	}
	return nil
}

// Holds reports whether loaded lists the model name: Ollama lists a model
// by its short name, with the ":latest" tag an untagged name implies. A
// model whose keep-alive ran out before now is being unloaded (Ollama
// lists it, expiring at the moment it was told to go, until the runner
// has stopped) and is not held.
func Holds(loaded []Loaded, name string, now time.Time) (Loaded, bool) {
	l, ok := listing(loaded, name)
	if !ok || !l.Expires.IsZero() && !l.Expires.After(now) {
		return Loaded{}, false
	}
	return l, true
}

// Settling reports whether a model listed as m, and listed again as again
// a moment later, is still being loaded. Ollama sets a model's expiry when
// a request that used it ends; until one has since the model's load began
// (while it loads, and while it answers its first request) /api/ps shows
// one computed afresh at each listing, now plus the keep-alive, so it
// moves from one listing to the next. A loaded model's expiry stands still
// until a request ends, which moves it once: the listings must be taken
// far enough apart for the server's clock to move (Windows' ticks by
// 15.6 ms), and close enough that a request seldom ends between them.
// Nothing else /api/ps says tells a load (its size and context are known
// from its start).
func Settling(m, again Loaded) bool { return !m.Expires.Equal(again.Expires) }

// lists reports whether loaded lists the model name at all, whatever its
// expiry says.
func lists(loaded []Loaded, name string) bool {
	_, ok := listing(loaded, name)
	return ok
}

func listing(loaded []Loaded, name string) (Loaded, bool) {
	want := tagged(name)
	for _, l := range loaded {
		if tagged(l.Name) == want {
			return l, true
		}
	}
	return Loaded{}, false
}

func tagged(name string) string {
	name = strings.TrimPrefix(strings.ToLower(name), "registry.ollama.ai/library/")
	if i := strings.LastIndex(name, "/"); !strings.Contains(name[i+1:], ":") {
		return name + ":latest"
	}
	return name
}

// Running lists the models loaded on the server the next request goes to.
func (c *Chain) Running(ctx context.Context) ([]Loaded, error) {
	return c.next().Running(ctx)
}

// Load loads the model of the server the next request goes to.
func (c *Chain) Load(ctx context.Context) error { return c.next().Load(ctx) }

// next is the server the next request goes to: the first that is up.
func (c *Chain) next() *Client { return c.o.Endpoints[c.order()[0]] }
