package llm

import (
	"context"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Loaded is a model the server holds in memory, as GET /api/ps lists it.
// Ollama lists a model from the moment its load begins.
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
		return nil, classify("list loaded models", err)
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
// as soon as the model is in memory and evaluates nothing.
func (c *Client) Load(ctx context.Context) error {
	stream := false
	req := &api.ChatRequest{Model: c.o.Model, Stream: &stream}
	if c.o.KeepAlive != 0 {
		req.KeepAlive = &api.Duration{Duration: c.o.KeepAlive}
	}
	if err := c.chat(ctx, req, func(api.ChatResponse) error { return nil }); err != nil {
		return classify("load "+c.o.Model, err)
	}
	return nil
}

// Unload asks the server to unload the client's model at once, as another
// client's keep_alive 0 does.
func (c *Client) Unload(ctx context.Context) error {
	stream := false
	req := &api.ChatRequest{Model: c.o.Model, Stream: &stream, KeepAlive: &api.Duration{}}
	if err := c.chat(ctx, req, func(api.ChatResponse) error { return nil }); err != nil {
		return classify("unload "+c.o.Model, err)
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
