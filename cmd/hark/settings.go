package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
)

// errRestart ends the box so that cmdRun starts it again with the
// configuration read anew.
var errRestart = errors.New("restart to apply the settings")

// settingsAPI is the configuration keys a user changes, as the API serves
// them: kept in the data directory, applied at the next start.
type settingsAPI struct{ a *app }

func (s settingsAPI) path() string { return filepath.Join(s.a.cfg.DataDir, config.SettingsFile) }

func (s settingsAPI) List(context.Context) ([]control.Setting, error) {
	saved, err := config.Saved(s.path())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", control.ErrUnavailable, err)
	}
	cfg := s.a.cfg
	var out []control.Setting
	for _, k := range config.Settable {
		st := control.Setting{Key: k, Value: cfg.Text(k), Help: config.Help(k), Choices: config.Choices(k), Source: cfg.Sources[k]}
		if src := cfg.Sources[k]; strings.HasPrefix(src, "env ") || strings.HasPrefix(src, "flag ") {
			st.Locked = "set by " + src
		}
		s.a.appliedMu.Lock()
		now, live := s.a.applied[k]
		s.a.appliedMu.Unlock()
		if live {
			st.Value = now // applied at once: what the daemon uses now
		}
		if v, ok := saved[k]; ok && v != st.Value {
			st.Saved = v
		}
		out = append(out, st)
	}
	return out, nil
}

func (s settingsAPI) Set(ctx context.Context, key, value string) error {
	value = strings.TrimSpace(value)
	err := s.a.cfg.SaveSetting(s.path(), key, value, os.Getenv)
	if errors.Is(err, config.ErrSetting) {
		return fmt.Errorf("%w: %s", control.ErrInvalid, strings.TrimPrefix(err.Error(), config.ErrSetting.Error()+": "))
	}
	if err != nil {
		return err
	}
	if s.applyNow(ctx, key, value) {
		s.a.appliedMu.Lock()
		if s.a.applied == nil {
			s.a.applied = map[string]string{}
		}
		s.a.applied[key] = value
		s.a.appliedMu.Unlock()
		s.a.log.Info("setting applied", "key", key)
	}
	return nil
}

// applyNow applies a kept setting to the running daemon where that needs
// no restart: the log level, and the volume (which the speaker then plays
// at, until someone says otherwise). It reports whether it did.
func (s settingsAPI) applyNow(ctx context.Context, key, value string) bool {
	switch key {
	case "log.level":
		return s.a.logLevel != nil && s.a.logLevel.UnmarshalText([]byte(value)) == nil
	case "audio.volume":
		if s.a.restart == nil || s.a.mixer == nil { // no daemon: nothing plays
			return false
		}
		n, err := strconv.Atoi(value)
		if err != nil {
			return false
		}
		_, muted, err := s.a.mixer.Volume(ctx)
		return err == nil && s.a.mixer.SetVolume(ctx, n, muted) == nil
	}
	return false
}

func (s settingsAPI) Restart(context.Context) error {
	if s.a.restart == nil {
		return fmt.Errorf("%w: nothing to restart: the daemon is not running (the settings apply when hark run starts)", control.ErrConflict)
	}
	s.a.log.Info("restarting to apply the settings")
	s.a.restart()
	return nil
}
