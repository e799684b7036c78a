package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
)

// A household's settings file that does not load (a typo made by hand, a
// value a new image refuses) does not leave the box dark: hark run starts
// on the keys that load, says what did not in its log and its status, and
// leaves the file as it is until a setting is saved, which rewrites it
// with the values that load and keeps the original aside. The boot check
// after an update stays strict.
func TestRunStartsOnSettingsThatDoNotLoad(t *testing.T) {
	data := t.TempDir()
	path := filepath.Join(data, config.SettingsFile)
	bad := "# edited by hand\n'assistant.name' = 'Friday'\n'audio.volume' = 'loud'\n"
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "[tts]\nengine = \"off\"\n")
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": data}), "--sim", "--data", data, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)

	logged, _ := os.ReadFile(filepath.Join(data, "hark.log"))
	for _, want := range []string{"file=" + path, "line=3", "key=audio.volume", `not a whole number`} {
		if !strings.Contains(string(logged), want) {
			t.Errorf("the log lacks %q:\n%s", want, logged)
		}
	}
	if !strings.Contains(s.out.String(), path+":3: audio.volume") {
		t.Errorf("the simulation's screen does not say it:\n%s", s.out.String())
	}

	// The status names the problem; it is the data partition's, so the box
	// is healthy all the same.
	code, out := hark(t, "health", "--wait", "10s", "--config", cfg, "--data", data)
	if code != 0 || !strings.Contains(out, "FAIL settings") || !strings.Contains(out, "audio.volume") || !strings.HasSuffix(out, "healthy\n") {
		t.Errorf("health: %d\n%s", code, out)
	}
	// A reading command works on the settings that load, and warns.
	code, out = hark(t, "config", "--config", cfg, "--data", data)
	if code != 0 || !strings.Contains(out, "'Friday'") || !strings.Contains(out, "warning: "+path+":3: audio.volume") {
		t.Errorf("config: %d\n%s", code, out)
	}
	// The boot check after an update does not pass them.
	code, out = hark(t, "health", "--mark-good", "--wait", "1s", "--config", cfg, "--data", data)
	if code == 0 || !strings.Contains(out, "audio.volume") || !strings.Contains(out, "not marked good") {
		t.Errorf("health --mark-good: %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(path); string(b) != bad {
		t.Errorf("the settings file was changed to %q; want it as the household left it", b)
	}

	// Saving a setting rewrites the file with what loads, the original
	// kept aside.
	c := control.Dial(filepath.Join(data, "control.sock"))
	defer c.Close()
	if err := c.SetSetting(t.Context(), "weather.units", "imperial"); err != nil {
		t.Fatalf("saving a setting: %v", err)
	}
	saved, err := config.Saved(path)
	if err != nil || saved["assistant.name"] != "Friday" || saved["weather.units"] != "imperial" || len(saved) != 2 {
		t.Errorf("rewritten as %v, %v; want the name and the units", saved, err)
	}
	aside, _ := filepath.Glob(path + ".bad-*")
	if len(aside) != 1 {
		t.Fatalf("kept aside: %v, want one copy", aside)
	}
	if b, _ := os.ReadFile(aside[0]); string(b) != bad {
		t.Errorf("the copy kept aside reads %q, want the original", b)
	}
	code, out = hark(t, "health", "--wait", "10s", "--config", cfg, "--data", data)
	if code != 0 || strings.Contains(out, "FAIL") {
		t.Errorf("health after the file was rewritten: %d\n%s", code, out)
	}
	if code := s.quit(t); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// A directory where the settings file goes (a copy gone wrong, a mount
// point) is said at every start, as a settings file that does not load:
// not passed over in silence while every save on the page fails.
func TestSettingsPathThatIsNoFileIsSaid(t *testing.T) {
	data := t.TempDir()
	path := filepath.Join(data, config.SettingsFile)
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "[tts]\nengine = \"off\"\n")
	code, out := hark(t, "config", "--config", cfg, "--data", data)
	if code != 0 || !strings.Contains(out, "warning: "+path+": not a file") {
		t.Errorf("config with a directory for the settings file: %d\n%s", code, out)
	}
}
