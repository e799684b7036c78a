package wyoming

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
)

// Voice speaks through a Wyoming text-to-speech server (Home Assistant's
// Piper server, wyoming-piper, listens on 10200): one synthesize event per
// sentence, answered by audio-start, audio-chunk... and audio-stop.
type Voice struct {
	// Addr is the server's host:port.
	Addr string
	// Voices maps a language code ("de") to the server's voice name
	// ("de_DE-thorsten-medium"); the turn's language picks one, "" the
	// server's default.
	Voices map[string]string
	// Timeout bounds one sentence, connection and all; default 10 s.
	Timeout time.Duration
}

// ErrFormat is audio Hark cannot play: a sample width other than 16 bits,
// no rate or no channels.
var ErrFormat = errors.New("wyoming: audio in a format Hark cannot play")

// Synthesize speaks text in the voice of the turn's language.
func (v *Voice) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	timeout := v.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", v.Addr)
	if err != nil {
		return pcm.Buffer{}, fmt.Errorf("wyoming: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	data := map[string]any{"text": text}
	lang := locale.LanguageOf(ctx)
	if name := v.voiceFor(lang); name != "" {
		data["voice"] = map[string]any{"name": name}
	} else if lang != "" {
		data["voice"] = map[string]any{"language": lang}
	}
	w := bufio.NewWriter(conn)
	if err := Write(w, Event{Type: "synthesize", Data: data}); err != nil {
		return pcm.Buffer{}, v.fail(ctx, err)
	}
	if err := w.Flush(); err != nil {
		return pcm.Buffer{}, v.fail(ctx, fmt.Errorf("wyoming: %w", err))
	}
	r := bufio.NewReader(conn)
	var out pcm.Buffer
	started := false
	for {
		e, err := Read(r)
		if err != nil {
			return pcm.Buffer{}, v.fail(ctx, err)
		}
		switch e.Type {
		case "audio-start", "audio-chunk":
			rate, width, channels := num(e.Data["rate"]), num(e.Data["width"]), num(e.Data["channels"])
			if width != 2 || rate <= 0 || channels <= 0 {
				return pcm.Buffer{}, fmt.Errorf("%w: rate %d, width %d bytes, %d channels", ErrFormat, rate, width, channels)
			}
			if started && (rate != out.Rate || channels != out.Channels) {
				return pcm.Buffer{}, fmt.Errorf("%w: the format changed mid-sentence", ErrFormat)
			}
			out.Rate, out.Channels, started = rate, channels, true
			if e.Type == "audio-chunk" {
				if len(e.Payload)%(2*channels) != 0 {
					return pcm.Buffer{}, fmt.Errorf("%w: a chunk of %d bytes is not whole frames", ErrFormat, len(e.Payload))
				}
				if out.Samples, err = pcm.Decode(out.Samples, e.Payload, pcm.S16LE); err != nil {
					return pcm.Buffer{}, fmt.Errorf("wyoming: %w", err)
				}
			}
		case "audio-stop":
			if !started || len(out.Samples) == 0 {
				return pcm.Buffer{}, errors.New("wyoming: the server sent no audio")
			}
			return out, nil
		case "error":
			msg, _ := e.Data["text"].(string)
			return pcm.Buffer{}, fmt.Errorf("wyoming: server error: %s", strings.TrimSpace(msg))
		}
	}
}

// voiceFor is the configured voice of a language ("de" of "de-CH").
func (v *Voice) voiceFor(lang string) string {
	if lang == "" {
		return v.Voices[""]
	}
	if name, ok := v.Voices[lang]; ok {
		return name
	}
	primary, _, _ := strings.Cut(strings.ToLower(lang), "-")
	return v.Voices[primary]
}

func (v *Voice) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("wyoming: no audio within the sentence's time: %w", ctx.Err())
	}
	return err
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}
