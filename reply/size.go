package reply

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
)

// modelSize is what the engine knows of the chat model's size.
type modelSize struct {
	small  bool
	params float64 // billions; 0 when unknown
	// toolsMove is set when the model's chat template renders the tool
	// definitions inside the last user message (Llama 3.2's does): they
	// move with every turn, so no prompt cache can reuse them.
	toolsMove bool
	// caps are the model's capabilities as the server lists them; nil
	// when it did not say.
	caps []string
	// predict is the model's own bound on an answer's tokens (its
	// Modelfile's num_predict); 0 when it sets none or is not known,
	// negative for none.
	predict int
}

// can reports a capability; an unknown model can everything, and the
// server's refusal (HTTP 400) is the safety net.
func (s modelSize) can(capability string) bool {
	return s.caps == nil || slices.Contains(s.caps, capability)
}

// movesTools reports whether a chat template in Ollama's template language
// renders the tools inside its loop over the messages, rather than once
// before it.
func movesTools(template string) bool {
	loop := strings.Index(template, "range")
	for loop >= 0 && !strings.Contains(template[loop:min(len(template), loop+40)], ".Messages") {
		next := strings.Index(template[loop+5:], "range")
		if next < 0 {
			return false
		}
		loop += 5 + next
	}
	return loop >= 0 && strings.Contains(template[loop:], ".Tools")
}

// SmallModel is the largest model, in billions of parameters, that gets the
// small-model prompts and digests.
const SmallModel = 7.5

var sizeRE = regexp.MustCompile(`(?i)(?:^|[^a-z0-9])e?(\d+(?:\.\d+)?)\s*([bm])(?:$|[^a-z0-9])`)

// parseSize reads a size such as "3.2B" or "270M", or one in a model name
// ("llama3.2:3b", "gemma3n:e2b"), in billions.
func parseSize(s string) float64 {
	m := sizeRE.FindAllStringSubmatch(strings.ToLower(s), -1)
	if len(m) == 0 {
		return 0
	}
	last := m[len(m)-1]
	v, _ := strconv.ParseFloat(last[1], 64)
	if last[2] == "m" {
		v /= 1000
	}
	return v
}

// modelSize asks the server once for the model's parameter size, falling
// back to its name; an unknown size counts as small. Of a fallback chain,
// it is the model of the server the next request goes to, each asked once.
func (e *Engine) modelSize(ctx context.Context) modelSize {
	key := e.endpoint()
	e.mu.Lock()
	if s, ok := e.sizes[key]; ok {
		e.mu.Unlock()
		return s
	}
	e.mu.Unlock()
	var params float64
	known, moves := false, false
	var caps []string
	predict := 0
	if e.o.Info != nil {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		info, err := e.o.Info.Show(cctx, "")
		cancel()
		if err == nil {
			moves, caps, predict = movesTools(info.Template), info.Capabilities, info.NumPredict
			if info.Parameters > 0 {
				params = float64(info.Parameters) / 1e9
			} else {
				params = parseSize(info.ParameterSize)
			}
			known = params > 0
		}
	}
	if !known {
		params = parseSize(e.o.ModelName)
	}
	s := modelSize{small: params == 0 || params <= SmallModel, params: params, toolsMove: moves, caps: caps, predict: predict}
	if known || params > 0 {
		e.mu.Lock()
		e.sizes[key] = s
		e.mu.Unlock()
	}
	return s
}

// routed is a model whose requests go to one server of several, as a
// fallback chain's do, or to one (*llm.Client): Next says which the next
// request goes to.
type routed interface {
	Next() (host *url.URL, model string)
}

// endpoint names the server and model the next chat request goes to, the
// way a response names the one that answered it: what the engine learns of
// a model (its size, whether it takes native tools) is that endpoint's.
func (e *Engine) endpoint() string {
	if r, ok := e.o.Model.(routed); ok {
		host, model := r.Next()
		return cost.Key(host.Redacted(), model)
	}
	return cost.Key(e.o.Server, e.o.ModelName)
}

// answered names the endpoint that answered resp (or refused it), the
// next one when resp does not say.
func (e *Engine) answered(resp llm.Response) string {
	if resp.Server == "" {
		return e.endpoint()
	}
	return cost.Key(resp.Server, resp.Model)
}

// textTools reports whether the next request describes the tools in text:
// its endpoint's model refused native tools before.
func (e *Engine) textTools() bool {
	key := e.endpoint()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.noTools[key]
}

// reasonsInline notes that the model that gave resp reasons in its
// answer's text: that endpoint's answers are not bounded from now on.
// The mark is that server's and model's only, as what the engine learns
// of a model's size is: another model (a fallback's, or one set in the
// settings, which a restart applies with a new engine) starts unmarked.
// It is not forgotten while the engine lives: a model that reasons only
// at times would otherwise lose its answer, cut inside its reasoning,
// the next time it does.
func (e *Engine) reasonsInline(resp llm.Response) {
	key := e.answered(resp)
	e.mu.Lock()
	seen := e.inline[key]
	e.inline[key] = true
	e.mu.Unlock()
	if !seen {
		e.log.Info("the model reasons in its answer's text; its answers are not bounded from now on", "endpoint", key)
	}
}

// inlineReasoner reports whether the next request's model was seen to
// reason in its answer's text.
func (e *Engine) inlineReasoner() bool {
	key := e.endpoint()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.inline[key]
}
