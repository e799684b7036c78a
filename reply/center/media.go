package center

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/go-audio/audio"
	"github.com/go-audio/wav"

	"github.com/harkbox/hark/internal/memfile"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/speech"
)

// Transcriber turns a node's recording into text; the box's whisper.cpp
// engine is one, through pipeline/media.
type Transcriber interface {
	// Transcribe returns the words of wav, a WAV file as the node recorded
	// it, and their language when the engine knows it; language is a hint
	// ("" to detect). No speech is an empty text, not an error. Calls may
	// overlap; ctx bounds each.
	Transcribe(ctx context.Context, wav []byte, language string) (text, detected string, err error)
}

// Voice speaks text for nodes that cannot; the box's own voice (espeak-ng,
// or a Wyoming server) is one, through pipeline/media.
type Voice interface {
	// Speak writes text spoken to w as 16-bit little-endian PCM,
	// interleaved, and returns its rate and channel count, the same for
	// every call. Calls may overlap; ctx bounds each.
	Speak(ctx context.Context, text string, w io.Writer) (rate, channels int, err error)
}

// speakAudio is text spoken by v, whole.
func speakAudio(ctx context.Context, v Voice, text string) (Audio, error) {
	var b bytes.Buffer
	rate, channels, err := v.Speak(ctx, text, &b)
	if err == nil && (rate <= 0 || channels <= 0) {
		err = fmt.Errorf("center: the voice gave no format (%d Hz, %d channels)", rate, channels)
	}
	return Audio{Rate: rate, Channels: channels, PCM: b.Bytes()}, err
}

// Media is what the center does for nodes too small to do it themselves.
// A nil part's endpoints answer 503.
type Media struct {
	Transcriber Transcriber
	Voice       Voice
	// Model answers /chat; ModelName is what /chat says answered.
	Model     llm.Chatter
	ModelName string
	// Timeout bounds one transcription or one sentence spoken; default
	// 60 s. ChatTimeout bounds a chat; default 2 min.
	Timeout, ChatTimeout time.Duration
	// SpeakChars bounds a text to speak; default 4000 characters.
	// ChatMessages bounds a chat's messages; default 64.
	SpeakChars, ChatMessages int
}

func (m *Media) defaults() {
	if m.Timeout == 0 {
		m.Timeout = time.Minute
	}
	if m.ChatTimeout == 0 {
		m.ChatTimeout = 2 * time.Minute
	}
	if m.SpeakChars == 0 {
		m.SpeakChars = 4000
	}
	if m.ChatMessages == 0 {
		m.ChatMessages = 64
	}
}

func (s *Server) transcribe(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	t := s.o.Media.Transcriber
	if t == nil {
		fail(w, http.StatusServiceUnavailable, "this center has no speech-to-text (whisper.model)")
		return
	}
	recording, language, ok := upload(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.o.Media.Timeout)
	defer cancel()
	began := time.Now()
	text, detected, err := t.Transcribe(ctx, recording, language)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		fail(w, http.StatusGatewayTimeout, fmt.Sprintf("transcription took over %v", s.o.Media.Timeout))
		return
	case err != nil:
		fail(w, http.StatusUnprocessableEntity, "transcribe: "+err.Error())
		return
	}
	s.log.Debug("transcribed for a node", "node", node.ID, "bytes", len(recording), "dur_ms", time.Since(began).Milliseconds())
	writeJSON(w, http.StatusOK, Transcript{Text: text, Language: detected})
}

// upload reads the multipart "file" of a transcription request, a WAV
// file, and the optional "language" field.
func upload(w http.ResponseWriter, r *http.Request) ([]byte, string, bool) {
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the recording is over the limit of %d bytes", tooBig.Limit))
		} else {
			fail(w, http.StatusBadRequest, "want a multipart/form-data body with the recording as \"file\": "+err.Error())
		}
		return nil, "", false
	}
	defer r.MultipartForm.RemoveAll()
	f, _, err := r.FormFile("file")
	if err != nil {
		fail(w, http.StatusBadRequest, "the form has no \"file\" with the recording")
		return nil, "", false
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		fail(w, http.StatusBadRequest, "reading the recording: "+err.Error())
		return nil, "", false
	}
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		fail(w, http.StatusBadRequest, "the recording is not a WAV file")
		return nil, "", false
	}
	return b, strings.TrimSpace(r.FormValue("language")), true
}

// speakText reads the text of a speak request.
func (s *Server) speakText(w http.ResponseWriter, r *http.Request) (string, bool) {
	if s.o.Media.Voice == nil {
		fail(w, http.StatusServiceUnavailable, "this center has no voice (tts.engine)")
		return "", false
	}
	var req SpeakRequest
	if !decode(w, r, &req) {
		return "", false
	}
	text := strings.TrimSpace(req.Text)
	switch n := len([]rune(text)); {
	case n == 0:
		fail(w, http.StatusBadRequest, "text is empty")
		return "", false
	case n > s.o.Media.SpeakChars:
		fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("text is %d characters, over the limit of %d", n, s.o.Media.SpeakChars))
		return "", false
	}
	return text, true
}

