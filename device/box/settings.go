package box

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/mixer"
	"github.com/harkbox/hark/pipeline"
)

// ErrRestart ends Run's box so that it starts again with the configuration
// read anew.
var ErrRestart = errors.New("box: restart to apply the settings")

// live is what the running daemon applies at once: the log level, the
// volume, and the restart that applies the rest. A one-shot command has
// none of them.
type live struct {
	level   *slog.LevelVar // nil without a daemon
	restart func()         // nil without a daemon
	// pipe is the running pipeline: its follow-up and earcons; earcons
	// is false on a speaker that plays none (the simulation's WAV files).
	pipe    *pipeline.Pipeline
	earcons bool
	// persona gives the reply engine a new name and place; nil for a
	// node, whose replies the center writes.
	persona func(name, place string)
	// zone makes a time zone the household's at once.
	zone func(ctx context.Context, loc *time.Location)
	// voice sets the speech engine's voice and rate (0: kept) at once;
	// nil when speech is off.
	voice func(voice string, rate int)
	// rename announces the page on the network under the assistant's
	// name and room; nil without a page.
	rename func(name, room string)

	mu      sync.Mutex
	applied map[string]string // settings applied without a restart, key → value
}

func (l *live) value(key string) (string, bool) {
	if l == nil {
		return "", false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.applied[key]
	return v, ok
}

func (l *live) keep(key, value string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.applied == nil {
		l.applied = map[string]string{}
	}
	l.applied[key] = value
}

// settingsResource is the configuration keys a user changes, as the API
// serves them: kept in the data directory, applied at once where they can
// be, else at the next start.
type settingsResource struct {
	cfg   *config.Loaded
	live  *live
	mixer *mixer.Mixer
	fault *settingsFault
	log   *slog.Logger
}

var _ control.Settings = settingsResource{}

func (s settingsResource) path() string { return filepath.Join(s.cfg.DataDir, config.SettingsFile) }

func (s settingsResource) List(ctx context.Context) ([]control.Setting, error) {
	saved, err := s.cfg.SavedSettings(s.path(), os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", control.ErrUnavailable, err)
	}
	var out []control.Setting
	for _, k := range config.Settable {
		st := control.Setting{Key: k, Value: s.cfg.Text(k), Help: config.Help(k), Choices: config.Choices(k), Source: s.cfg.Sources[k]}
		if src := s.cfg.Sources[k]; strings.HasPrefix(src, "env ") || strings.HasPrefix(src, "flag ") {
			st.Locked = "set by " + src
		}
		if now, ok := s.live.value(k); ok {
			st.Value = now // applied at once: what the daemon uses now
		}
		if k == "audio.volume" {
			if v, _, err := s.mixer.Volume(ctx); err == nil {
				st.Value = strconv.Itoa(v) // as the speaker plays now, whoever set it
			}
		}
		if v, ok := saved[k]; ok && v != st.Value {
			st.Saved = v
		}
		out = append(out, st)
	}
	return out, nil
}

func (s settingsResource) Set(ctx context.Context, key, value string) error {
	value = strings.TrimSpace(value)
	aside, err := s.cfg.SaveSetting(s.path(), key, value, os.Getenv)
	if errors.Is(err, config.ErrSetting) {
		return fmt.Errorf("%w: %s", control.ErrInvalid, strings.TrimPrefix(err.Error(), config.ErrSetting.Error()+": "))
	}
	if aside != "" {
		s.log.Warn("the settings file is rewritten with the settings that load; the file as it was is kept beside it", "file", s.path(), "kept", aside)
	}
	if err != nil {
		return err
	}
	s.fault.clear() // the file is rewritten with what loads
	if s.applyNow(ctx, key, value) {
		s.live.keep(key, value)
		s.log.Info("setting applied", "key", key)
	}
	return nil
}

// applyNow applies a kept setting to the running daemon where that needs
// no restart: the log level, the volume (which the speaker then plays at,
// until someone says otherwise), the follow-up, the earcons, the
// assistant's name, room and place, the household's time zone, and the
// voice and its rate. It reports whether it did.
func (s settingsResource) applyNow(ctx context.Context, key, value string) bool {
	if s.live == nil || s.live.restart == nil { // no daemon: nothing runs
		return false
	}
	lv := s.live
	now := func(k string) string { // the value in use, with this one applied
		if k == key {
			return value
		}
		if v, ok := lv.value(k); ok {
			return v
		}
		return s.cfg.Text(k)
	}
	switch {
	case key == "pipeline.follow_up":
		return lv.pipe != nil && lv.pipe.SetFollowUp(pipeline.FollowUpPolicy(value)) == nil
	case strings.HasPrefix(key, "audio.earcon"):
		if lv.pipe == nil || !lv.earcons {
			return false
		}
		on := func(k string) bool { b, _ := strconv.ParseBool(now(k)); return b }
		lv.pipe.SetEarcons(earcons(config.Audio{Earcons: on("audio.earcons"), EarconStart: on("audio.earcon_start"), EarconEnd: on("audio.earcon_end"),
			EarconError: on("audio.earcon_error"), EarconThinking: on("audio.earcon_thinking")}))
		return true
	case key == "assistant.name" || key == "assistant.room" || key == "assistant.place":
		if lv.rename != nil && key != "assistant.place" {
			lv.rename(now("assistant.name"), now("assistant.room")) // its name in lists of services
		}
		if lv.persona == nil {
			return false
		}
		place := now("assistant.place")
		if room := now("assistant.room"); room != "" {
			place = nodePlace(room, place)
		}
		lv.persona(now("assistant.name"), place)
		return true
	}
	switch key {
	case "assistant.time_zone":
		if lv.zone == nil {
			return false
		}
		loc := time.Local // "" is the system's zone, as config.Resolve reads it
		if value != "" {
			l, err := time.LoadLocation(value) // SaveSetting checked it
			if err != nil {
				return false
			}
			loc = l
		}
		lv.zone(ctx, loc)
		return true
	case "tts.voice", "tts.rate":
		if lv.voice == nil {
			return false
		}
		rate, err := strconv.Atoi(now("tts.rate"))
		if err != nil {
			return false
		}
		lv.voice(cmpOr(now("tts.voice"), "en"), rate) // "" speaks English, as espeak.New reads it
		return true
	case "log.level":
		return s.live.level != nil && s.live.level.UnmarshalText([]byte(value)) == nil
	case "audio.volume":
		n, err := strconv.Atoi(value)
		if err != nil {
			return false
		}
		_, muted, err := s.mixer.Volume(ctx)
		return err == nil && s.mixer.SetVolume(ctx, n, muted) == nil
	}
	return false
}

func (s settingsResource) Restart(context.Context) error {
	if s.live == nil || s.live.restart == nil {
		return fmt.Errorf("%w: nothing to restart: the daemon is not running (the settings apply when hark run starts)", control.ErrConflict)
	}
	s.log.Info("restarting to apply the settings")
	s.live.restart()
	return nil
}

// settingsFault is what of the household's settings file did not load at
// the start (config.Loaded.SettingsProblems): the self-test's settings
// check fails with it until a saved setting rewrites the file without it.
type settingsFault struct {
	mu       sync.Mutex
	problems []config.SettingsProblem
}

// err says what did not load, or nil.
func (f *settingsFault) err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.problems) == 0 {
		return nil
	}
	var lines []string
	for _, p := range f.problems {
		lines = append(lines, p.String())
	}
	return fmt.Errorf("%s (left out; the rest of the file is used)", strings.Join(lines, "; "))
}

// clear forgets the problems, the file rewritten without them.
func (f *settingsFault) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.problems = nil
}
