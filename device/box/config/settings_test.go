package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// settingsFile writes text as the settings file of a fresh directory.
func settingsFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), SettingsFile)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// problemsOf is each problem as "LINE KEY".
func problemsOf(ps []SettingsProblem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, strings.TrimSpace(fmt.Sprintf("%d %s", p.Line, p.Key)))
	}
	return out
}

// The household's settings file is used as far as it loads: a value
// refused, a key unknown, a line that does not parse each leave that key
// at the configuration's value, and each is named with its line.
func TestUseSettingsAsFarAsTheyLoad(t *testing.T) {
	vars := env(map[string]string{"HOME": "/home/u"})
	for _, tc := range []struct {
		name, text string
		problems   []string // "LINE KEY"
		wantIn     []string // in the problems' text
	}{
		{"a value refused by its type", "'assistant.name' = 'Friday'\n'audio.volume' = 'loud'\n'listen.mode' = 'hold'\n",
			[]string{"2 audio.volume"}, []string{`"loud" is not a whole number`}},
		{"a value refused by the rules", "'assistant.name' = 'Friday'\n'assistant.time_zone' = 'Mars/Olympus'\n'listen.mode' = 'hold'\n'audio.volume' = '140'\n",
			[]string{"2 assistant.time_zone", "4 audio.volume"}, []string{"unknown time zone", "outside 0..100"}},
		{"an unknown key", "'assistant.name' = 'Friday'\n'audio.loudness' = '3'\n'listen.mode' = 'hold'\n",
			[]string{"2 audio.loudness"}, []string{"audio.loudness: not a configuration key"}},
		{"a line that does not parse", "# kept by hand\n'assistant.name' = 'Friday'\n'audio.volume = '35'\n'listen.mode' = 'hold'\n",
			[]string{"3"}, []string{"settings.toml:3"}},
		{"a number not in quotes", "'assistant.name' = 'Friday'\n'audio.volume' = 35\n'listen.mode' = 'hold'\n",
			[]string{"2 audio.volume"}, []string{"quotes"}},
		{"a table", "'assistant.name' = 'Friday'\n'listen.mode' = 'hold'\n[audio]\nvolume = '35'\n",
			[]string{"3 audio"}, []string{"'audio.volume' = '35'"}},
	} {
		l, _, err := load(t, "[assistant]\nname = \"Jarvis\"\n", nil)
		if err != nil {
			t.Fatal(err)
		}
		path := settingsFile(t, tc.text)
		if _, err := l.UseSettings(path, vars); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if l.Assistant.Name != "Friday" || l.Listen.Mode != "hold" {
			t.Errorf("%s: name %q, listen.mode %q: the keys that load were not used", tc.name, l.Assistant.Name, l.Listen.Mode)
		}
		if l.Audio.Volume != Default().Audio.Volume || l.Sources["audio.volume"] != "default" || l.Assistant.TimeZone != "" {
			t.Errorf("%s: volume %d (%s), zone %q: a key that did not load is not at its default", tc.name, l.Audio.Volume, l.Sources["audio.volume"], l.Assistant.TimeZone)
		}
		if got := problemsOf(l.SettingsProblems); !slices.Equal(got, tc.problems) {
			t.Errorf("%s: problems %v, want %v", tc.name, got, tc.problems)
		}
		var all []string
		for _, p := range l.SettingsProblems {
			if p.File != path {
				t.Errorf("%s: problem %+v names the file %q, want %q", tc.name, p, p.File, path)
			}
			all = append(all, p.String())
		}
		for _, w := range tc.wantIn {
			if !strings.Contains(strings.Join(all, "\n"), w) {
				t.Errorf("%s: problems %q lack %q", tc.name, all, w)
			}
		}
		// The strict reading still refuses the file, as the boot check
		// after an update needs.
		fresh, _, _ := load(t, "[assistant]\nname = \"Jarvis\"\n", nil)
		err = fresh.ApplySettings(path)
		if err == nil {
			_, err = fresh.Resolve(vars)
		}
		if err == nil {
			t.Errorf("%s: the strict reading took the file", tc.name)
		}
	}

	// A good file: no problems; a missing one: none either.
	l, _, _ := load(t, "", nil)
	if _, err := l.UseSettings(settingsFile(t, "'audio.volume' = '35'\n"), vars); err != nil || l.Audio.Volume != 35 || len(l.SettingsProblems) != 0 {
		t.Errorf("a good file: %v, volume %d, problems %v", err, l.Audio.Volume, l.SettingsProblems)
	}
	l, _, _ = load(t, "", nil)
	if _, err := l.UseSettings(filepath.Join(t.TempDir(), SettingsFile), vars); err != nil || len(l.SettingsProblems) != 0 {
		t.Errorf("no file: %v, problems %v", err, l.SettingsProblems)
	}
	// The configuration file itself stays strict.
	if _, _, err := load(t, "[audio]\nvolume = \"loud\"\n", nil); err == nil {
		t.Error("the configuration file took a refused value")
	}
}

