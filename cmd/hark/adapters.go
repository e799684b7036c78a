package main

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/command/weather"
	"github.com/harkbox/hark/storage"
)

// mixer keeps the volume in the settings and tells the speaker the gain.
type mixer struct {
	settings *storage.Settings
	initial  int

	mu     sync.Mutex
	loaded bool
	v      volume
}

type volume struct {
	Level int  `json:"level"`
	Muted bool `json:"muted"`
}

func newMixer(s *storage.Settings, initial int) *mixer { return &mixer{settings: s, initial: initial} }

func (m *mixer) load(ctx context.Context) (volume, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.loaded {
		v := volume{Level: m.initial}
		if _, err := m.settings.Get(ctx, "volume", &v); err != nil {
			return v, err
		}
		m.v, m.loaded = v, true
	}
	return m.v, nil
}

// Volume returns the level and the mute.
func (m *mixer) Volume(ctx context.Context) (int, bool, error) {
	v, err := m.load(ctx)
	return v.Level, v.Muted, err
}

// SetVolume stores both.
func (m *mixer) SetVolume(ctx context.Context, level int, muted bool) error {
	v := volume{Level: level, Muted: muted}
	if err := m.settings.Set(ctx, "volume", v); err != nil {
		return err
	}
	m.mu.Lock()
	m.v, m.loaded = v, true
	m.mu.Unlock()
	return nil
}

// Gain is the amplitude factor for the current volume: silent when muted,
// and squared so that equal steps sound like equal steps.
func (m *mixer) Gain() float32 {
	v, err := m.load(context.Background())
	if err != nil || v.Muted {
		return 0
	}
	f := float32(v.Level) / 100
	return f * f
}

var _ builtin.Mixer = (*mixer)(nil)

// home is the weather command's home: set up by the user, else the
// configured place name, geocoded once and kept.
type home struct {
	settings *storage.Settings
	client   *weather.Client
	name     string
}

func (h *home) Home(ctx context.Context) (weather.Place, bool, error) {
	var p weather.Place
	if ok, err := h.settings.Get(ctx, "home_place", &p); err != nil || ok {
		return p, ok, err
	}
	if h.name == "" {
		return p, false, nil
	}
	p, err := h.client.Geocode(ctx, h.name)
	if err != nil {
		return p, false, err
	}
	return p, true, h.SetHome(ctx, p)
}

func (h *home) SetHome(ctx context.Context, p weather.Place) error {
	return h.settings.Set(ctx, "home_place", p)
}

// Status reports the device for device_status.
func (a *app) Status(ctx context.Context) builtin.DeviceStatus {
	st := builtin.DeviceStatus{Version: version, Uptime: time.Since(a.started), Model: a.cfg.Ollama.Model}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, ad := range addrs {
			if ipn, ok := ad.(*net.IPNet); ok && !ipn.IP.IsLoopback() && ipn.IP.To4() != nil {
				st.Addresses = append(st.Addresses, ipn.IP.String())
			}
		}
	}
	st.DiskUsed, st.DiskTotal = diskUsage(a.cfg.DataDir)
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, st.ModelErr = a.model.Version(cctx)
	return st
}
