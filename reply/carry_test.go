package reply

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/command"
)

// TestCarriedWebResultKeepsItsFence: a long web result carried into the
// next turn's history is cut, and still ends its fence, whether it is a
// tool's JSON data or the fenced text alone.
func TestCarriedWebResultKeepsItsFence(t *testing.T) {
	page := command.Fence("example.org", strings.Repeat("Opening hours are nine to five. ", 150), 3000)
	data, _ := json.Marshal(map[string]any{"page": page, "url": "https://example.org/hours"})
	for name, s := range map[string]string{"json": string(data), "text": page} {
		got := truncate(s, 800)
		if len(got) > 800 {
			t.Errorf("%s: %d characters, want at most 800", name, len(got))
		}
		text := got
		if name == "json" {
			var obj map[string]any
			if err := json.Unmarshal([]byte(got), &obj); err != nil {
				t.Fatalf("json: %v in %s", err, got)
			}
			text, _ = obj["page"].(string)
		}
		if !command.Fenced(text) {
			t.Errorf("%s: the carried result lost its fence:\n%s", name, text)
		}
	}
}