// Saving a setting over a file that does not load rewrites it with the
// values that load, and keeps the original aside once, byte for byte.
func TestSaveSettingOverAFileThatDoesNotLoad(t *testing.T) {
	vars := env(map[string]string{"HOME": "/home/u"})
	l, _, err := load(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := "# by hand\n'assistant.name' = 'Friday'\n'audio.volume' = 'loud'\n'listen.mode = 'hold'\n"
	path := settingsFile(t, bad)
	if _, err := l.UseSettings(path, vars); err != nil {
		t.Fatal(err)
	}
	kept, err := l.SaveSetting(path, "weather.units", "imperial", vars)
	if err != nil {
		t.Fatalf("saving over a file that does not load: %v", err)
	}
	saved, err := Saved(path)
	if err != nil {
		t.Fatalf("the rewritten file does not load: %v", err)
	}
	if want := map[string]string{"assistant.name": "Friday", "weather.units": "imperial"}; !maps.Equal(saved, want) {
		t.Errorf("rewritten with %v, want %v", saved, want)
	}
	aside, _ := filepath.Glob(path + ".bad-*")
	if len(aside) != 1 || aside[0] != kept {
		t.Fatalf("kept aside %v, SaveSetting says %q; want one copy of the original, named", aside, kept)
	}
	if b, _ := os.ReadFile(aside[0]); string(b) != bad {
		t.Errorf("the original kept aside reads %q, want %q", b, bad)
	}
	if info, _ := os.Stat(aside[0]); info.Mode().Perm() != 0o600 {
		t.Errorf("the copy's mode %v", info.Mode())
	}
	// The next save finds a file that loads: no second copy.
	if kept, err := l.SaveSetting(path, "weather.units", "metric", vars); err != nil || kept != "" {
		t.Fatalf("a save over a file that loads: %v, kept aside %q", err, kept)
	}
	if again, _ := filepath.Glob(path + ".bad-*"); len(again) != 1 {
		t.Errorf("kept aside %v after a second save, want still one", again)
	}
	// A refused value is still refused, and writes nothing.
	before, _ := os.ReadFile(path)
	if _, err := l.SaveSetting(path, "audio.volume", "loud", vars); err == nil {
		t.Error("a refused value was saved")
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a refused value rewrote the file")
	}
}

// The strict reading (the boot check after an update) reads no more of a
// settings file than the lenient one: a file beyond the size a settings
// file holds is refused, named with the limit, even when it would parse.
func TestStrictSettingsHaveASizeLimit(t *testing.T) {
	huge := "'audio.volume' = '35'\n" + strings.Repeat("# "+strings.Repeat("x", 1000)+"\n", 100)
	path := settingsFile(t, huge)
	l, _, _ := load(t, "", nil)
	err := l.ApplySettings(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "64 KiB") {
		t.Errorf("the strict reading of a %d-byte file: %v; want it refused, naming the file and the limit", len(huge), err)
	}
	if _, err := Saved(path); err == nil {
		t.Errorf("Saved read a %d-byte file", len(huge))
	}
	// At the limit it is read.
	fits := "'audio.volume' = '35'\n#" + strings.Repeat("x", maxSettingsSize-len("'audio.volume' = '35'\n#")-1) + "\n"
	l, _, _ = load(t, "", nil)
	if err := l.ApplySettings(settingsFile(t, fits)); err != nil || l.Audio.Volume != 35 {
		t.Errorf("a file of %d bytes: %v, volume %d", len(fits), err, l.Audio.Volume)
	}
}

// Two saves in one second that each find a file that does not load (it
// was edited by hand again in between) keep both originals aside: the
// second copy does not replace the first.
func TestSettingsKeptAsideTwiceInOneSecond(t *testing.T) {
	vars := env(map[string]string{"HOME": "/home/u"})
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) { // the clock stands still: both saves in one second
		for _, whole := range []bool{false, true} {
			path := filepath.Join(dir, fmt.Sprint(whole), SettingsFile)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			var kept []string
			for i, bad := range []string{"'audio.volume' = 'loud'\n", "'audio.volume' = 'louder'\n"} {
				if whole { // none of it used: moved aside, not copied
					bad = strings.Repeat("x", maxSettingsSize) + bad
				}
				if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
					t.Fatal(err)
				}
				l, _, _ := load(t, "", nil)
				aside, err := l.SaveSetting(path, "weather.units", "imperial", vars)
				if err != nil || aside == "" {
					t.Fatalf("save %d (whole %v): %v, kept aside %q", i+1, whole, err, aside)
				}
				if b, _ := os.ReadFile(aside); string(b) != bad {
					t.Errorf("save %d (whole %v): the copy %s reads %.40q, want %.40q", i+1, whole, aside, b, bad)
				}
				kept = append(kept, aside)
			}
			all, _ := filepath.Glob(path + ".bad-*")
			if len(all) != 2 || kept[0] == kept[1] {
				t.Fatalf("whole %v: kept aside %v, named %v; want two copies", whole, all, kept)
			}
			if b, _ := os.ReadFile(kept[0]); !strings.HasSuffix(string(b), "'loud'\n") {
				t.Errorf("whole %v: the first copy now reads %.40q: the second save wrote over it", whole, b)
			}
			if info, err := os.Stat(kept[1]); err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("whole %v: the second copy: %v, %v", whole, info, err)
			}
		}
	})
}

