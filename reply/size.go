package reply

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
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
// back to its name; an unknown size counts as small.
func (e *Engine) modelSize(ctx context.Context) modelSize {
	e.mu.Lock()
	if e.size != nil {
		s := *e.size
		e.mu.Unlock()
		return s
	}
	e.mu.Unlock()
	var params float64
	known, moves := false, false
	var caps []string
	if e.o.Info != nil {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		info, err := e.o.Info.Show(cctx, "")
		cancel()
		if err == nil {
			moves, caps = movesTools(info.Template), info.Capabilities
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
	s := modelSize{small: params == 0 || params <= SmallModel, params: params, toolsMove: moves, caps: caps}
	if known || params > 0 {
		e.mu.Lock()
		e.size = &s
		e.mu.Unlock()
	}
	return s
}
