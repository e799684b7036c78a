package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestWriteReadsBack: what `hark config` prints is a TOML file that loads
// to the same configuration, maps and server tables included.
func TestWriteReadsBack(t *testing.T) {
	l, _, err := load(t, `
[ollama]
model = "qwen3:1.7b"

[tts]
wyoming = "tcp://piper.lan:10200"
voices = { de = "de_DE-thorsten-medium", "" = "en_GB-alba-medium" }

[[mcp.server]]
name = "files"
command = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/srv/share"]
env = ["LOG_LEVEL=warn", "GITHUB_TOKEN"]
deny = ["write_file"]
timeout = "5s"

[[mcp.server]]
name = "house"
url = "http://ha.lan:8123/api/mcp"
token_secret = "HA_MCP_TOKEN"
confirm = ["*"]
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := l.Write(&out); err != nil {
		t.Fatal(err)
	}
	back, err := Load(write(t, out.String()), env(map[string]string{"HOME": "/home/u"}))
	if err != nil {
		t.Fatalf("hark config's output does not load: %v\n%s", err, out.String())
	}
	for _, key := range Keys() { // by value: a list read back empty is not nil
		if got, want := back.Value(key), l.Value(key); got != want {
			t.Errorf("%s read back as %s, want %s", key, got, want)
		}
	}
	if !reflect.DeepEqual(back.MCP.Servers[1].Confirm, []string{"*"}) || back.TTS.Voices["de"] != "de_DE-thorsten-medium" {
		t.Errorf("read back: %+v %+v", back.MCP, back.TTS.Voices)
	}
	for _, want := range []string{`voices = {'' = 'en_GB-alba-medium', de = 'de_DE-thorsten-medium'}`, `server = [{name = 'files'`, "# file "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
