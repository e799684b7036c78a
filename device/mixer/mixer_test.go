package mixer

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/harkbox/hark/reply/command/builtin"
)

var _ builtin.Mixer = (*Mixer)(nil)

// memSettings keeps values as JSON, as the store does.
type memSettings struct {
	m   map[string][]byte
	err error
}

func (s *memSettings) Get(_ context.Context, k string, v any) (bool, error) {
	if s.err != nil {
		return false, s.err
	}
	b, ok := s.m[k]
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, v)
}

func (s *memSettings) Set(_ context.Context, k string, v any) error {
	if s.err != nil {
		return s.err
	}
	b, _ := json.Marshal(v)
	s.m[k] = b
	return nil
}

func TestMixer(t *testing.T) {
	s := &memSettings{m: map[string][]byte{}}
	m := New(s, 60)
	if lvl, muted, err := m.Volume(t.Context()); lvl != 60 || muted || err != nil {
		t.Errorf("initial volume %d %v %v, want 60", lvl, muted, err)
	}
	if g := m.Gain(); g < 0.359 || g > 0.361 {
		t.Errorf("gain at 60 = %v, want 0.36 (the level squared)", g)
	}
	if err := m.SetVolume(t.Context(), 100, false); err != nil {
		t.Fatal(err)
	}
	if g := m.Gain(); g != 1 {
		t.Errorf("gain at 100 = %v", g)
	}
	m.SetVolume(t.Context(), 80, true)
	if g := m.Gain(); g != 0 {
		t.Errorf("muted gain = %v", g)
	}
	// Kept across a restart.
	again := New(s, 60)
	if lvl, muted, _ := again.Volume(t.Context()); lvl != 80 || !muted {
		t.Errorf("after a restart: %d %v, want 80 muted", lvl, muted)
	}
	// A store that fails: silence, and the error says so.
	bad := New(&memSettings{err: errors.New("storage: full")}, 60)
	if g := bad.Gain(); g != 0 {
		t.Errorf("gain with an unreadable volume = %v, want silence", g)
	}
	if err := bad.SetVolume(t.Context(), 10, false); err == nil {
		t.Error("SetVolume on a failing store succeeded")
	}
}
