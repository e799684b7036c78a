// Package cost knows what a model call costs before it is made. A Meter
// learns each model server's prompt-evaluation and generation rates from
// the counters Ollama returns with every answer (prompt_eval_count and
// _duration, eval_count and _duration), learns how many characters make a
// token, and remembers the last prompt sent to each model so that it can
// tell how much of the next one the server's prompt cache will reuse. The
// reply engine asks it, before every auxiliary call, whether the call is
// worth its time next to the chat call it serves, and derives its
// time-outs from the same figures.
package cost

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"sync"
	"time"

	"github.com/harkbox/hark/internal/atomicfile"
)

// Rates are what one model on one server costs.
type Rates struct {
	// Prompt is prompt tokens evaluated per second; Gen, tokens generated
	// per second.
	Prompt float64 `json:"prompt_tokens_per_s"`
	Gen    float64 `json:"gen_tokens_per_s"`
	// CharsPerToken turns a prompt's length into tokens.
	CharsPerToken float64 `json:"chars_per_token"`
	// Samples counts the answers the rates were learned from; 0 means the
	// figures are the prior, not a measurement.
	Samples int `json:"samples"`
}

// Prior is assumed before a model has answered once: the prompt and
// generation rates of a 1B model on a Raspberry Pi 5's CPU, and the
// characters per token of English prose and JSON in a Llama 3 tokenizer.
// Assuming the slow box, not a GPU, keeps the first reply after a restart
// from spending a minute on auxiliary calls; a fast server corrects it with
// its first answer.
var Prior = Rates{Prompt: 40, Gen: 15, CharsPerToken: 3.6}

// Known reports whether the rates were measured.
func (r Rates) Known() bool { return r.Samples > 0 }

// Tokens estimates the tokens of a prompt of chars characters.
func (r Rates) Tokens(chars int) int {
	if chars <= 0 {
		return 0
	}
	return int(math.Ceil(float64(chars) / r.cpt()))
}

// PromptTime is how long evaluating tokens prompt tokens takes.
func (r Rates) PromptTime(tokens int) time.Duration {
	return seconds(float64(tokens) / r.prompt())
}

// GenTime is how long generating tokens tokens takes.
func (r Rates) GenTime(tokens int) time.Duration {
	return seconds(float64(tokens) / r.gen())
}

// Call is the expected time of a call that evaluates tokens prompt tokens
// and generates out tokens.
func (r Rates) Call(tokens, out int) time.Duration { return r.PromptTime(tokens) + r.GenTime(out) }

func (r Rates) cpt() float64    { return orPrior(r.CharsPerToken, Prior.CharsPerToken) }
func (r Rates) prompt() float64 { return orPrior(r.Prompt, Prior.Prompt) }
func (r Rates) gen() float64    { return orPrior(r.Gen, Prior.Gen) }

func orPrior(v, p float64) float64 {
	if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
		return v
	}
	return p
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Observation is what one answer told about its cost.
type Observation struct {
	// PromptChars is the length of the prompt sent; Reused, the tokens
	// the server's cache was expected to reuse (from Meter.Prompt).
	PromptChars, Reused int
	// PromptTokens and PromptDuration are Ollama's prompt_eval_count and
	// prompt_eval_duration; OutputTokens and EvalDuration its eval_count
	// and eval_duration.
	PromptTokens   int
	PromptDuration time.Duration
	OutputTokens   int
	EvalDuration   time.Duration
}

// The smallest samples that teach a rate: a handful of tokens is mostly
// the server's fixed overhead.
const (
	minPromptSample = 24
	minGenSample    = 4
	// weight of a new sample in the running estimates.
	alpha = 0.3
)

// Meter keeps the rates of each model by key (the server and the model),
// and the last prompt each was sent. It is safe for concurrent use.
type Meter struct {
	mu    sync.Mutex
	rates map[string]Rates
	last  map[string]string
	path  string
	saved time.Time
	dirty bool
}

// NewMeter returns a Meter that knows nothing yet.
func NewMeter() *Meter { return &Meter{rates: map[string]Rates{}, last: map[string]string{}} }

// Open returns a Meter that starts from the rates saved at path, if any, and
// saves what it learns there (at most every SaveEvery, and on Save). A
// missing file is a new box; a damaged one is said and replaced.
func Open(path string) (*Meter, error) {
	m := NewMeter()
	m.path = path
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return m, nil
	case err != nil:
		return m, fmt.Errorf("cost: read %s: %w", path, err)
	}
	var saved map[string]Rates
	if err := json.Unmarshal(b, &saved); err != nil {
		return m, fmt.Errorf("cost: %s is damaged, learning the rates again: %w", path, err)
	}
	for k, r := range saved {
		if r.Prompt > 0 && r.Gen > 0 && r.CharsPerToken > 0 {
			m.rates[k] = r
		}
	}
	return m, nil
}

