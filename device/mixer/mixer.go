// Package mixer is the box's volume: the level and mute the voice commands
// set, kept in the settings across reboots, and the gain the speaker
// applies to every sample.
package mixer

import (
	"context"
	"sync"
)

// Settings keeps values by key; *storage.Settings is one.
type Settings interface {
	// Get reads key into v and reports whether it was set.
	Get(ctx context.Context, key string, v any) (bool, error)
	// Set stores v under key, durably.
	Set(ctx context.Context, key string, v any) error
}

// key is where the volume is kept.
const key = "volume"

// Mixer is the volume. It is safe for concurrent use.
type Mixer struct {
	settings Settings
	initial  int

	mu     sync.Mutex
	loaded bool
	v      volume
}

type volume struct {
	Level int  `json:"level"`
	Muted bool `json:"muted"`
}

// New returns the volume kept in s, initial (0 to 100) until one is set.
func New(s Settings, initial int) *Mixer { return &Mixer{settings: s, initial: initial} }

func (m *Mixer) load(ctx context.Context) (volume, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.loaded {
		v := volume{Level: m.initial}
		if _, err := m.settings.Get(ctx, key, &v); err != nil {
			return v, err
		}
		m.v, m.loaded = v, true
	}
	return m.v, nil
}

// Volume returns the level (0 to 100) and the mute.
func (m *Mixer) Volume(ctx context.Context) (int, bool, error) {
	v, err := m.load(ctx)
	return v.Level, v.Muted, err
}

// SetVolume stores both; the gain changes only once they are stored.
func (m *Mixer) SetVolume(ctx context.Context, level int, muted bool) error {
	v := volume{Level: level, Muted: muted}
	if err := m.settings.Set(ctx, key, v); err != nil {
		return err
	}
	m.mu.Lock()
	m.v, m.loaded = v, true
	m.mu.Unlock()
	return nil
}

// Gain is the amplitude factor for the current volume: silent when muted,
// and the level squared so that equal steps sound like equal steps. A
// volume that cannot be read is silence rather than a blast.
func (m *Mixer) Gain() float32 {
	v, err := m.load(context.Background())
	if err != nil || v.Muted {
		return 0
	}
	f := float32(v.Level) / 100
	return f * f
}
