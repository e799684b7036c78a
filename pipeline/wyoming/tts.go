package wyoming

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// Voice speaks through a Wyoming text-to-speech server (Home Assistant's
// Piper server, wyoming-piper, listens on 10200). It keeps one connection
// open and asks the server to describe itself once on each connection:
// the server's voices and their languages pick the voice of each
// sentence's language, and a server that says it streams gets each
// sentence as synthesize-start, synthesize-chunk and synthesize-stop.
// Audio is handed over chunk by chunk as it arrives. Sentences are spoken
// one at a time; Voice is safe for concurrent use.
type Voice struct {
	// Addr is the server's host:port.
	Addr string
	// Voices maps a language code ("de") to the voice wanted for it
	// ("de_DE-thorsten-medium"); "" is the voice for sentences of no known
	// language. A language without one, or whose voice the server lacks,
	// gets the server's voice for that language, if it has one.
	Voices map[string]string
	// Timeout bounds each wait for the server: connecting, its info, the
	// first audio and each next chunk; default 10 s. A server that keeps
	// sending audio is never cut off.
	Timeout time.Duration
	Log     *slog.Logger

	mu      sync.Mutex // one sentence at a time on the connection
	c       *conn
	warned  map[string]bool
	unknown map[string]bool // languages logged as having no voice
}

// conn is an open, described connection.
type conn struct {
	nc   net.Conn
	r    *bufio.Reader
	w    *bufio.Writer
	info Info
}

// Info is what a server said about its text-to-speech service.
type Info struct {
	Voices []VoiceInfo
	// Streaming is set when the server takes a sentence's text in
	// synthesize-start, -chunk and -stop events.
	Streaming bool
}

// VoiceInfo is one of the server's voices.
type VoiceInfo struct {
	Name      string
	Languages []string // as the server writes them: "de_DE", "en-GB"
	Installed bool
}

// ErrFormat is audio Hark cannot play: a sample width other than 16 bits,
// no rate or no channels.
var ErrFormat = errors.New("wyoming: audio in a format Hark cannot play")

// ServerError is an error event from the server.
type ServerError struct {
	Text string
	Code string // machine-readable, when the server gives one
}

func (e *ServerError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("wyoming: the server says: %s (code %s)", e.Text, e.Code)
	}
	return "wyoming: the server says: " + e.Text
}

func (v *Voice) timeout() time.Duration {
	if v.Timeout <= 0 {
		return 10 * time.Second
	}
	return v.Timeout
}

func (v *Voice) log() *slog.Logger {
	if v.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return v.Log.With("pkg", "wyoming")
}

// Synthesize speaks text in the voice of the turn's language, whole.
func (v *Voice) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	var out pcm.Buffer
	err := v.Stream(ctx, text, func(b pcm.Buffer) error {
		out.Rate, out.Channels = b.Rate, b.Channels
		out.Samples = append(out.Samples, b.Samples...)
		return nil
	})
	if err != nil {
		return pcm.Buffer{}, err
	}
	return out, nil
}

// Stream speaks text in the voice of the turn's language (voice.Language
// of ctx), calling emit with each chunk of audio as it arrives; an error
// from emit stops it. A language the server has no voice for is
// voice.ErrNoVoice, found without asking the server to speak.
func (v *Voice) Stream(ctx context.Context, text string, emit func(pcm.Buffer) error) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	fresh := v.c == nil
	c, err := v.open(ctx)
	if err != nil {
		return err
	}
	name, err := v.pick(c.info, locale.LanguageOf(ctx))
	if err != nil {
		return err
	}
	var events []Event
	var sel map[string]any
	if name != "" {
		sel = map[string]any{"name": name}
	}
	if c.info.Streaming {
		start := Event{Type: "synthesize-start", Data: map[string]any{}}
		if sel != nil {
			start.Data["voice"] = sel
		}
		events = []Event{start, {Type: "synthesize-chunk", Data: map[string]any{"text": text}}, {Type: "synthesize-stop"}}
	} else {
		data := map[string]any{"text": text}
		if sel != nil {
			data["voice"] = sel
		}
		events = []Event{{Type: "synthesize", Data: data}}
	}
	stop := context.AfterFunc(ctx, func() { c.nc.Close() }) // releases a blocked read
	defer stop()
	started, err := v.exchange(c, events, emit)
	if err != nil && !started && !fresh && ctx.Err() == nil && !errors.As(err, new(*ServerError)) {
		// The server may have closed the connection kept from the last
		// sentence: once more, on a new one.
		v.drop()
		if c, err = v.open(ctx); err != nil {
			return err
		}
		stop := context.AfterFunc(ctx, func() { c.nc.Close() })
		defer stop()
		_, err = v.exchange(c, events, emit)
	}
	if err != nil {
		v.drop() // what is left of the answer must not be read as the next's
		if ctx.Err() != nil {
			return fmt.Errorf("wyoming: %w", ctx.Err())
		}
		var se *ServerError
		if errors.As(err, &se) {
			v.log().Warn("the voice server refused a sentence", "code", se.Code, "err", se.Text)
		}
		return err
	}
	return nil
}

