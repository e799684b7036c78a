// Package probe checks what the box's welcome is told before it is kept:
// that an address is a model server's, which models it has, and that a
// model answers a question. device/box serves it as the API's Probe; the
// web page's welcome asks it.
package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/speech"
)

// Question is the test question a model is asked.
const Question = "Say hello to the household that just set you up, in one short sentence."

// Models is a model server's models, as the welcome lists them.
type Models struct {
	// HTTPClient carries the requests; nil for one that gives up on a
	// host that does not answer within Timeout.
	HTTPClient *http.Client
	// Timeout bounds each check: listing, and the test question (which
	// may have to load the model first, so it gets four times as long).
	// Default 8 s.
	Timeout time.Duration
}

var _ control.Probe = Models{}

func (m Models) timeout() time.Duration {
	if m.Timeout <= 0 {
		return 8 * time.Second
	}
	return m.Timeout
}

func (m Models) client() *http.Client {
	if m.HTTPClient != nil {
		return m.HTTPClient
	}
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{Timeout: llm.DialTimeout}).DialContext}}
}

// Models lists the models of the server at host, pulled ones only, in the
// server's order.
func (m Models) Models(ctx context.Context, host string) (control.ModelServer, error) {
	u, err := parse(host)
	if err != nil {
		return control.ModelServer{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.timeout())
	defer cancel()
	c := api.NewClient(u, m.client())
	out := control.ModelServer{Host: u.String(), Models: []control.Model{}}
	list, err := c.List(ctx)
	if err != nil {
		return out, unanswered(u.String(), llm.Explain(u, "list models", err))
	}
	// Ollama always says its version: another web server's JSON may pass
	// for an empty list.
	if out.Version, err = c.Version(ctx); err == nil && out.Version == "" {
		err = llm.NotOllama(u, "it answered without a version")
	}
	if err != nil {
		return out, unanswered(u.String(), llm.Explain(u, "version", err))
	}
	for _, lm := range list.Models {
		out.Models = append(out.Models, control.Model{Name: lm.Name, Family: lm.Details.Family, ParameterSize: lm.Details.ParameterSize, Size: lm.Size})
	}
	return out, nil
}

// Try asks model on the server at host the test question and returns its
// answer.
func (m Models) Try(ctx context.Context, host, model string) (control.Trial, error) {
	u, err := parse(host)
	if err != nil {
		return control.Trial{}, err
	}
	if strings.TrimSpace(model) == "" {
		return control.Trial{}, fmt.Errorf("%w: choose a model to try", control.ErrInvalid)
	}
	c, err := llm.New(llm.Options{Host: u, Model: model, HTTPClient: m.client()})
	if err != nil {
		return control.Trial{}, fmt.Errorf("%w: %v", control.ErrInvalid, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 4*m.timeout())
	defer cancel()
	req := llm.Request{MaxTokens: 60, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are a voice assistant in a small speaker at home. Answer in one short, friendly sentence."},
		{Role: llm.RoleUser, Content: Question},
	}}
	// A thinking model would spend the trial's few tokens reasoning: it is
	// asked not to. One that cannot think is not asked either way (the
	// server would refuse), nor is one the server cannot describe.
	if info, err := c.Show(ctx, model); err == nil && info.Supports("thinking") {
		off := false
		req.Think = &off
	}
	began := time.Now()
	resp, err := c.Chat(ctx, req, nil)
	tr := control.Trial{Question: Question, Took: time.Since(began)}
	switch {
	case errors.Is(err, llm.ErrModelNotFound):
		return tr, fmt.Errorf("%w: the server at %s does not have %s (ollama pull %s there)", control.ErrNotFound, u, model, model)
	case err != nil:
		return tr, unanswered(u.String(), err)
	}
	answer, reasoning := speech.SplitReasoning(resp.Message.Content)
	tr.Answer = strings.TrimSpace(answer)
	if tr.Answer == "" && (reasoning != "" || resp.Message.Thinking != "") {
		return tr, fmt.Errorf("%w: %s at %s only reasoned and gave no answer in its %d tokens: choose a model that answers without reasoning first", control.ErrUnavailable, model, u, req.MaxTokens)
	}
	if tr.Answer == "" {
		return tr, fmt.Errorf("%w: %s at %s answered with nothing", control.ErrUnavailable, model, u)
	}
	return tr, nil
}

// parse reads an address as OLLAMA_HOST is written; what is not one is
// control.ErrInvalid, saying why.
func parse(host string) (*url.URL, error) {
	if strings.TrimSpace(host) == "" {
		return nil, fmt.Errorf("%w: type the model server's address, such as gpu.lan or 192.168.1.30:11434", control.ErrInvalid)
	}
	u, err := llm.ParseHost(host)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", control.ErrInvalid, strings.TrimPrefix(err.Error(), "llm: "))
	}
	return u, nil
}

// unanswered is a server that did not answer at u, in words that name it;
// err is llm's.
func unanswered(u string, err error) error {
	switch {
	case errors.Is(err, llm.ErrNotOllama):
		msg := err.Error()
		if i := strings.Index(msg, "the server at "); i >= 0 {
			msg = msg[i:]
		}
		return fmt.Errorf("%w: %s: is the address right?", control.ErrUnavailable, msg)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: no model server answered at %s in time: is the address right, and Ollama running there?", control.ErrUnavailable, u)
	case !errors.Is(err, llm.ErrUnreachable) && strings.Contains(err.Error(), "server answered "):
		// Ollama's own refusal or failure, in its words.
		return fmt.Errorf("%w: the model server at %s %s", control.ErrUnavailable, u, err.Error()[strings.Index(err.Error(), "answered "):])
	}
	return fmt.Errorf("%w: no model server answers at %s (%v): start Ollama there (ollama serve, listening on the network with OLLAMA_HOST=0.0.0.0), or check the address", control.ErrUnavailable, u, rootCause(err))
}

// rootCause is the innermost error, what the network said.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
