//go:build !alsa || !cgo || !linux

package alsa

import (
	"context"

	"github.com/harkbox/hark/pipeline/pcm"
)

// Built reports whether alsa-lib is linked in.
func Built() bool { return false }

// PCM is unavailable in this build.
type PCM struct{}

// Open returns ErrNotBuilt.
func Open(stream Stream, cfg Config) (*PCM, error) { return nil, ErrNotBuilt }

// Format is zero.
func (p *PCM) Format() pcm.Format { return pcm.Format{} }

// Period is zero.
func (p *PCM) Period() int { return 0 }

// Xruns is zero.
func (p *PCM) Xruns() int { return 0 }

// Read returns ErrNotBuilt.
func (p *PCM) Read(ctx context.Context, dst []float32) (int, error) { return 0, ErrNotBuilt }

// Write returns ErrNotBuilt.
func (p *PCM) Write(ctx context.Context, src []float32) error { return ErrNotBuilt }

// Drain returns ErrNotBuilt.
func (p *PCM) Drain(ctx context.Context) error { return ErrNotBuilt }

// Drop returns ErrNotBuilt.
func (p *PCM) Drop() error { return ErrNotBuilt }

// Close does nothing.
func (p *PCM) Close() error { return nil }

// CheckConfig returns ErrNotBuilt.
func CheckConfig(path string, pcms ...string) error { return ErrNotBuilt }
