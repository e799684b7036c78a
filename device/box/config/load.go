package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Loaded is a configuration with the source of each value.
type Loaded struct {
	Config
	// File is the configuration file read, or "" when none was.
	File string
	// Sources maps each key ("ollama.model") to where its value came from:
	// "default", "file PATH", "env NAME" or "flag --NAME".
	Sources map[string]string
	// SettingsProblems are the entries of the household's settings file
	// that UseSettings left out, each at the value it would have without
	// them; none when the file loaded whole.
	SettingsProblems []SettingsProblem
}

// Env reads environment variables; os.Getenv in production.
type Env func(string) string

// Load reads the configuration. With path set, that file must exist;
// otherwise the first of $XDG_CONFIG_HOME/hark/hark.toml (or
// ~/.config/hark/hark.toml) and /etc/hark/hark.toml that exists is read, and
// with neither the defaults stand. Values from the environment are then
// applied (OLLAMA_HOST). Call Override for flags, then Resolve.
func Load(path string, env Env) (*Loaded, error) {
	l := &Loaded{Config: Default(), Sources: map[string]string{}}
	for _, f := range fields(reflect.ValueOf(&l.Config).Elem(), "") {
		l.Sources[f.key] = "default"
	}
	if path == "" {
		path = findFile(env)
	} else if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if path != "" {
		if err := l.readFile(path); err != nil {
			return nil, err
		}
	}
	if h := env("OLLAMA_HOST"); strings.TrimSpace(h) != "" {
		l.Ollama.Host = h
		l.Sources["ollama.host"] = "env OLLAMA_HOST"
	}
	return l, nil
}

func findFile(env Env) string {
	var candidates []string
	if x := env("XDG_CONFIG_HOME"); x != "" {
		candidates = append(candidates, filepath.Join(x, "hark", "hark.toml"))
	} else if h := env("HOME"); h != "" {
		candidates = append(candidates, filepath.Join(h, ".config", "hark", "hark.toml"))
	}
	candidates = append(candidates, "/etc/hark/hark.toml")
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	return ""
}

func (l *Loaded) readFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&l.Config); err != nil {
		return fileError(path, err)
	}
	// Which keys did the file set? Decode again, loosely, to see.
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		return fileError(path, err)
	}
	for _, k := range flatten(raw, "") {
		l.Sources[k] = "file " + path
	}
	l.File = path
	return nil
}

// fileError turns go-toml's errors into ones that name the file, the line
// and the key.
func fileError(path string, err error) error {
	var missing *toml.StrictMissingError
	if errors.As(err, &missing) {
		var msgs []string
		for _, e := range missing.Errors {
			row, _ := e.Position()
			msgs = append(msgs, fmt.Sprintf("config %s:%d: unknown key %s", path, row, strings.Join(e.Key(), ".")))
		}
		return errors.New(strings.Join(msgs, "\n"))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		msg := typeMismatch(strings.TrimPrefix(de.Error(), "toml: "))
		if key := strings.Join(de.Key(), "."); key != "" {
			return fmt.Errorf("config %s:%d:%d: %s: %s", path, row, col, key, msg)
		}
		return fmt.Errorf("config %s:%d:%d: %s", path, row, col, msg)
	}
	return fmt.Errorf("config %s: %w", path, err)
}

// mismatch is go-toml's message for a value of the wrong type.
var mismatch = regexp.MustCompile(`^cannot decode TOML (\w+(?: \w+)?) into struct field \S+ of type (\S+)$`)

// typeMismatch says a value of the wrong type in the file's words, not in
// Go's; other messages are returned as they are.
func typeMismatch(msg string) string {
	m := mismatch.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	given := map[string]string{"string": "a string", "integer": "a whole number", "float": "a number with a fraction",
		"bool": "true or false", "boolean": "true or false", "array": "a list", "table": "a table", "inline table": "a table"}[m[1]]
	var wanted string
	switch t := strings.TrimPrefix(m[2], "*"); {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		wanted = "a whole number"
	case strings.HasPrefix(t, "float"):
		wanted = "a number"
	case t == "bool":
		wanted = "true or false"
	case t == "string":
		wanted = "a string in quotes"
	case strings.HasPrefix(t, "[]"):
		wanted = "a list"
	case strings.HasPrefix(t, "map["):
		wanted = "a table"
	}
	if given == "" || wanted == "" {
		return msg
	}
	return given + ", where " + wanted + " goes"
}

