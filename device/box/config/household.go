package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"

	"github.com/harkbox/hark/reply/redact"
)

// SettingsProblem is an entry of the household's settings file that did
// not load: its key keeps the value it has without the file.
type SettingsProblem struct {
	File string
	// Line is the entry's line, from 1; 0 when not known.
	Line int
	// Key is the entry's key; "" when its line names none.
	Key string
	// Problem says what is wrong with it.
	Problem string
}

// String is "FILE:LINE: KEY: PROBLEM".
func (p SettingsProblem) String() string {
	s := p.File
	if p.Line > 0 {
		s += ":" + strconv.Itoa(p.Line)
	}
	if p.Key != "" {
		s += ": " + p.Key
	}
	return s + ": " + p.Problem
}

// UseSettings applies the household's settings kept at path (the web
// page's, perhaps edited by hand) as far as they load, and resolves the
// configuration. Keys the environment or a flag set are left alone, as
// ApplySettings leaves them. An entry that does not parse, names no key, or
// holds a value its key or Resolve refuses is left out, its key at the value
// it has without the file, and listed in SettingsProblems; a file that
// cannot be read is one problem, and none of it is used. The error is the
// configuration's own (its file, the environment, the flags), which no
// setting excuses.
//
// ApplySettings, then Resolve, is the strict reading, which refuses the
// whole file for one such entry.
func (l *Loaded) UseSettings(path string, env Env) (Resolved, error) {
	e, err := readSettings(path)
	if err != nil {
		e = settingsEntries{problems: []SettingsProblem{{File: path, Problem: err.Error()}}}
	}
	r, _, err := l.useEntries(path, &e, env)
	l.SettingsProblems = e.problems
	if n := len(e.problems); n > maxProblems {
		// Each is logged and shown: a file of garbage is named by a few.
		l.SettingsProblems = append(e.problems[:maxProblems:maxProblems],
			SettingsProblem{File: path, Problem: fmt.Sprintf("and %d more entries that do not load", n-maxProblems)})
	}
	return r, err
}

// maxProblems is how many entries that do not load UseSettings names; the
// rest are counted.
const maxProblems = 20

// maxSettingsSize is the most a settings file is read of: the page's
// settings take a few kilobytes.
const maxSettingsSize = 64 << 10

// settingsEntries are the settings file as far as it parses.
type settingsEntries struct {
	raw []byte
	// whole: the file is no list of settings (not a file, not text, far
	// too large), none of it read; SaveSetting sets it aside as it is.
	whole    bool
	values   map[string]string
	lines    map[string]int
	problems []SettingsProblem
}

func (e *settingsEntries) problem(path string, line int, key, format string, a ...any) {
	e.problems = append(e.problems, SettingsProblem{File: path, Line: line, Key: key, Problem: hideSecrets(fmt.Sprintf(format, a...))})
}

// hideSecrets is a problem without the passwords and tokens of the value
// it quotes, an address's password among them ("http://admin:[SECRET_1]@
// host"): problems are logged, and shown on the page and in the status.
func hideSecrets(s string) string {
	s, _ = redact.New().Redact(s)
	return s
}

