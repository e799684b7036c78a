package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/command"
)

// everything is the reference server from the npm registry
// (@modelcontextprotocol/server-everything), as .ci/deps installs it under
// build/npm, or at $HARK_MCP_EVERYTHING.
func everything(t *testing.T) Server {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (apt-get install nodejs npm, then .ci/deps): the npm MCP server cannot run")
	}
	script := os.Getenv("HARK_MCP_EVERYTHING")
	if script == "" {
		script, _ = filepath.Abs("../../../build/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	}
	if _, err := os.Stat(script); err != nil {
		t.Skipf("@modelcontextprotocol/server-everything is not installed at %s (.ci/deps installs it with npm; or set HARK_MCP_EVERYTHING)", script)
	}
	return Server{Name: "everything", Command: []string{node, script, "stdio"}}
}

func TestRealNpmServerOverStdio(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	h := start(t, reg, Options{Servers: []Server{everything(t)}})
	st := h.Servers()[0]
	if st.State != "up" {
		t.Fatalf("server-everything: %+v", st)
	}
	got := names(reg)
	for _, want := range []string{"echo", "get_sum", "get_tiny_image", "trigger_long_running_operation"} {
		if !slices.Contains(got, want) {
			t.Errorf("catalogue %v lacks %s", got, want)
		}
	}
	ctx := context.Background()
	if out := result(t, reg.Call(ctx, "get_sum", map[string]any{"a": 19, "b": 23}, "what is nineteen plus twenty three")); !strings.Contains(out, "42") {
		t.Errorf("get_sum: %q", out)
	}
	if out := result(t, reg.Call(ctx, "echo", map[string]any{"message": "the kettle is on"}, "")); !strings.Contains(out, "the kettle is on") {
		t.Errorf("echo: %q", out)
	}
	// an image result is named, not pasted into the model's prompt
	out := result(t, reg.Call(ctx, "get_tiny_image", nil, ""))
	if !strings.Contains(out, "[an image, image/png]") || len(out) > 1000 {
		t.Errorf("get_tiny_image: %q", out)
	}
	// camelCase parameters of the real server
	c, _ := reg.Lookup("get_annotated_message")
	var params []string
	for _, p := range c.Parameters {
		params = append(params, p.Name+":"+p.Type)
	}
	if !slices.Contains(params, "message_type:string") || !slices.Contains(params, "include_image:bool") {
		t.Errorf("get_annotated_message parameters %v", params)
	}
	if out := result(t, reg.Call(ctx, "get_annotated_message", map[string]any{"message_type": "success"}, "")); out == "" {
		t.Error("get_annotated_message said nothing")
	}
	if r := reg.Call(ctx, "get_annotated_message", map[string]any{"message_type": "shouting"}, ""); r.Kind != command.Invalid {
		t.Errorf("a value outside the enum: %v %q", r.Kind, r.Spoken)
	}
}