// flatten lists the dotted keys of a parsed file; a table that is one
// key's value (a map, such as tts.voices) is that key.
func flatten(m map[string]any, prefix string) []string {
	var out []string
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok && !mapKeys[prefix+k] {
			out = append(out, flatten(sub, prefix+k+".")...)
			continue
		}
		out = append(out, prefix+k)
	}
	return out
}

// Override sets key from a flag or other source, parsing value as the key's
// type.
func (l *Loaded) Override(key, value, source string) error {
	for _, f := range fields(reflect.ValueOf(&l.Config).Elem(), "") {
		if f.key != key {
			continue
		}
		if err := set(f.v, value); err != nil {
			return fmt.Errorf("%s: %s: %w", source, key, err)
		}
		l.Sources[key] = source
		return nil
	}
	return fmt.Errorf("%s: unknown configuration key %s", source, key)
}

func set(v reflect.Value, s string) error {
	if u, ok := v.Addr().Interface().(interface{ UnmarshalText([]byte) error }); ok {
		return u.UnmarshalText([]byte(s))
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", s)
		}
		v.SetInt(int64(n))
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%q is not true or false", s)
		}
		v.SetBool(b)
	default:
		return fmt.Errorf("cannot set a %s", v.Kind())
	}
	return nil
}

type field struct {
	key string
	v   reflect.Value
}

// fields lists the settable leaves of a config struct with their dotted keys,
// in declaration order.
func fields(v reflect.Value, prefix string) []field {
	var out []field
	t := v.Type()
	for i := range t.NumField() {
		tag := strings.Split(t.Field(i).Tag.Get("toml"), ",")[0]
		if tag == "" || tag == "-" {
			continue
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Struct && fv.Type() != reflect.TypeOf(Duration{}) {
			out = append(out, fields(fv, prefix+tag+".")...)
			continue
		}
		out = append(out, field{key: prefix + tag, v: fv})
	}
	return out
}

// Keys lists every configuration key, in the order of the example file.
func Keys() []string {
	c := Default()
	var out []string
	for _, f := range fields(reflect.ValueOf(&c).Elem(), "") {
		out = append(out, f.key)
	}
	return out
}

// Value returns the effective value of key as TOML would write it on the
// key's line: a map (tts.voices) or a list of tables (mcp.server) inline.
func (l *Loaded) Value(key string) string {
	for _, f := range fields(reflect.ValueOf(&l.Config).Elem(), "") {
		if f.key == key {
			var b bytes.Buffer
			enc := toml.NewEncoder(&b)
			enc.SetTablesInline(true)
			if err := enc.Encode(map[string]any{"v": f.v.Interface()}); err != nil {
				return fmt.Sprint(f.v.Interface())
			}
			return strings.TrimSpace(strings.TrimPrefix(b.String(), "v = "))
		}
	}
	return ""
}

// Write prints the effective configuration as a TOML file that Load
// reads back to the same values, each key with where its value came from.
func (l *Loaded) Write(w io.Writer) error {
	file := l.File
	if file == "" {
		file = "none (defaults)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# configuration file: %s\n", file)
	section := ""
	for _, key := range Keys() {
		name := key
		if i := strings.LastIndex(key, "."); i >= 0 {
			if s := key[:i]; s != section {
				section = s
				fmt.Fprintf(&b, "\n[%s]\n", s)
			}
			name = key[i+1:]
		}
		fmt.Fprintf(&b, "%-40s # %s\n", name+" = "+l.Value(key), l.Sources[key])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mapKeys are the keys whose value is a table of the user's own keys.
var mapKeys = func() map[string]bool {
	c := Default()
	out := map[string]bool{}
	for _, f := range fields(reflect.ValueOf(&c).Elem(), "") {
		if f.v.Kind() == reflect.Map {
			out[f.key] = true
		}
	}
	return out
}()