// exchange sends events and reads the answer, emitting its audio; started
// reports whether any answer came.
func (v *Voice) exchange(c *conn, events []Event, emit func(pcm.Buffer) error) (started bool, err error) {
	c.nc.SetWriteDeadline(time.Now().Add(v.timeout()))
	for _, e := range events {
		if err := Write(c.w, e); err != nil {
			return false, err
		}
	}
	if err := c.w.Flush(); err != nil {
		return false, fmt.Errorf("wyoming: %w", err)
	}
	streamed := events[0].Type == "synthesize-start"
	var format pcm.Buffer
	audio := false
	for {
		c.nc.SetReadDeadline(time.Now().Add(v.timeout()))
		e, err := Read(c.r)
		if err != nil {
			if isTimeout(err) {
				err = fmt.Errorf("wyoming: no audio from the server within %v: %w", v.timeout(), err)
			}
			return started, err
		}
		started = true
		switch e.Type {
		case "audio-start", "audio-chunk":
			b, err := audioOf(e, format)
			if err != nil {
				return true, err
			}
			format.Rate, format.Channels = b.Rate, b.Channels
			if len(b.Samples) > 0 {
				audio = true
				if err := emit(b); err != nil {
					return true, err
				}
			}
		case "audio-stop":
			if !streamed {
				return true, noAudio(audio)
			}
		case "synthesize-stopped":
			if streamed {
				return true, noAudio(audio)
			}
		case "error":
			text, _ := e.Data["text"].(string)
			code, _ := e.Data["code"].(string)
			return true, &ServerError{Text: strings.TrimSpace(text), Code: code}
		}
	}
}

func noAudio(audio bool) error {
	if !audio {
		return errors.New("wyoming: the server sent no audio")
	}
	return nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// audioOf reads an audio event against the format so far.
func audioOf(e Event, format pcm.Buffer) (pcm.Buffer, error) {
	rate, width, channels := num(e.Data["rate"]), num(e.Data["width"]), num(e.Data["channels"])
	if width != 2 || rate <= 0 || channels <= 0 {
		return pcm.Buffer{}, fmt.Errorf("%w: rate %d, width %d bytes, %d channels", ErrFormat, rate, width, channels)
	}
	if format.Rate != 0 && (rate != format.Rate || channels != format.Channels) {
		return pcm.Buffer{}, fmt.Errorf("%w: the format changed mid-sentence", ErrFormat)
	}
	b := pcm.Buffer{Rate: rate, Channels: channels}
	if e.Type != "audio-chunk" {
		return b, nil
	}
	if len(e.Payload)%(2*channels) != 0 {
		return pcm.Buffer{}, fmt.Errorf("%w: a chunk of %d bytes is not whole frames", ErrFormat, len(e.Payload))
	}
	var err error
	if b.Samples, err = pcm.Decode(nil, e.Payload, pcm.S16LE); err != nil {
		return pcm.Buffer{}, fmt.Errorf("wyoming: %w", err)
	}
	return b, nil
}

// Probe connects afresh and asks the server to describe itself: whether
// it answers at all, without speaking. The configured voices the server
// lacks are logged.
func (v *Voice) Probe(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.drop()
	_, err := v.open(ctx)
	return err
}

// Info is what the server said on the current connection, connecting if
// there is none.
func (v *Voice) Info(ctx context.Context) (Info, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	c, err := v.open(ctx)
	if err != nil {
		return Info{}, err
	}
	return c.info, nil
}

// open returns the connection, connecting and describing when there is
// none; the caller holds v.mu.
func (v *Voice) open(ctx context.Context) (*conn, error) {
	if v.c != nil {
		return v.c, nil
	}
	dctx, cancel := context.WithTimeout(ctx, v.timeout())
	defer cancel()
	nc, err := (&net.Dialer{}).DialContext(dctx, "tcp", v.Addr)
	if err != nil {
		return nil, fmt.Errorf("wyoming: %w", err)
	}
	c := &conn{nc: nc, r: bufio.NewReader(nc), w: bufio.NewWriter(nc)}
	stop := context.AfterFunc(dctx, func() { nc.Close() })
	c.info, err = describe(c, v.timeout())
	stop()
	if err != nil {
		nc.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("wyoming: %w", ctx.Err())
		}
		return nil, err
	}
	v.c = c
	v.check(c.info)
	return c, nil
}