// speak is /media/tts/speak: the text spoken, as a WAV file.
func (s *Server) speak(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	text, ok := s.speakText(w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.o.Media.Timeout)
	defer cancel()
	a, err := speakAudio(ctx, s.o.Media.Voice, text)
	if err != nil {
		fail(w, http.StatusBadGateway, "speak: "+err.Error())
		return
	}
	b, err := wavOf(a)
	if err != nil {
		fail(w, http.StatusInternalServerError, s.internal("writing the speech", err))
		return
	}
	w.Header().Set("Content-Type", "audio/wav")
	w.Write(b)
}

// speakStream is /media/tts/speak/stream: the text spoken sentence by
// sentence, as raw PCM.
func (s *Server) speakStream(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	text, ok := s.speakText(w, r)
	if !ok {
		return
	}
	var sp speech.Splitter
	sentences := sp.Write(text)
	if rest := sp.Flush(); rest != "" {
		sentences = append(sentences, rest)
	}
	if !s.writeAudio(r.Context(), w, sentences, nil) {
		fail(w, http.StatusBadGateway, "the center's voice failed")
	}
}

// wavOf is audio as a 16-bit WAV file.
func wavOf(a Audio) ([]byte, error) {
	data := make([]int, len(a.PCM)/2)
	for i := range data {
		data[i] = int(int16(binary.LittleEndian.Uint16(a.PCM[2*i:])))
	}
	var f memfile.File
	enc := wav.NewEncoder(&f, a.Rate, 16, a.Channels, 1)
	buf := &audio.IntBuffer{Format: &audio.Format{NumChannels: a.Channels, SampleRate: a.Rate}, Data: data, SourceBitDepth: 16}
	if err := enc.Write(buf); err != nil {
		return nil, fmt.Errorf("center: wav: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("center: wav: %w", err)
	}
	return f.Bytes(), nil
}

// chat is /chat: a plain chat with the center's model, in OpenAI's shape.
func (s *Server) chat(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	m := s.o.Media.Model
	if m == nil {
		fail(w, http.StatusServiceUnavailable, "this center has no model for a plain chat")
		return
	}
	var req ChatRequest
	if !decode(w, r, &req) {
		return
	}
	if n := len(req.Messages); n == 0 || n > s.o.Media.ChatMessages {
		fail(w, http.StatusBadRequest, fmt.Sprintf("messages: want 1 to %d, got %d", s.o.Media.ChatMessages, n))
		return
	}
	var msgs []llm.Message
	for i, msg := range req.Messages {
		switch msg.Role {
		case "system", "user", "assistant":
		default:
			fail(w, http.StatusBadRequest, fmt.Sprintf("messages[%d].role %q: want system, user or assistant", i, msg.Role))
			return
		}
		msgs = append(msgs, llm.Message{Role: msg.Role, Content: msg.Content})
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.o.Media.ChatTimeout)
	defer cancel()
	resp, err := m.Chat(ctx, llm.Request{Messages: msgs, MaxTokens: min(max(req.MaxTokens, 0), 4096)}, nil)
	if err != nil {
		fail(w, http.StatusBadGateway, "chat: "+err.Error())
		return
	}
	// A node says what it gets: a reasoning model's thinking is left out,
	// and an answer that was thinking only is none.
	content, reasoning := speech.SplitReasoning(resp.Message.Content)
	if strings.TrimSpace(content) == "" && reasoning != "" {
		fail(w, http.StatusBadGateway, "chat: the model's answer was reasoning only")
		return
	}
	reason := resp.DoneReason
	if reason == "" {
		reason = "stop"
	}
	writeJSON(w, http.StatusOK, ChatResponse{Object: "chat.completion", Model: s.o.Media.ModelName, Choices: []ChatChoice{{
		Message: ChatMessage{Role: "assistant", Content: content}, FinishReason: reason}}})
}

// greetings are what a node says when it wakes, in turn: a greeting must
// come at once, so it asks no model.
var greetings = []string{"Yes?", "I'm listening.", "How can I help?", "Go ahead.", "What can I do for you?"}

func (s *Server) wakeResponse(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	n := s.greeted.Add(1) - 1
	writeJSON(w, http.StatusOK, Text{Text: greetings[n%uint64(len(greetings))]})
}

// acknowledge is /voice/acknowledge: a few words to say while a slow
// answer comes, picked from what was asked, without the model (which is
// busy with the answer).
func (s *Server) acknowledge(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	var req AcknowledgeRequest
	if !decode(w, r, &req) {
		return
	}
	writeJSON(w, http.StatusOK, Text{Text: acknowledgement(req.VoiceCommand)})
}

// acknowledgement is what to say while a request is worked on: a look-up
// for a question, an errand for the rest.
func acknowledgement(text string) string {
	t := strings.ToLower(strings.TrimSpace(text))
	for _, w := range []string{"what", "who", "when", "where", "why", "how", "which", "is ", "are ", "do ", "does ", "can ", "will "} {
		if strings.HasPrefix(t, w) || strings.HasSuffix(t, "?") {
			return "Let me look into that."
		}
	}
	return "On it."
}

// dateContext is /generate/date-context?timezone=TZ: the calendar around
// now in the node's zone, or the center's for one it cannot read.
func (s *Server) dateContext(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	writeJSON(w, http.StatusOK, Dates(s.o.Now(), s.zone(node.ID, r.URL.Query().Get("timezone"))))
}