// readSettings parses the settings file at path as far as it can. The page
// writes one 'key' = 'value' a line: a file that does not parse as a whole
// is read line by line, and each line that does not parse is a problem. A
// missing file holds nothing. The error is a file that cannot be read.
func readSettings(path string) (settingsEntries, error) {
	e := settingsEntries{values: map[string]string{}, lines: map[string]int{}}
	info, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return e, nil
	}
	if err != nil {
		return e, fmt.Errorf("config: settings %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		e.whole = true
		e.problem(path, 0, "", "not a file (%s): none of it is used", info.Mode().Type())
		return e, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return e, fmt.Errorf("config: settings %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSettingsSize+1))
	if err != nil {
		return e, fmt.Errorf("config: settings %s: %w", path, err)
	}
	if len(b) > maxSettingsSize {
		e.whole = true
		e.problem(path, 0, "", "%d bytes, more than a settings file holds (%d KiB): none of it is used", max(info.Size(), int64(len(b))), maxSettingsSize>>10)
		return e, nil
	}
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		e.whole = true
		e.problem(path, 0, "", "not text (binary data?): none of it is used")
		return e, nil
	}
	e.raw = b
	var whole map[string]any
	wholeErr := toml.Unmarshal(b, &whole)
	for i, line := range strings.Split(string(b), "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		var one map[string]any
		if err := toml.Unmarshal([]byte(line), &one); err != nil {
			if wholeErr != nil {
				e.problem(path, i+1, "", "%s", parseProblem(err))
			}
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(one)) {
			if _, seen := e.lines[k]; !seen {
				e.lines[k] = i + 1
			}
			if wholeErr != nil {
				e.entry(path, k, one[k])
			}
		}
	}
	if wholeErr == nil {
		for _, k := range slices.Sorted(maps.Keys(whole)) {
			e.entry(path, k, whole[k])
		}
	} else if len(e.problems) == 0 {
		// Every line parses alone but not all together: a key set twice.
		line := 0
		var de *toml.DecodeError
		if errors.As(wholeErr, &de) {
			line, _ = de.Position()
		}
		e.problem(path, line, "", "%s", parseProblem(wholeErr))
	}
	return e, nil
}

// entry takes key = v from the file: a string, as the page writes it.
func (e *settingsEntries) entry(path, key string, v any) {
	switch v := v.(type) {
	case string:
		e.values[key] = v
	case map[string]any:
		hint := "'section.key' = 'value'"
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if s, ok := v[k].(string); ok {
				hint = fmt.Sprintf("'%s.%s' = '%s'", key, k, s)
				break
			}
		}
		e.problem(path, e.lines[key], key, "a table: the settings file keeps each setting on a line of its own, as %s", hint)
	default:
		e.problem(path, e.lines[key], key, "%v is not in quotes: the settings file keeps each value as a string, as '%v'", v, v)
	}
}

func parseProblem(err error) string {
	return strings.TrimPrefix(err.Error(), "toml: ")
}

// useEntries applies e's values to l, leaving out (as problems of e) those
// refused, and resolves l. It returns the entries kept: those applied, and
// those the environment or a flag overrides, unchecked, as ApplySettings
// leaves them.
func (l *Loaded) useEntries(path string, e *settingsEntries, env Env) (Resolved, map[string]string, error) {
	before := Loaded{Config: l.Config, Sources: maps.Clone(l.Sources)}
	source := "settings " + path
	kept := map[string]string{}
	var applied []string
	for _, k := range slices.Sorted(maps.Keys(e.values)) {
		v := e.values[k]
		if s := l.Sources[k]; strings.HasPrefix(s, "env ") || strings.HasPrefix(s, "flag ") {
			kept[k] = v
			continue
		}
		if err := l.Override(k, v, source); err != nil {
			msg := strings.TrimPrefix(err.Error(), source+": ")
			msg = strings.TrimPrefix(msg, k+": ")
			if strings.HasSuffix(msg, "unknown configuration key "+k) {
				msg = "not a configuration key (hark config --example lists them)"
			}
			e.problem(path, e.lines[k], k, "%s", msg)
			continue
		}
		kept[k] = v
		applied = append(applied, k)
	}
	for {
		r, err := l.Resolve(env)
		if err == nil {
			sortProblems(e.problems)
			return r, kept, nil
		}
		// Leave out the entries Resolve refused, and try again.
		blamed := false
		for _, line := range strings.Split(err.Error(), "\n") {
			rest, ok := strings.CutPrefix(line, "config "+source+": ")
			if !ok {
				continue
			}
			k, msg, _ := strings.Cut(rest, ": ")
			if !slices.Contains(applied, k) {
				continue
			}
			l.revert(&before, k)
			delete(kept, k)
			applied = slices.DeleteFunc(applied, func(a string) bool { return a == k })
			e.problem(path, e.lines[k], k, "%s", msg)
			blamed = true
		}
		if blamed {
			continue
		}
		if len(applied) == 0 {
			return r, kept, err // the configuration's own
		}
		// A rule between keys, named on one the file did not set: the
		// configuration without the file's entries, if that resolves.
		for _, k := range applied {
			l.revert(&before, k)
			delete(kept, k)
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			e.problem(path, 0, "", "%s (with %s from this file)", strings.TrimPrefix(line, "config "), strings.Join(applied, ", "))
		}
		applied = nil
	}
}

func sortProblems(ps []SettingsProblem) {
	slices.SortStableFunc(ps, func(a, b SettingsProblem) int { return a.Line - b.Line })
}

// revert sets key back to its value in from, and its source.
func (l *Loaded) revert(from *Loaded, key string) {
	src := fields(reflect.ValueOf(&from.Config).Elem(), "")
	for i, f := range fields(reflect.ValueOf(&l.Config).Elem(), "") {
		if f.key == key {
			f.v.Set(src[i].v)
		}
	}
	l.Sources[key] = from.Sources[key]
}
