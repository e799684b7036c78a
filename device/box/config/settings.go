package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/harkbox/hark/internal/atomicfile"
)

// SettingsFile is where, in the data directory, the values set on the web
// page are kept: over the configuration file, under the environment and
// flags.
const SettingsFile = "settings.toml"

// Settable are the keys the web page offers, in its order: what a user
// of a speaker changes, not how it is built.
var Settable = []string{
	"assistant.name", "assistant.room", "assistant.place", "assistant.time_zone", "whisper.language",
	"audio.volume", "audio.earcons", "audio.earcon_start", "audio.earcon_end",
	"audio.earcon_error", "audio.earcon_thinking", "audio.earcon_ready", "tts.voice", "tts.rate",
	"listen.mode", "pipeline.follow_up", "button.double_action",
	"weather.location", "weather.units",
	"ollama.host", "ollama.model", "ollama.keep_warm",
	"lookup.searxng", "lookup.wikipedia", "lookup.fetch_pages",
	"update.manifest", "log.level",
}

// Help is the example file's comment above key, as one paragraph; "" for
// a key it does not comment.
func Help(key string) string {
	section, name := "", key
	if i := strings.LastIndex(key, "."); i >= 0 {
		section, name = key[:i], key[i+1:]
	}
	current := ""
	var comment []string // the comment of the group of keys below it
	afterKey := false
	for _, line := range strings.Split(Example, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]"):
			current, comment = strings.Trim(t, "[]"), nil
		case strings.HasPrefix(t, "#"):
			if afterKey {
				comment = nil
			}
			comment = append(comment, strings.TrimSpace(strings.TrimPrefix(t, "#")))
		case t == "":
			comment = nil
		default:
			if k, _, ok := strings.Cut(t, "="); ok && current == section && strings.TrimSpace(k) == name {
				return strings.Join(comment, " ")
			}
		}
		afterKey = t != "" && !strings.HasPrefix(t, "#")
	}
	return ""
}

// Choices are the allowed values of a key that has a fixed few; nil for
// a free value.
func Choices(key string) []string {
	return map[string][]string{
		"listen.mode":           {"tap", "hold"},
		"whisper.language":      {"auto", "en", "de", "fr", "es"},
		"pipeline.follow_up":    {"off", "when-asked", "always"},
		"button.double_action":  {"mute", "stop", "none"},
		"weather.units":         {"metric", "imperial"},
		"log.level":             {"debug", "info", "warn", "error"},
		"lookup.fetch_pages":    {"false", "true"},
		"audio.earcons":         {"false", "true"},
		"audio.earcon_start":    {"false", "true"},
		"audio.earcon_end":      {"false", "true"},
		"audio.earcon_error":    {"false", "true"},
		"audio.earcon_thinking": {"false", "true"},
		"audio.earcon_ready":    {"false", "true"},
		"ollama.keep_warm":      {"false", "true"},
	}[key]
}

// Text is the effective value of key as a form shows it: a string
// unquoted, a duration as "30s".
func (l *Loaded) Text(key string) string {
	for _, f := range fields(reflect.ValueOf(&l.Config).Elem(), "") {
		if f.key != key {
			continue
		}
		switch v := f.v.Interface().(type) {
		case string:
			return v
		case Duration:
			return v.Duration.String()
		case time.Duration:
			return v.String()
		default:
			return fmt.Sprint(v)
		}
	}
	return ""
}

// Saved reads the web page's settings file, key → value; a missing file
// holds none. A file larger than a settings file holds (64 KiB) is an
// error, as UseSettings leaves such a file out.
func Saved(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: settings %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSettingsSize+1))
	if err != nil {
		return nil, fmt.Errorf("config: settings %s: %w", path, err)
	}
	if len(b) > maxSettingsSize {
		return nil, fmt.Errorf("config: settings %s: more than %d KiB, the most a settings file holds: none of it is used", path, maxSettingsSize>>10)
	}
	m := map[string]string{}
	if err := toml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("config: settings %s: %w", path, err)
	}
	return m, nil
}

// ApplySettings applies the web page's settings kept at path, except keys
// the environment or a flag set, which win. It is the strict reading, for
// the boot check after an update: one entry that does not load fails it
// (Resolve then checks the values); UseSettings takes what loads.
func (l *Loaded) ApplySettings(path string) error {
	m, err := Saved(path)
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if s := l.Sources[k]; strings.HasPrefix(s, "env ") || strings.HasPrefix(s, "flag ") {
			continue
		}
		if err := l.Override(k, m[k], "settings "+path); err != nil {
			return err
		}
	}
	return nil
}

// ErrSetting is a value the web page may not keep.
var ErrSetting = errors.New("config: setting refused")

// saving is held while a setting is saved: the file is read, and written
// with the setting added.
var saving sync.Mutex

