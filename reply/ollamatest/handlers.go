package ollamatest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// modified is the fixed modification time reported for every model.
var modified = time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)

func (m Model) details() details {
	return details{Format: "gguf", Family: m.Family, Families: []string{m.Family}, ParameterSize: m.ParameterSize, QuantizationLevel: m.Quantization}
}

func (s *Server) tags(w http.ResponseWriter, r *http.Request, _ *Request) {
	s.mu.Lock()
	models := append([]Model(nil), s.models...)
	s.mu.Unlock()
	out := struct {
		Models []tagsModel `json:"models"`
	}{Models: []tagsModel{}}
	for _, m := range models {
		sum := sha256.Sum256([]byte(m.Name))
		out.Models = append(out.Models, tagsModel{
			Name: normalize(m.Name), Model: normalize(m.Name), ModifiedAt: modified,
			Size: int64(parameterCount(m.ParameterSize)) / 2, Digest: hex.EncodeToString(sum[:]), Details: m.details(),
		})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) show(w http.ResponseWriter, r *http.Request, rec *Request) {
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	if err := json.Unmarshal(rec.Body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	if name == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.model(name)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	ctxLen := m.ContextLength
	if ctxLen == 0 {
		ctxLen = 8192
	}
	writeJSON(w, http.StatusOK, showResponse{
		Modelfile:  "FROM " + normalize(m.Name) + "\n",
		Parameters: m.Parameters,
		Template:   orDefault(m.Template, "{{ .Prompt }}"),
		Details:    m.details(),
		ModelInfo: map[string]any{
			"general.architecture":       m.Family,
			"general.parameter_count":    parameterCount(m.ParameterSize),
			m.Family + ".context_length": ctxLen,
		},
		Capabilities: m.Capabilities,
		ModifiedAt:   modified,
	})
}

// parameterCount reads Ollama's parameter size ("1.2B", "270M").
func parameterCount(size string) int64 {
	mult := 1.0
	switch {
	case strings.HasSuffix(size, "B"):
		mult = 1e9
	case strings.HasSuffix(size, "M"):
		mult = 1e6
	}
	f, _ := strconv.ParseFloat(strings.TrimRight(size, "BM"), 64)
	return int64(f * mult)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, rec *Request) {
	var req ChatRequest
	if len(rec.Body) == 0 {
		writeError(w, http.StatusBadRequest, "missing request body")
		return
	}
	if err := json.Unmarshal(rec.Body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	rec.Chat = &req
	s.mu.Unlock()
	if req.Model == "" {
		writeError(w, http.StatusBadRequest, "model is required")
		return
	}
	m, ok := s.model(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	if len(req.Tools) > 0 && !m.has("tools") {
		writeError(w, http.StatusBadRequest, qualified(req.Model)+" does not support tools")
		return
	}
	if think := string(req.Think); think != "" && think != "false" && !m.has("thinking") {
		writeError(w, http.StatusBadRequest, qualified(req.Model)+" does not support thinking")
		return
	}
	began := time.Now()
	if len(req.Messages) == 0 {
		s.loadOnly(w, r, rec, req, m)
		return
	}
	reply, ok := s.next(req)
	if !ok {
		writeError(w, http.StatusInternalServerError, "ollamatest: no scripted reply for this request")
		return
	}
	switch reply.Fault {
	case ServerError:
		writeError(w, http.StatusInternalServerError, orDefault(reply.Error, "llama runner process has terminated"))
		return
	case NoTools:
		writeError(w, http.StatusBadRequest, qualified(req.Model)+" does not support tools")
		return
	case ModelNotFound:
		writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	case BadRequest:
		writeError(w, http.StatusBadRequest, orDefault(reply.Error, "invalid request"))
		return
	}
	var sv served
	if sv.load, ok = s.ensureLoaded(r, rec, m, req.KeepAlive); !ok {
		return
	}
	defer s.use(m, req.KeepAlive)()
	release, ok := s.answer(r, rec)
	if !ok {
		return
	}
	defer release()
	sv.queued = time.Since(began) - sv.load
	if !s.wait(r, rec, reply.FirstTokenDelay) {
		return
	}
	// The options the request leaves out are the model's own; the
	// request as recorded stays as it was sent.
	run := req
	run.Options = m.options(req.Options)
	if req.Stream != nil && !*req.Stream {
		s.whole(w, run, reply, sv)
		return
	}
	s.stream(w, r, rec, run, reply, sv)
}

// served is what a chat waited for before it was answered: its model's
// load and the other answers ahead of it.
type served struct{ load, queued time.Duration }

// loadOnly answers a chat without messages, as Ollama does: it loads the
// model (done_reason "load"), or with keep_alive 0 unloads it ("unload").
func (s *Server) loadOnly(w http.ResponseWriter, r *http.Request, rec *Request, req ChatRequest, m Model) {
	reason, ok := s.loadOrUnload(r, rec, m, req.KeepAlive)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, chatChunk{Model: req.Model, CreatedAt: time.Now().UTC(), Message: Message{Role: "assistant"}, Done: true, DoneReason: reason})
}

// answer takes one of the server's answer slots, when Limit set them,
// waiting for one unless the client goes away first.
func (s *Server) answer(r *http.Request, rec *Request) (release func(), ok bool) {
	s.mu.Lock()
	slots := s.slots
	s.mu.Unlock()
	if slots != nil {
		select {
		case slots <- struct{}{}:
		case <-r.Context().Done():
			s.cancelled(rec)
			return nil, false
		}
	}
	s.mu.Lock()
	s.answering++
	s.most = max(s.most, s.answering)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.answering--
		s.mu.Unlock()
		if slots != nil {
			<-slots
		}
	}, true
}

func (s *Server) next(req ChatRequest) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.script) > 0 {
		r := s.script[0]
		s.script = s.script[1:]
		return r, true
	}
	if s.responder != nil {
		return s.responder(req), true
	}
	return Reply{}, false
}

