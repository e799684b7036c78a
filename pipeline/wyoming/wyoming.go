// Package wyoming speaks the Wyoming protocol, the event protocol of the
// Rhasspy and Home Assistant voice services, so Hark can send speech to a
// speech-to-text server on the LAN (wyoming-faster-whisper,
// wyoming-whisper-cpp) instead of, or before, its own engine, and have
// replies spoken by a text-to-speech server (wyoming-piper).
//
// An event is one line of JSON (type, optional data, data_length and
// payload_length), then data_length bytes of JSON merged over the data,
// then payload_length bytes of payload, typically PCM audio.
package wyoming

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// Version is the protocol version Hark writes in each event's header: the
// release of the reference library whose events are the newest Hark sends
// and reads (describe and info's supports_synthesize_streaming,
// synthesize-start, -chunk, -stop and -stopped came with 1.7.0); Hark's
// exchanges are checked against transcripts of release 1.9.0, which left
// them as they were.
const Version = "1.7.0"

// Event is one protocol event.
type Event struct {
	Type    string
	Data    map[string]any
	Payload []byte
}

type header struct {
	Type          string         `json:"type"`
	Data          map[string]any `json:"data,omitempty"`
	DataLength    int            `json:"data_length,omitempty"`
	PayloadLength int            `json:"payload_length,omitempty"`
	Version       string         `json:"version,omitempty"`
}

// maxPart bounds a data or payload section, so a confused peer cannot make
// Hark allocate without limit.
const maxPart = 16 << 20

// Write sends one event: the header line, the data as JSON, the payload.
func Write(w io.Writer, e Event) error {
	h := header{Type: e.Type, Version: Version, PayloadLength: len(e.Payload)}
	var data []byte
	if len(e.Data) > 0 {
		var err error
		if data, err = json.Marshal(e.Data); err != nil {
			return fmt.Errorf("wyoming: write %s: %w", e.Type, err)
		}
		h.DataLength = len(data)
	}
	line, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("wyoming: write %s: %w", e.Type, err)
	}
	buf := append(append(line, '\n'), data...)
	buf = append(buf, e.Payload...)
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("wyoming: write %s: %w", e.Type, err)
	}
	return nil
}

// Read receives one event.
func Read(r *bufio.Reader) (Event, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return Event{}, fmt.Errorf("wyoming: read: %w", err)
	}
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		return Event{}, fmt.Errorf("wyoming: read: malformed header %q: %w", strings.TrimSpace(string(line)), err)
	}
	if h.Type == "" || h.DataLength < 0 || h.PayloadLength < 0 || h.DataLength > maxPart || h.PayloadLength > maxPart {
		return Event{}, fmt.Errorf("wyoming: read: bad header %q", strings.TrimSpace(string(line)))
	}
	e := Event{Type: h.Type, Data: h.Data}
	if h.DataLength > 0 {
		data := make([]byte, h.DataLength)
		if _, err := io.ReadFull(r, data); err != nil {
			return Event{}, fmt.Errorf("wyoming: read %s data: %w", h.Type, err)
		}
		var extra map[string]any
		if err := json.Unmarshal(data, &extra); err != nil {
			return Event{}, fmt.Errorf("wyoming: read %s data: %w", h.Type, err)
		}
		if e.Data == nil {
			e.Data = map[string]any{}
		}
		for k, v := range extra {
			e.Data[k] = v
		}
	}
	if h.PayloadLength > 0 {
		e.Payload = make([]byte, h.PayloadLength)
		if _, err := io.ReadFull(r, e.Payload); err != nil {
			return Event{}, fmt.Errorf("wyoming: read %s payload: %w", h.Type, err)
		}
	}
	return e, nil
}

// Client transcribes through a Wyoming speech-to-text server.
type Client struct {
	// Addr is the server's host:port (wyoming-faster-whisper listens on
	// 10300 by default).
	Addr string
	// Language is a language code to ask for; empty lets the server decide.
	Language string
	// Timeout bounds the whole exchange; default 15 s. Wrap the client in
	// a guard.Transcriber to keep the server's noise from the reply.
	Timeout time.Duration
}

// chunk is how much audio each audio-chunk event carries: 100 ms.
const chunk = 1600

// Transcribe sends the utterance's audio and returns the server's text.
func (c *Client) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	audio := pcm.ToSpeech(u.Audio)
	if len(audio.Samples) == 0 {
		return voice.Transcript{}, voice.ErrNoSpeech
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 15 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return voice.Transcript{}, fmt.Errorf("wyoming: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() }) // releases blocked reads and writes
	defer stop()

	format := map[string]any{"rate": pcm.SpeechRate, "width": 2, "channels": 1}
	transcribe := map[string]any{}
	if c.Language != "" {
		transcribe["language"] = c.Language
	}
	w := bufio.NewWriter(conn)
	events := []Event{{Type: "transcribe", Data: transcribe}, {Type: "audio-start", Data: format}}
	for i := 0; i < len(audio.Samples); i += chunk {
		events = append(events, Event{Type: "audio-chunk", Data: format, Payload: pcm.Encode(nil, audio.Samples[i:min(i+chunk, len(audio.Samples))], pcm.S16LE)})
	}
	events = append(events, Event{Type: "audio-stop"})
	for _, e := range events {
		if err := Write(w, e); err != nil {
			return voice.Transcript{}, c.fail(ctx, err)
		}
	}
	if err := w.Flush(); err != nil {
		return voice.Transcript{}, c.fail(ctx, fmt.Errorf("wyoming: %w", err))
	}
	r := bufio.NewReader(conn)
	for {
		e, err := Read(r)
		if err != nil {
			return voice.Transcript{}, c.fail(ctx, err)
		}
		switch e.Type {
		case "transcript":
			text, _ := e.Data["text"].(string)
			lang, _ := e.Data["language"].(string)
			text = strings.TrimSpace(text)
			if text == "" {
				return voice.Transcript{}, voice.ErrNoSpeech
			}
			return voice.Transcript{Text: text, Language: lang}, nil
		case "error":
			msg, _ := e.Data["text"].(string)
			if msg == "" {
				msg, _ = e.Data["message"].(string)
			}
			code, _ := e.Data["code"].(string)
			return voice.Transcript{}, &ServerError{Text: strings.TrimSpace(msg), Code: code}
		}
		// Other events (transcript-start, transcript-chunk, info) are not
		// needed: the final transcript carries the whole text.
	}
}

func (c *Client) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("wyoming: %w", ctx.Err())
	}
	return err
}
