package box

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/box/config"
)

// The center's status has the box's settings check: what of the
// household's settings file did not load fails it, as the data
// partition's, and the center stays healthy.
func TestCenterStatusHasTheSettingsCheck(t *testing.T) {
	srv, _ := modelServer(t)
	cfg, _ := configure(t, "[reply]\nplanner = false\n", map[string]string{"OLLAMA_HOST": srv.URL})
	path := filepath.Join(cfg.DataDir, config.SettingsFile)
	if err := os.WriteFile(path, []byte("'weather.units' = 'imperial'\n'audio.volume' = 'loud'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := cfg.UseSettings(path, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenCenter(cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := c.status().Status(t.Context())
	found := false
	for _, ck := range s.Checks {
		if ck.Name != "settings" {
			continue
		}
		found = true
		if ck.OK || !ck.Data || !strings.Contains(ck.Detail, path+":2: audio.volume") {
			t.Errorf("settings check %+v, want it failed on the data partition, naming the volume", ck)
		}
	}
	if !found {
		t.Errorf("the center's status has no settings check: %+v", s.Checks)
	}
	if ok, why := s.Healthy(); !ok {
		t.Errorf("the center is unhealthy for its settings: %s", why)
	}
}