// A settings file that is no list of settings at all (binary data, a file
// far larger than the page writes, a directory) is one problem, quickly:
// none of it is used, and saving a setting sets it aside whole and writes
// a file that loads. A file of many lines that do not load names a few
// and counts the rest.
func TestSettingsFileThatIsNoListOfSettings(t *testing.T) {
	vars := env(map[string]string{"HOME": "/home/u"})
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i*131 + i/7)
	}
	huge := strings.Repeat("'audio.volume' = '35'\n# "+strings.Repeat("x", 1000)+"\n", 2000)
	for _, tc := range []struct {
		name   string
		make   func(path string) error
		wantIn string
	}{
		{"binary data", func(p string) error { return os.WriteFile(p, garbage, 0o600) }, "not text"},
		{"a file far larger than the page writes", func(p string) error { return os.WriteFile(p, []byte(huge), 0o600) }, "bytes"},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }, "not a file"},
	} {
		path := filepath.Join(t.TempDir(), SettingsFile)
		if err := tc.make(path); err != nil {
			t.Fatal(err)
		}
		l, _, _ := load(t, "", nil)
		if _, err := l.UseSettings(path, vars); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(l.SettingsProblems) != 1 || !strings.Contains(l.SettingsProblems[0].String(), tc.wantIn) {
			t.Errorf("%s: problems %v, want one saying %q", tc.name, l.SettingsProblems, tc.wantIn)
		}
		if l.Audio.Volume != Default().Audio.Volume {
			t.Errorf("%s: volume %d: some of it was used", tc.name, l.Audio.Volume)
		}
		if _, err := l.SaveSetting(path, "weather.units", "imperial", vars); err != nil {
			t.Errorf("%s: saving over it: %v", tc.name, err)
			continue
		}
		if saved, err := Saved(path); err != nil || !maps.Equal(saved, map[string]string{"weather.units": "imperial"}) {
			t.Errorf("%s: rewritten with %v, %v", tc.name, saved, err)
		}
		if aside, _ := filepath.Glob(path + ".bad-*"); len(aside) != 1 {
			t.Errorf("%s: kept aside %v, want the original once", tc.name, aside)
		}
	}

	var many strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&many, "'audio.x%d' = '1'\nnot a setting %d\n", i, i)
	}
	l, _, _ := load(t, "", nil)
	if _, err := l.UseSettings(settingsFile(t, many.String()), vars); err != nil {
		t.Fatal(err)
	}
	if n := len(l.SettingsProblems); n == 0 || n > 25 || !strings.Contains(l.SettingsProblems[n-1].String(), "more") {
		t.Errorf("%d problems listed (last %v), want a few and the rest counted", n, l.SettingsProblems[n-1])
	}
}

// Settings saved at once (the page and a command on the API, two
// people) are all kept: no save writes over another's.
func TestSaveSettingsAtOnce(t *testing.T) {
	vars := env(map[string]string{"HOME": "/home/u"})
	l, _, err := load(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), SettingsFile)
	want := map[string]string{"assistant.name": "Friday", "assistant.room": "kitchen", "assistant.place": "Paris",
		"weather.location": "Berlin", "weather.units": "imperial", "tts.rate": "170", "log.level": "debug", "listen.mode": "hold",
		"audio.volume": "35", "pipeline.follow_up": "always", "button.double_action": "stop", "lookup.fetch_pages": "true"}
	var wg sync.WaitGroup
	for k, v := range want {
		wg.Go(func() {
			if _, err := l.SaveSetting(path, k, v, vars); err != nil {
				t.Errorf("save %s: %v", k, err)
			}
		})
	}
	wg.Wait()
	if saved, err := Saved(path); err != nil || !maps.Equal(saved, want) {
		t.Errorf("kept %v, %v; want every setting saved: %v", saved, err, want)
	}
}