// wait sleeps for d unless the client goes away first, which it records.
func (s *Server) wait(r *http.Request, rec *Request, d time.Duration) bool {
	if d <= 0 {
		return s.alive(r, rec)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		s.cancelled(rec)
		return false
	}
}

func (s *Server) alive(r *http.Request, rec *Request) bool {
	if r.Context().Err() != nil {
		s.cancelled(rec)
		return false
	}
	return true
}

func (s *Server) cancelled(rec *Request) {
	s.mu.Lock()
	rec.Cancelled = true
	s.mu.Unlock()
}

// chunks is the scripted reply as the stream of messages Ollama would send:
// thinking first, then content, then tool calls.
func (rp Reply) chunks() []Message {
	var out []Message
	for _, t := range split(rp.Thinking) {
		out = append(out, Message{Role: "assistant", Thinking: t})
	}
	tokens := rp.Tokens
	if tokens == nil {
		tokens = split(rp.Content)
	}
	for _, t := range tokens {
		out = append(out, Message{Role: "assistant", Content: t})
	}
	if len(rp.ToolCalls) > 0 {
		out = append(out, Message{Role: "assistant", ToolCalls: wireCalls(rp.ToolCalls)})
	}
	return out
}

func wireCalls(calls []ToolCall) []WireToolCall {
	out := make([]WireToolCall, len(calls))
	for i, c := range calls {
		out[i].ID = fmt.Sprintf("call_%d", i)
		out[i].Function.Index = i
		out[i].Function.Name = c.Name
		out[i].Function.Arguments = c.Arguments
		if out[i].Function.Arguments == nil {
			out[i].Function.Arguments = map[string]any{}
		}
	}
	return out
}