// SaveSetting checks key = value by the rules of the file, on a copy of
// the configuration, and keeps it in the settings file at path, written
// atomically. The running configuration is not changed: a restart applies
// it. It is safe for concurrent use: settings saved at once are all kept.
//
// A file that did not all load is rewritten with the entries that do, and
// the file as it was is kept beside it: aside is that copy's path, "" when
// the file loaded (or there was none).
func (l *Loaded) SaveSetting(path, key, value string, env Env) (aside string, err error) {
	if !slices.Contains(Settable, key) {
		return "", fmt.Errorf("%w: %s is not set on this page", ErrSetting, key)
	}
	if s := l.Sources[key]; strings.HasPrefix(s, "env ") || strings.HasPrefix(s, "flag ") {
		return "", fmt.Errorf("%w: %s is set by %s, which wins over this page", ErrSetting, key, s)
	}
	// A refusal quotes the value, which helps with a typo; the passwords
	// and tokens in it are hidden, as the refusal is shown and may be
	// logged.
	c := &Loaded{Config: l.Config, File: l.File, Sources: maps.Clone(l.Sources)}
	if err := c.Override(key, value, "the page"); err != nil {
		_, msg, _ := strings.Cut(err.Error(), key+": ")
		return "", fmt.Errorf("%w: %s", ErrSetting, hideSecrets(msg))
	}
	if _, err := c.Resolve(env); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			if _, msg, ok := strings.Cut(line, key+": "); ok {
				return "", fmt.Errorf("%w: %s", ErrSetting, hideSecrets(msg))
			}
		}
		return "", fmt.Errorf("%w: %s", ErrSetting, hideSecrets(err.Error()))
	}
	// The file as far as it loads: an entry that does not is left out,
	// and the file as it was is kept aside, once, for whoever wrote it.
	// One save at a time reads and writes it, or one would undo another.
	saving.Lock()
	defer saving.Unlock()
	e, err := readSettings(path)
	if err != nil {
		return "", err
	}
	m, err := l.kept(path, &e, env)
	if err != nil {
		return "", err
	}
	m[key] = value
	b, err := toml.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("config: settings: %w", err)
	}
	if len(e.problems) > 0 {
		if aside, err = keepAside(path, &e, time.Now()); err != nil {
			return "", fmt.Errorf("config: keep aside the settings that did not load: %w", err)
		}
	}
	head := "# Set on the web page; these win over the configuration file, not over\n# the environment or flags. Edit with care: `hark config` shows the result.\n"
	if err := atomicfile.Write(path, append([]byte(head), b...), 0o600); err != nil {
		return aside, fmt.Errorf("config: keep the setting: %w", err)
	}
	return aside, nil
}

// SavedSettings are the entries of the settings file at path that load
// over l, key → value: what the next start applies, and what saving a
// setting keeps. An entry that does not load is left out (UseSettings).
func (l *Loaded) SavedSettings(path string, env Env) (map[string]string, error) {
	e, err := readSettings(path)
	if err != nil {
		return nil, err
	}
	return l.kept(path, &e, env)
}

// kept are e's entries that load over a copy of l.
func (l *Loaded) kept(path string, e *settingsEntries, env Env) (map[string]string, error) {
	c := &Loaded{Config: l.Config, File: l.File, Sources: maps.Clone(l.Sources)}
	_, m, err := c.useEntries(path, e, env)
	if err != nil {
		return nil, fmt.Errorf("config: settings %s: %w", path, err)
	}
	return m, nil
}

// keepAside keeps the settings file at path as it was (e), beside it, and
// returns the copy's path: path.bad-TIME, TIME now to the second, or
// path.bad-TIME-2, -3 and on when a copy of that second is there: a copy
// never replaces another.
func keepAside(path string, e *settingsEntries, now time.Time) (string, error) {
	base := path + ".bad-" + now.UTC().Format("20060102T150405Z")
	for n := 1; n <= maxAsideASecond; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		err := keepAs(path, name, e)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return name, nil
	}
	return "", fmt.Errorf("%s and %d more copies of that second are there already", base, maxAsideASecond-1)
}

// maxAsideASecond is how many copies of one second keepAside names.
const maxAsideASecond = 100

// keepAs keeps the settings file at path as name, which it creates: an
// error that is fs.ErrExist when name is taken.
func keepAs(path, name string, e *settingsEntries) (err error) {
	// The name is taken here, or not at all: O_EXCL does not replace.
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	defer func() {
		if err != nil {
			os.Remove(name)
		}
	}()
	if !e.whole {
		return atomicfile.Write(name, e.raw, 0o600)
	}
	// None of it is used: moved aside as it is, it is not missed should
	// the power fail before the file is written.
	if info, err := os.Lstat(path); err == nil && info.IsDir() {
		os.Remove(name) // a directory is not renamed over a file
	}
	return os.Rename(path, name)
}