// What did not load is logged and shown on the page and in the status: a
// password or a token in a value refused is not.
func TestSettingsProblemsHideSecrets(t *testing.T) {
	vars := env(map[string]string{"HOME": "/home/u"})
	text := "'ollama.host' = 'http://admin:hunter2secret@bad host:11434'\n" +
		"'lookup.searxng' = 'ftp://bob:s3cr3tpassw0rd@search.lan'\n" +
		"'update.manifest' = 'gopher://u:pw4manifest@x.lan/m.json?token=ghp_abcdefghijklmnopqrstuvwxyz0123456789'\n" +
		"'log.level' = 'sk-abcdef0123456789abcdef0123456789'\n"
	l, _, _ := load(t, "", nil)
	if _, err := l.UseSettings(settingsFile(t, text), vars); err != nil {
		t.Fatal(err)
	}
	if got, want := problemsOf(l.SettingsProblems), []string{"1 ollama.host", "2 lookup.searxng", "3 update.manifest", "4 log.level"}; !slices.Equal(got, want) {
		t.Fatalf("problems %v, want %v", got, want)
	}
	for _, p := range l.SettingsProblems {
		for _, secret := range []string{"hunter2secret", "s3cr3tpassw0rd", "pw4manifest", "ghp_abcdef", "sk-abcdef"} {
			if strings.Contains(p.String(), secret) {
				t.Errorf("problem %q shows %q", p, secret)
			}
		}
	}
}

// A password in an address is hidden as the rest of Hark hides it
// (reply/redact): the scheme, the user and the host stay readable, so the
// household sees which address is wrong; what only looks like one stays.
func TestSettingsProblemsHideAddressPasswordsAsRedactDoes(t *testing.T) {
	vars := env(map[string]string{"HOME": "/home/u"})
	text := "'ollama.host' = 'http://admin:hunter2secret@bad host:11434'\n" +
		"'listen.mode' = 'at 10:30@home'\n"
	l, _, _ := load(t, "", nil)
	if _, err := l.UseSettings(settingsFile(t, text), vars); err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, p := range l.SettingsProblems {
		all = append(all, p.String())
	}
	got := strings.Join(all, "\n")
	for _, want := range []string{"http://admin:[SECRET_1]@bad host:11434", "at 10:30@home"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
}

// A value the page may not keep is refused with what is wrong with it,
// shown by its field: a password or a token in it is not echoed (the
// error may reach a log), and a plain typo still is, which helps whoever
// typed it.
func TestSaveSettingRefusalHidesSecrets(t *testing.T) {
	vars := env(map[string]string{"HOME": "/home/u"})
	l, _, err := load(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), SettingsFile)
	secrets := []string{"hunter2secret", "s3cr3tpassw0rd", "pw4manifest", "ghp_abcdef", "sk-abcdef"}
	for _, tc := range []struct{ key, value, want string }{
		{"ollama.host", "http://admin:hunter2secret@bad host:11434", "password in the address is not supported"},
		{"lookup.searxng", "ftp://bob:s3cr3tpassw0rd@search.lan", "ftp://bob:[SECRET_1]@search.lan"},
		{"update.manifest", "gopher://u:pw4manifest@x.lan/m.json?token=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "not an http or https URL"},
		{"log.level", "sk-abcdef0123456789abcdef0123456789", "not one of"},
		{"audio.volume", "sk-abcdef0123456789abcdef0123456789", "not a whole number"},
	} {
		_, err := l.SaveSetting(path, tc.key, tc.value, vars)
		if !errors.Is(err, ErrSetting) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %s: %v, want %q", tc.key, tc.value, err, tc.want)
			continue
		}
		for _, s := range secrets {
			if strings.Contains(err.Error(), s) {
				t.Errorf("%s: refused with %q, which shows %q", tc.key, err, s)
			}
		}
	}
	for _, tc := range []struct{ key, value string }{{"audio.volume", "4o"}, {"listen.mode", "shout"}, {"lookup.searxng", "searx.lan:8888"}} {
		if _, err := l.SaveSetting(path, tc.key, tc.value, vars); err == nil || !strings.Contains(err.Error(), strconv.Quote(tc.value)) {
			t.Errorf("%s = %s: %v, want the value named", tc.key, tc.value, err)
		}
	}
}
