package benchmodel

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/template"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const tools = `[{"type": "function", "function": {"name": "set_timer", "description": "Start a countdown timer.",
	"parameters": {"type": "object", "required": ["seconds"], "properties": {
		"seconds": {"type": "integer", "description": "How long."},
		"label": {"type": "string", "description": "What it is for."}}}}}]`

// TestTemplate renders conversations with Ollama's own template code and
// compares them with testdata/*.txt (go test -update rewrites them).
func TestTemplate(t *testing.T) {
	tmpl, err := template.Parse(Template)
	if err != nil {
		t.Fatal(err)
	}
	// Ollama reports the "tools" capability when the template uses .Tools.
	if vars, err := tmpl.Vars(); err != nil || !slices.Contains(vars, "tools") {
		t.Errorf("template variables: got %v, %v; want tools among them", vars, err)
	}

	for _, tc := range []struct {
		name, messages, tools string
	}{
		{"chat", `[{"role": "system", "content": "You are Hark."}, {"role": "user", "content": "Hello."}]`, ""},
		{"no-system", `[{"role": "user", "content": "Hello."}]`, ""},
		{"tools", `[{"role": "system", "content": "You are Hark."}, {"role": "user", "content": "Set a timer for 5 minutes."}]`, tools},
		{"history", `[{"role": "system", "content": "You are Hark."},
			{"role": "user", "content": "Hello."}, {"role": "assistant", "content": "Hi!"},
			{"role": "user", "content": "Set a timer for 5 minutes."}]`, tools},
		{"tool-result", `[{"role": "system", "content": "You are Hark."},
			{"role": "user", "content": "Set a timer for 5 minutes."},
			{"role": "assistant", "tool_calls": [{"function": {"name": "set_timer", "arguments": {"seconds": 300}}}]},
			{"role": "tool", "tool_name": "set_timer", "content": "{\"id\": 1}"}]`, tools},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v template.Values
			if err := json.Unmarshal([]byte(tc.messages), &v.Messages); err != nil {
				t.Fatal(err)
			}
			if tc.tools != "" {
				if err := json.Unmarshal([]byte(tc.tools), &v.Tools); err != nil {
					t.Fatal(err)
				}
			}
			var b strings.Builder
			if err := tmpl.Execute(&b, v); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			golden := filepath.Join("testdata", tc.name+".txt")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant (%s):\n%s", got, golden, want)
			}
			if !strings.HasSuffix(got, "<|start_header_id|>assistant<|end_header_id|>\n\n") {
				t.Error("the prompt does not end with the assistant's header")
			}
		})
	}
}
