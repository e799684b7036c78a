package pipeline

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
)

// VoiceFallback speaks with Primary (a neural voice on the LAN) and, whenever
// it fails or misses Deadline for a sentence, with Backup (espeak-ng on
// the box): a reply is never silent. An outage is kept per language (a
// server without a German voice fails German sentences only) and logged
// once when it starts and once when it ends.
type VoiceFallback struct {
	Primary, Backup Synthesizer
	// Deadline bounds Primary's work on one sentence; default 3 s.
	Deadline time.Duration
	Log      *slog.Logger

	mu   sync.Mutex
	down map[string]bool // by the turn's language
}

// Synthesize speaks text with Primary, or Backup when it cannot.
func (f *VoiceFallback) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	d := f.Deadline
	if d <= 0 {
		d = 3 * time.Second
	}
	pctx, cancel := context.WithTimeout(ctx, d)
	b, err := f.Primary.Synthesize(pctx, text)
	cancel()
	if ctx.Err() != nil {
		return pcm.Buffer{}, ctx.Err()
	}
	lang := locale.LanguageOf(ctx)
	f.mu.Lock()
	if f.down == nil {
		f.down = map[string]bool{}
	}
	was := f.down[lang]
	f.down[lang] = err != nil
	f.mu.Unlock()
	if err == nil {
		if was && f.Log != nil {
			f.Log.Info("the voice answers again", "language", lang)
		}
		return b, nil
	}
	if !was && f.Log != nil {
		f.Log.Warn("the voice failed; speaking with the fallback until it answers again", "language", lang, "err", err)
	}
	return f.Backup.Synthesize(ctx, text)
}