// SaveEvery spaces the meter's writes to its file.
const SaveEvery = time.Minute

// Key names a model on a server.
func Key(server, model string) string { return server + "|" + model }

// Rates returns the rates of key: measured, or the prior.
func (m *Meter) Rates(key string) Rates {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.rates[key]; ok {
		return r
	}
	return Prior
}

// Set replaces the rates of key, as if measured; for tests and benchmarks
// that know the server.
func (m *Meter) Set(key string, r Rates) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.Samples == 0 {
		r.Samples = 1
	}
	m.rates[key] = r
}

// Estimate is what a prompt is expected to cost before it is sent.
type Estimate struct {
	Tokens int // the whole prompt
	Reused int // expected from the server's cache
}

// Evaluated is the tokens the server will evaluate.
func (e Estimate) Evaluated() int { return max(e.Tokens-e.Reused, 0) }

// Peek estimates prompt, a flat rendering of a call's prompt, against the
// last prompt key was sent, without recording it.
func (m *Meter) Peek(key, prompt string) Estimate {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.estimate(key, prompt)
}

// Prompt estimates prompt as Peek does and records it as the prompt the
// server's cache for key now holds.
func (m *Meter) Prompt(key, prompt string) Estimate {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.estimate(key, prompt)
	m.last[key] = prompt
	return e
}

func (m *Meter) estimate(key, prompt string) Estimate {
	r, ok := m.rates[key]
	if !ok {
		r = Prior
	}
	return Estimate{Tokens: r.Tokens(len(prompt)), Reused: r.Tokens(commonPrefix(m.last[key], prompt))}
}

// Forget drops the recorded prompt of key: the server's cache is unknown
// (it restarted, or another client used it).
func (m *Meter) Forget(key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.last, key)
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// Observe learns from one answer of key. Samples too small to tell a rate
// teach nothing.
func (m *Meter) Observe(key string, o Observation) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.rates[key]
	if !ok {
		r = Rates{}
	}
	learned := false
	if o.PromptTokens > 0 && o.PromptChars > 0 {
		// The template adds a few tokens; over a whole prompt they shift
		// the ratio only a little, and in the safe direction.
		r.CharsPerToken = ewma(r.CharsPerToken, float64(o.PromptChars)/float64(o.PromptTokens), r.Samples, false)
		learned = true
	}
	if evaluated := o.PromptTokens - o.Reused; evaluated >= minPromptSample && o.PromptDuration > 0 {
		r.Prompt = ewma(r.Prompt, float64(evaluated)/o.PromptDuration.Seconds(), r.Samples, evaluated >= 4*minPromptSample)
		learned = true
	}
	if o.OutputTokens >= minGenSample && o.EvalDuration > 0 {
		r.Gen = ewma(r.Gen, float64(o.OutputTokens)/o.EvalDuration.Seconds(), r.Samples, o.OutputTokens >= 4*minGenSample)
		learned = true
	}
	if !learned {
		return
	}
	// A figure not yet measured stays the prior's.
	r.Prompt, r.Gen, r.CharsPerToken = r.prompt(), r.gen(), r.cpt()
	r.Samples++
	m.rates[key] = r
	m.dirty = true
	if m.path != "" && time.Since(m.saved) >= SaveEvery {
		m.saveLocked()
	}
}

// ewma is the running estimate. A strong sample (a large one) three times
// off the estimate replaces it: the model moved to other hardware.
func ewma(old, sample float64, samples int, strong bool) float64 {
	if samples == 0 || old <= 0 || strong && (sample > 3*old || 3*sample < old) {
		return sample
	}
	return (1-alpha)*old + alpha*sample
}

// Save writes the rates to the meter's file now, if they changed.
func (m *Meter) Save() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.path == "" || !m.dirty {
		return nil
	}
	return m.saveLocked()
}

func (m *Meter) saveLocked() error {
	b, err := json.MarshalIndent(m.rates, "", "  ")
	if err != nil {
		return fmt.Errorf("cost: %w", err)
	}
	m.saved = time.Now()
	if err := atomicfile.Write(m.path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("cost: save: %w", err)
	}
	m.dirty = false
	return nil
}

// Policy decides which auxiliary calls are worth making.
type Policy struct {
	// Floor: an auxiliary call expected to take no longer than this is
	// always made; default 600 ms.
	Floor time.Duration
	// Share: otherwise it is made only when it costs at most this share
	// of the chat call it serves; default 0.25.
	Share float64
}

// Worth reports whether an auxiliary call expected to take aux is worth
// making before a chat call expected to take chat.
func (p Policy) Worth(aux, chat time.Duration) bool {
	floor, share := p.Floor, p.Share
	if floor == 0 {
		floor = 600 * time.Millisecond
	}
	if share == 0 {
		share = 0.25
	}
	return aux <= floor || float64(aux) <= share*float64(chat)
}
