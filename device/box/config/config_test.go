package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
)

func env(vars map[string]string) Env { return func(k string) string { return vars[k] } }

func write(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hark.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func load(t *testing.T, text string, vars map[string]string) (*Loaded, Resolved, error) {
	t.Helper()
	if vars == nil {
		vars = map[string]string{"HOME": "/home/u"}
	}
	l, err := Load(write(t, text), env(vars))
	if err != nil {
		return nil, Resolved{}, err
	}
	r, err := l.Resolve(env(vars))
	return l, r, err
}

func TestExampleHasEveryKeyAtItsDefault(t *testing.T) {
	var c Config
	if err := toml.NewDecoder(strings.NewReader(Example)).DisallowUnknownFields().Decode(&c); err != nil {
		t.Fatalf("the example does not parse strictly: %v", err)
	}
	if !reflect.DeepEqual(c, Default()) {
		t.Errorf("the example's values differ from the defaults:\nexample %+v\ndefault %+v", c, Default())
	}
	var raw map[string]any
	toml.Unmarshal([]byte(Example), &raw)
	got := flatten(raw, "")
	slices.Sort(got)
	want := Keys()
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("example keys %v\nconfig keys  %v", got, want)
	}
}

func TestFileValuesAndSources(t *testing.T) {
	l, r, err := load(t, "board = \"sim\"\n[ollama]\nmodel = \"qwen3:1.7b\"\nkeep_alive = \"-1s\"\n[assistant]\ntime_zone = \"Europe/Berlin\"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Ollama.Model != "qwen3:1.7b" || l.Ollama.KeepAlive.Duration != -time.Second || r.Location.String() != "Europe/Berlin" {
		t.Errorf("config = %+v", l.Config)
	}
	if got := l.Sources["ollama.model"]; got != "file "+l.File {
		t.Errorf("source of ollama.model = %q", got)
	}
	if got := l.Sources["tts.rate"]; got != "default" {
		t.Errorf("source of tts.rate = %q", got)
	}
	if r.OllamaURL.String() != "http://127.0.0.1:11434" || l.Ollama.Host != "http://127.0.0.1:11434" {
		t.Errorf("ollama URL = %v", r.OllamaURL)
	}
	if l.DataDir != "/home/u/.local/state/hark" {
		t.Errorf("data dir = %q", l.DataDir)
	}
	if v := l.Value("ollama.keep_alive"); v != `'-1s'` && v != `"-1s"` {
		t.Errorf("Value(keep_alive) = %s", v)
	}
}

