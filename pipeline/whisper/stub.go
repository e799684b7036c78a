//go:build !whisper || !cgo

package whisper

import (
	"context"
	"time"

	"github.com/harkbox/hark/pipeline/voice"
)

// Engine is unavailable in this build.
type Engine struct{}

// New returns ErrNotBuilt.
func New(o Options) (*Engine, error) { return nil, ErrNotBuilt }

// Multilingual is false.
func (e *Engine) Multilingual() bool { return false }

// Built reports whether whisper.cpp is linked in.
func Built() bool { return false }

// Version is whisper.cpp's version and CPU features, or why there is none.
func Version() string { return "none built in (build with -tags whisper)" }

// Features is empty: there is no whisper.cpp.
func Features() []string { return nil }

// Transcribe returns ErrNotBuilt.
func (e *Engine) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	return voice.Transcript{}, ErrNotBuilt
}

// Run returns ErrNotBuilt.
func (e *Engine) Run(ctx context.Context, samples []float32) (Result, error) {
	return Result{}, ErrNotBuilt
}

// Close does nothing.
func (e *Engine) Close() error { return nil }

// LoadTime is zero.
func (e *Engine) LoadTime() time.Duration { return 0 }

// VAD is unavailable in this build.
type VAD struct{}

// NewVAD returns ErrNotBuilt.
func NewVAD(path string, threads int) (*VAD, error) { return nil, ErrNotBuilt }

// FrameSize is 512.
func (d *VAD) FrameSize() int { return 512 }

// Speech is 0.
func (d *VAD) Speech(frame []float32) float32 { return 0 }

// Reset does nothing.
func (d *VAD) Reset() {}

// Close does nothing.
func (d *VAD) Close() error { return nil }

// ProbeChild reports that this build has no engine to probe with.
func ProbeChild(ctx context.Context, model string) error { return ErrNotBuilt }