// split breaks text into word-sized tokens, each carrying its leading space,
// the way model tokenizers do.
func split(text string) []string {
	var out []string
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' && text[i-1] != ' ' {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// metrics are the counters of an answer: a token per four characters of
// the prompt (tools and messages), a token per chunk, at the model's rates.
// Like Ollama with one parallel slot, the server keeps the last prompt of
// each model in its cache: prompt_eval_count is the whole prompt, and
// prompt_eval_duration is only for what the cache did not hold.
func (s *Server) metrics(req ChatRequest, rp Reply, chunks int, sv served) metrics {
	var b strings.Builder
	if len(req.Tools) > 0 {
		t, _ := json.Marshal(req.Tools)
		b.Write(t)
	}
	for _, m := range req.Messages {
		b.WriteString("<" + m.Role + ">" + m.Content)
	}
	prompt := b.String()
	m, _ := s.model(req.Model)
	pr, gr := m.PromptRate, m.GenRate
	if pr <= 0 {
		pr = 5000
	}
	if gr <= 0 {
		gr = 500
	}
	s.mu.Lock()
	if s.cached == nil {
		s.cached = map[string]string{}
	}
	last := s.cached[normalize(req.Model)]
	s.cached[normalize(req.Model)] = prompt
	s.mu.Unlock()
	same := 0
	for same < len(last) && same < len(prompt) && last[same] == prompt[same] {
		same++
	}
	tokens := len(prompt)/4 + 1
	reused := min(same/4, tokens-1)
	// The scripted delays are the model's work: the first token's is the
	// prompt's, the others the output's.
	pd := time.Duration(float64(tokens-reused)/pr*float64(time.Second)) + rp.FirstTokenDelay
	ed := time.Duration(float64(chunks)/gr*float64(time.Second)) + time.Duration(max(chunks-1, 0))*rp.TokenDelay
	load := max(5*time.Millisecond, sv.load)
	return metrics{
		TotalDuration: int64(load + sv.queued + pd + ed), LoadDuration: int64(load),
		PromptEvalCount: tokens, PromptEvalDuration: int64(pd),
		EvalCount: chunks, EvalDuration: int64(ed),
	}
}

func (s *Server) whole(w http.ResponseWriter, req ChatRequest, rp Reply, sv served) {
	msg := Message{Role: "assistant", Content: rp.Content, Thinking: rp.Thinking}
	if rp.Tokens != nil {
		msg.Content = strings.Join(rp.Tokens, "")
	}
	if len(rp.ToolCalls) > 0 {
		msg.ToolCalls = wireCalls(rp.ToolCalls)
	}
	chunks, reason := capped(rp.chunks(), req)
	if reason == "length" {
		msg = Message{Role: "assistant"}
		for _, c := range chunks {
			msg.Content += c.Content
			msg.Thinking += c.Thinking
			msg.ToolCalls = append(msg.ToolCalls, c.ToolCalls...)
		}
	}
	writeJSON(w, http.StatusOK, chatChunk{
		Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg, Done: true, DoneReason: reason,
		metrics: s.metrics(req, rp, len(chunks), sv),
	})
}

// options are a request's options with the model's own num_predict (from
// its Parameters) where the request sets none: a new map, the request's
// left as it was.
func (m Model) options(req map[string]any) map[string]any {
	if _, ok := req["num_predict"]; ok {
		return req
	}
	for line := range strings.Lines(m.Parameters) {
		f := strings.Fields(line)
		if len(f) != 2 || f[0] != "num_predict" {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		out := maps.Clone(req)
		if out == nil {
			out = map[string]any{}
		}
		out["num_predict"] = float64(n)
		return out
	}
	return req
}

// capped is an answer's chunks within the request's num_predict, a token
// each, and why it ends: "length" when the bound cut it, as Ollama says,
// else "stop". A tool call cut by the bound is not made.
func capped(chunks []Message, req ChatRequest) ([]Message, string) {
	n, _ := req.Options["num_predict"].(float64)
	if n > 0 && len(chunks) > int(n) {
		return chunks[:int(n)], "length"
	}
	return chunks, "stop"
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, rec *Request, req ChatRequest, rp Reply, sv served) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	chunks, reason := capped(rp.chunks(), req)
	for i, msg := range chunks {
		if (rp.Fault == DropMidStream || rp.Fault == StreamError) && i == rp.DropAfter {
			break
		}
		if i > 0 && !s.wait(r, rec, rp.TokenDelay) {
			return
		}
		if rp.Gate != nil && i == rp.GateAfter {
			select {
			case <-rp.Gate:
			case <-r.Context().Done():
				s.cancelled(rec)
				return
			}
		}
		if enc.Encode(chatChunk{Model: req.Model, CreatedAt: time.Now().UTC(), Message: msg}) != nil {
			s.cancelled(rec)
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
	switch rp.Fault {
	case DropMidStream:
		panic(http.ErrAbortHandler) // the server cuts the connection without ending the stream
	case StreamError:
		enc.Encode(map[string]string{"error": orDefault(rp.Error, "an error was encountered while running the model")})
		return
	}
	if !s.alive(r, rec) {
		return
	}
	enc.Encode(chatChunk{
		Model: req.Model, CreatedAt: time.Now().UTC(), Message: Message{Role: "assistant"},
		Done: true, DoneReason: reason, metrics: s.metrics(req, rp, len(chunks), sv),
	})
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