func TestUnknownKeysNamed(t *testing.T) {
	_, _, err := load(t, "[ollama]\nmodle = \"x\"\n\n[ttts]\nrate = 1\n", nil)
	if err == nil {
		t.Fatal("unknown keys accepted")
	}
	for _, want := range []string{"hark.toml:2: unknown key ollama.modle", "hark.toml:4: unknown key ttts"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestBadValuesNamed(t *testing.T) {
	tests := []struct{ text, want string }{
		{"[tts]\nrate = 1000\n", "hark.toml: tts.rate: 1000 is outside 80..450"},
		{"[tts]\nrate = \"fast\"\n", "tts.rate"},
		{"[ollama]\nchat_timeout = \"soon\"\n", `ollama.chat_timeout: invalid duration "soon"`},
		{"[ollama]\nhost = \"box.lan:99999\"\n", `ollama.host: host "box.lan:99999": invalid port`},
		{"board = \"pi9\"\n", `board: "pi9" is not one of sim, respeaker-2mic, generic-i2s, usb`},
		{"[assistant]\ntime_zone = \"Mars/Olympus\"\n", `assistant.time_zone: unknown time zone "Mars/Olympus"`},
		{"[storage]\nprofile = \"tiny\"\n", "storage.profile"},
		{"[sim]\nboot_clock = \"1 Jan 2024\"\n", `sim.boot_clock: "1 Jan 2024" is not an RFC 3339 time`},
		{"[ollama]\nmodel = \"\"\n", "ollama.model: no model named"},
		{"[center]\ntranscribe = true\n", "center.transcribe: needs center.url"},
		{"[listen]\nsettle = \"800ms\"\n", "listen.settle: 800ms is longer than listen.silence_min (500ms)"},
		{"[listen]\nsilence_soft = \"800ms\"\n", "listen.silence_soft: 800ms is shorter than listen.silence_max (950ms)"},
		{"[listen]\npause = \"10ms\"\n", "listen.pause: 10ms is outside 200ms..5s"},
		{"[whisper]\nload_timeout = \"0s\"\n", "whisper.load_timeout: 0s must be longer than zero"},
		{"[whisper]\nlanguage = \"xx\"\n", `whisper.language: language "xx" is not one whisper.cpp knows`},
		{"[whisper]\nlanguage = \"english\"\n", `whisper.language: language "english" is not one whisper.cpp knows`},
		{"this is not toml", "hark.toml:1:"},
		{"[ollama]\nanswer_tokens = \"lots\"\n", "hark.toml:2:17: ollama.answer_tokens: a string, where a whole number goes"},
		{"[ollama]\nanswer_tokens = 1.5\n", "ollama.answer_tokens: a number with a fraction, where a whole number goes"},
		{"[ollama]\nanswer_tokens = -5\n", "ollama.answer_tokens: -5 is outside -1..65536"},
		{"[ollama]\nanswer_tokens = 1000000000\n", "ollama.answer_tokens: 1000000000 is outside -1..65536"},
		{"[audio]\nearcons = \"yes\"\n", "audio.earcons: a string, where true or false goes"},
		{"[ollama]\nmodel = 3\n", "ollama.model: a whole number, where a string in quotes goes"},
	}
	for _, tt := range tests {
		_, _, err := load(t, tt.text, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "hark.toml") {
			t.Errorf("%q: error %v, want one naming the file and containing %q", tt.text, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "struct field") {
			t.Errorf("%q: error %v names Go's types, not the file's", tt.text, err)
		}
	}
}

// TestWhisperLanguageCodes: a language given by a code whisper.cpp does
// not use but that names one it knows is resolved to whisper's code, which
// the engine, the Wyoming server and the replies then share.
func TestWhisperLanguageCodes(t *testing.T) {
	for code, want := range map[string]string{"auto": "auto", "de": "de", "nb": "no", "deu": "de", "en-GB": "en"} {
		l, _, err := load(t, "[whisper]\nlanguage = \""+code+"\"\n", nil)
		if err != nil {
			t.Errorf("whisper.language %q: %v", code, err)
			continue
		}
		if got := l.Whisper.Language; got != want {
			t.Errorf("whisper.language %q resolved to %q, want %q", code, got, want)
		}
	}
}

func TestAllProblemsAtOnce(t *testing.T) {
	_, _, err := load(t, "[tts]\nrate = 1\npitch = 200\n", nil)
	if err == nil || !strings.Contains(err.Error(), "tts.rate") || !strings.Contains(err.Error(), "tts.pitch") {
		t.Errorf("error %v, want both problems", err)
	}
}

func TestEnvAndFlagsOverride(t *testing.T) {
	vars := map[string]string{"HOME": "/home/u", "OLLAMA_HOST": "box.lan"}
	l, err := Load(write(t, "[ollama]\nhost = \"other:1\"\n"), env(vars))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Override("data_dir", "/tmp/d", "flag --data"); err != nil {
		t.Fatal(err)
	}
	if err := l.Override("sim.realtime", "maybe", "flag --x"); err == nil || !strings.Contains(err.Error(), "flag --x: sim.realtime") {
		t.Errorf("bad override error = %v", err)
	}
	r, err := l.Resolve(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	if r.OllamaURL.String() != "http://box.lan:11434" || l.Sources["ollama.host"] != "env OLLAMA_HOST" {
		t.Errorf("host %v from %q, want OLLAMA_HOST's", r.OllamaURL, l.Sources["ollama.host"])
	}
	if l.DataDir != "/tmp/d" || l.Sources["data_dir"] != "flag --data" {
		t.Errorf("data dir %q from %q", l.DataDir, l.Sources["data_dir"])
	}
	// A bad value from the environment names the variable.
	vars["OLLAMA_HOST"] = "box:0x"
	l, _ = Load("", env(map[string]string{"OLLAMA_HOST": "box:0x", "HOME": t.TempDir()}))
	if _, err := l.Resolve(env(vars)); err == nil || !strings.Contains(err.Error(), "config env OLLAMA_HOST: ollama.host") {
		t.Errorf("error %v, want it to name OLLAMA_HOST", err)
	}
}

func TestDataDirDefaults(t *testing.T) {
	for _, tt := range []struct {
		board string
		vars  map[string]string
		want  string
	}{
		{"sim", map[string]string{"STATE_DIRECTORY": "/var/lib/hark:/x", "HOME": "/h"}, "/var/lib/hark"},
		{"respeaker-2mic", map[string]string{"HOME": "/h"}, "/var/lib/hark"},
		{"sim", map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, "/s/hark"},
		{"sim", map[string]string{"HOME": "/h"}, "/h/.local/state/hark"},
	} {
		if got := defaultDataDir(tt.board, env(tt.vars)); got != tt.want {
			t.Errorf("board %s env %v: %q, want %q", tt.board, tt.vars, got, tt.want)
		}
	}
}

func TestMissingExplicitFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.toml"), env(nil))
	if err == nil || !strings.Contains(err.Error(), "nope.toml") {
		t.Errorf("error %v, want it to name the file", err)
	}
}

func TestFindsUserFile(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "hark"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "hark", "hark.toml"), []byte("[tts]\nrate = 200\n"), 0o644)
	l, err := Load("", env(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if l.TTS.Rate != 200 || !strings.HasSuffix(l.File, ".config/hark/hark.toml") {
		t.Errorf("rate %d from %q", l.TTS.Rate, l.File)
	}
}

func TestMCPServersAreChecked(t *testing.T) {
	_, r, err := load(t, `
[[mcp.server]]
name = "files"
command = ["mcp-files", "/srv"]
deny = ["write_file"]
timeout = "5s"
[[mcp.server]]
name = "house"
url = "http://ha.lan:8123/api/mcp"
token_secret = "HA_MCP_TOKEN"
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.MCP) != 2 || r.MCP[0].Transport() != "stdio" || r.MCP[0].Timeout.Seconds() != 5 || r.MCP[1].TokenSecret != "HA_MCP_TOKEN" {
		t.Errorf("resolved %+v", r.MCP)
	}
	_, _, err = load(t, `
[[mcp.server]]
name = "files"
[[mcp.server]]
name = "web"
url = "ftp://x"
[[mcp.server]]
name = "web2"
command = ["x"]
env = ["PASSED_ON", "=x"]
`, nil)
	for _, want := range []string{"mcp.server[0]: server files has neither a command", "mcp.server[1]: server web: url", `mcp.server[2].env: "=x" is not KEY=VALUE or the name of a variable to pass on`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v\nwant %q", err, want)
		}
	}
}

func TestSettingsFromThePage(t *testing.T) {
	for _, k := range Settable {
		if !slices.Contains(Keys(), k) {
			t.Errorf("settable key %s is not a configuration key", k)
		}
		if Help(k) == "" {
			t.Errorf("settable key %s has no help text in the example", k)
		}
	}
	if h := Help("tts.rate"); !strings.Contains(strings.ToLower(h), "word") {
		t.Errorf("Help(tts.rate) = %q", h)
	}
	l, _, err := load(t, "[assistant]\nname = \"Jarvis\"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), SettingsFile)
	vars := env(map[string]string{"HOME": "/home/u"})
	for _, tc := range []struct{ key, value, want string }{
		{"audio.volume", "140", "outside 0..100"},
		{"assistant.time_zone", "Mars/Olympus", "unknown time zone"},
		{"listen.mode", "shout", "not one of"},
		{"audio.volume", "loud", "not a whole number"},
		{"board", "usb", "not set on this page"},
		{"ollama.host", "not a host::", "is not a host name or an IP address"},
	} {
		if _, err := l.SaveSetting(path, tc.key, tc.value, vars); !errors.Is(err, ErrSetting) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %s: %v, want %q", tc.key, tc.value, err, tc.want)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("a refused setting was written")
	}
	for k, v := range map[string]string{"assistant.name": "Friday", "audio.volume": "35", "assistant.time_zone": "Europe/Paris"} {
		if _, err := l.SaveSetting(path, k, v, vars); err != nil {
			t.Fatal(err)
		}
	}
	if l.Assistant.Name != "Jarvis" {
		t.Error("saving changed the running configuration")
	}
	fresh, _, _ := load(t, "[assistant]\nname = \"Jarvis\"\n", nil)
	fresh.Override("audio.volume", "50", "flag --volume")
	if err := fresh.ApplySettings(path); err != nil {
		t.Fatal(err)
	}
	if fresh.Assistant.Name != "Friday" || fresh.Audio.Volume != 50 || fresh.Text("assistant.time_zone") != "Europe/Paris" || !strings.HasPrefix(fresh.Sources["assistant.name"], "settings ") {
		t.Errorf("applied: name %q volume %d zone %q source %q", fresh.Assistant.Name, fresh.Audio.Volume, fresh.Text("assistant.time_zone"), fresh.Sources["assistant.name"])
	}
	if _, err := fresh.SaveSetting(path, "audio.volume", "20", vars); err == nil || !strings.Contains(err.Error(), "flag --volume") {
		t.Errorf("a key a flag set: %v", err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("settings file mode %v", info.Mode())
	}
}

func TestEarconKeys(t *testing.T) {
	type earcons struct{ all, start, end, fail, thinking bool }
	of := func(a Audio) earcons {
		return earcons{a.Earcons, a.EarconStart, a.EarconEnd, a.EarconError, a.EarconThinking}
	}
	for _, tc := range []struct {
		name, text string
		want       earcons
	}{
		{"defaults", "", earcons{true, true, true, true, false}},
		{"an older file's switch", "[audio]\nearcons = false\n", earcons{false, true, true, true, false}},
		{"each its own", "[audio]\nearcon_start = false\nearcon_error = false\nearcon_thinking = true\n", earcons{true, false, true, false, true}},
	} {
		l, _, err := load(t, tc.text, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := of(l.Audio); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
	l, _, _ := load(t, "[audio]\nearcon_thinking = true\n", nil)
	if l.Sources["audio.earcon_thinking"] != "file "+l.File || l.Sources["audio.earcon_end"] != "default" {
		t.Errorf("sources: thinking %q, end %q", l.Sources["audio.earcon_thinking"], l.Sources["audio.earcon_end"])
	}
	if _, _, err := load(t, "[audio]\nearcon_end = \"soft\"\n", nil); err == nil || !strings.Contains(err.Error(), "earcon_end") {
		t.Errorf("a word for a switch: %v, want an error naming audio.earcon_end", err)
	}
	for _, k := range []string{"audio.earcons", "audio.earcon_start", "audio.earcon_end", "audio.earcon_error", "audio.earcon_thinking"} {
		if !slices.Contains(Settable, k) || !slices.Equal(Choices(k), []string{"false", "true"}) || Help(k) == "" {
			t.Errorf("%s: settable %v, choices %v, help %q", k, slices.Contains(Settable, k), Choices(k), Help(k))
		}
	}
	if h := Help("audio.earcon_thinking"); !strings.Contains(h, "pulse") {
		t.Errorf("Help(audio.earcon_thinking) = %q", h)
	}
	path := filepath.Join(t.TempDir(), SettingsFile)
	if _, err := l.SaveSetting(path, "audio.earcon_error", "maybe", env(map[string]string{"HOME": "/home/u"})); !errors.Is(err, ErrSetting) || !strings.Contains(err.Error(), "not true or false") {
		t.Errorf("earcon_error = maybe: %v", err)
	}
}

func TestWyomingVoice(t *testing.T) {
	_, _, err := load(t, "[tts]\nwyoming = \"tcp://piper.lan:10200\"\nvoices = { en = \"en_GB-alba-medium\", de = \"de_DE-thorsten-medium\" }\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	l, _, _ := load(t, "[tts]\nwyoming = \"tcp://piper.lan:10200\"\nvoices = { de = \"de_DE-thorsten-medium\" }\n", nil)
	if l.TTS.Voices["de"] != "de_DE-thorsten-medium" || l.Sources["tts.voices"] == "default" {
		t.Errorf("voices %v, source %q", l.TTS.Voices, l.Sources["tts.voices"])
	}
	for _, bad := range []string{"piper.lan:10200", "http://piper.lan:10200", "tcp://piper.lan"} {
		if _, _, err := load(t, fmt.Sprintf("[tts]\nwyoming = %q\n", bad), nil); err == nil || !strings.Contains(err.Error(), "tts.wyoming") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// A value refused from the configuration file is quoted in the error the
// daemon logs at its start: the password of an address in it is not, and
// the rest of the address is, so the household sees which one is wrong.
func TestBadValuesHideAddressPasswords(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[center]\nurl = \"http://node:centerpw1@center.lan:8443\"\nkey = \"n1:k\"\n", `"http://node:[SECRET_1]@center.lan:8443" is plain HTTP`},
		{"[update]\nmanifest = \"ftp://u:manifestpw2@x.lan/m.json\"\n", `update.manifest: "ftp://u:[SECRET_1]@x.lan/m.json" is not an http or https URL`},
		{"[lookup]\nsearxng = \"ftp://bob:searxpw3@search.lan\"\n", `lookup.searxng: "ftp://bob:[SECRET_1]@search.lan"`},
		{"[weather]\nforecast_url = \"ftp://w:weatherpw4@wx.lan\"\n", `weather.forecast_url: "ftp://w:[SECRET_1]@wx.lan"`},
	} {
		_, _, err := load(t, tc.text, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
		for _, pw := range []string{"centerpw1", "manifestpw2", "searxpw3", "weatherpw4"} {
			if err != nil && strings.Contains(err.Error(), pw) {
				t.Errorf("%q: error %v shows the password", tc.text, err)
			}
		}
	}
}