// drop closes the connection; the caller holds v.mu.
func (v *Voice) drop() {
	if v.c != nil {
		v.c.nc.Close()
		v.c = nil
	}
}

// Close closes the connection kept open.
func (v *Voice) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.drop()
	return nil
}

// describe asks for the server's info and reads its text-to-speech part.
func describe(c *conn, timeout time.Duration) (Info, error) {
	c.nc.SetDeadline(time.Now().Add(timeout))
	defer c.nc.SetDeadline(time.Time{})
	if err := Write(c.w, Event{Type: "describe"}); err != nil {
		return Info{}, err
	}
	if err := c.w.Flush(); err != nil {
		return Info{}, fmt.Errorf("wyoming: describe: %w", err)
	}
	for {
		e, err := Read(c.r)
		if err != nil {
			return Info{}, fmt.Errorf("wyoming: describe: %w", err)
		}
		if e.Type == "info" {
			return parseInfo(e.Data), nil
		}
	}
}

// parseInfo reads the tts programs of an info event: their voices, and
// streaming when any program supports it.
func parseInfo(data map[string]any) Info {
	var info Info
	programs, _ := data["tts"].([]any)
	for _, p := range programs {
		prog, _ := p.(map[string]any)
		if s, _ := prog["supports_synthesize_streaming"].(bool); s {
			info.Streaming = true
		}
		voices, _ := prog["voices"].([]any)
		for _, x := range voices {
			vo, _ := x.(map[string]any)
			name, _ := vo["name"].(string)
			if name == "" {
				continue
			}
			vi := VoiceInfo{Name: name}
			vi.Installed, _ = vo["installed"].(bool)
			langs, _ := vo["languages"].([]any)
			for _, l := range langs {
				if s, ok := l.(string); ok {
					vi.Languages = append(vi.Languages, s)
				}
			}
			info.Voices = append(info.Voices, vi)
		}
	}
	return info
}

// check warns, once each, about configured voices the server lacks.
func (v *Voice) check(info Info) {
	if len(info.Voices) == 0 {
		return
	}
	if v.warned == nil {
		v.warned = map[string]bool{}
	}
	for lang, name := range v.Voices {
		if name == "" || v.warned[name] || slices.ContainsFunc(info.Voices, func(vi VoiceInfo) bool { return vi.Name == name }) {
			continue
		}
		v.warned[name] = true
		v.log().Warn("the voice server has no such voice; using its own voice for the language, if it has one", "voice", name, "language", lang)
	}
}

// pick is the server's voice for a language: the configured one when the
// server has it, else the server's own for the language (installed
// first, then a medium-quality one, then the first it lists), "" for the
// server's default when the language is unknown. A known language with no
// voice is voice.ErrNoVoice.
func (v *Voice) pick(info Info, lang string) (string, error) {
	has := func(name string) bool {
		return len(info.Voices) == 0 || slices.ContainsFunc(info.Voices, func(vi VoiceInfo) bool { return vi.Name == name })
	}
	primary, _, _ := strings.Cut(strings.ToLower(strings.ReplaceAll(lang, "_", "-")), "-")
	for _, key := range []string{lang, primary} {
		if name := v.Voices[key]; name != "" && has(name) {
			return name, nil
		}
	}
	if lang == "" {
		if name := v.Voices[""]; name != "" && has(name) {
			return name, nil
		}
		return "", nil
	}
	var best *VoiceInfo
	score := func(vi *VoiceInfo) int {
		s := 0
		if vi.Installed {
			s += 2
		}
		if strings.Contains(vi.Name, "-medium") {
			s++
		}
		return s
	}
	for i := range info.Voices {
		vi := &info.Voices[i]
		if !slices.ContainsFunc(vi.Languages, func(l string) bool { return sameLanguage(l, lang, primary) }) {
			continue
		}
		if best == nil || score(vi) > score(best) {
			best = vi
		}
	}
	if best != nil {
		return best.Name, nil
	}
	if len(info.Voices) == 0 {
		return "", nil // a server that lists no voices decides itself
	}
	if v.unknown == nil {
		v.unknown = map[string]bool{}
	}
	if !v.unknown[primary] {
		v.unknown[primary] = true
		v.log().Info("the voice server has no voice for the language; the box's own voice speaks it", "language", lang)
	}
	return "", fmt.Errorf("%w: %s", voice.ErrNoVoice, lang)
}

// sameLanguage reports whether a server's language code ("de_DE") is the
// turn's ("de-CH" of primary "de"): the same primary language.
func sameLanguage(server, lang, primary string) bool {
	s := strings.ToLower(strings.ReplaceAll(server, "_", "-"))
	if s == strings.ToLower(strings.ReplaceAll(lang, "_", "-")) {
		return true
	}
	p, _, _ := strings.Cut(s, "-")
	return p == primary
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}
