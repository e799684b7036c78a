package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// npmServer is a reference server from the npm registry (package under
// @modelcontextprotocol/), as .ci/deps installs it under build/npm, or at
// $env; args follow its script.
func npmServer(t *testing.T, name, pkg, env string, args ...string) Server {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (apt-get install nodejs npm, then .ci/deps): the npm MCP server cannot run")
	}
	script := os.Getenv(env)
	if script == "" {
		script, _ = filepath.Abs("../../../build/npm/node_modules/@modelcontextprotocol/" + pkg + "/dist/index.js")
	}
	if _, err := os.Stat(script); err != nil {
		t.Skipf("@modelcontextprotocol/%s is not installed at %s (.ci/deps installs it with npm; or set %s)", pkg, script, env)
	}
	return Server{Name: name, Command: append([]string{node, script}, args...)}
}

// everything is @modelcontextprotocol/server-everything.
func everything(t *testing.T) Server {
	return npmServer(t, "everything", "server-everything", "HARK_MCP_EVERYTHING", "stdio")
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

// TestRealNpmMemoryServer: server-memory's tools take lists of objects;
// the model sees them whole, and a call built from that schema works.
func TestRealNpmMemoryServer(t *testing.T) {
	s := npmServer(t, "memory", "server-memory", "HARK_MCP_MEMORY")
	s.Env = []string{"MEMORY_FILE_PATH=" + filepath.Join(t.TempDir(), "memory.jsonl")}
	reg := command.NewRegistry(command.Options{})
	start(t, reg, Options{Servers: []Server{s}})
	c, ok := reg.Lookup("create_entities")
	if !ok {
		t.Fatalf("no create_entities in %v", names(reg))
	}
	b, _ := json.Marshal(c.ParametersSchema())
	for _, want := range []string{`"items":{`, `"entityType":{`, `"observations":{`, `"required":["name","entityType","observations"]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("create_entities schema lacks %s:\n%s", want, b)
		}
	}
	mustBeSchema(t, c.ParametersSchema())
	total := 0
	for _, c := range reg.Commands() {
		total += len(c.ToolJSON())
	}
	t.Logf("server-memory: %d tools, %d characters of tool definitions (create_entities %d)", len(reg.Commands()), total, len(c.ToolJSON()))
	ctx := context.Background()
	args := map[string]any{"entities": []any{map[string]any{"name": "Rex", "entityType": "dog", "observations": []any{"sleeps by the stove"}}}}
	if out := result(t, reg.Call(ctx, "create_entities", args, "remember that Rex is a dog who sleeps by the stove")); !strings.Contains(out, "Rex") {
		t.Errorf("create_entities: %q", out)
	}
	if out := result(t, reg.Call(ctx, "search_nodes", map[string]any{"query": "Rex"}, "")); !strings.Contains(out, "sleeps by the stove") {
		t.Errorf("search_nodes: %q", out)
	}
}

// TestRealNpmFilesystemServer: server-filesystem marks write_file and
// edit_file destructive: they ask first; reading does not. edit_file's
// list of edits reaches the model whole.
func TestRealNpmFilesystemServer(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	os.WriteFile(filepath.Join(dir, "shopping.txt"), []byte("milk\nbread\n"), 0o600)
	reg := command.NewRegistry(command.Options{})
	h := start(t, reg, Options{Servers: []Server{npmServer(t, "files", "server-filesystem", "HARK_MCP_FILESYSTEM", dir)}})
	ctx := context.Background()
	path := filepath.Join(dir, "shopping.txt")
	if out := result(t, reg.Call(ctx, "read_text_file", map[string]any{"path": path}, "")); !strings.Contains(out, "bread") {
		t.Errorf("read_text_file: %q", out)
	}
	r := reg.Call(ctx, "write_file", map[string]any{"path": path, "content": "nothing"}, "clear the shopping list")
	if r.Kind != command.FollowUp {
		t.Fatalf("write_file ran without asking: %v %q", r.Kind, r.Spoken)
	}
	if b, _ := os.ReadFile(path); string(b) != "milk\nbread\n" {
		t.Errorf("the file changed before the yes: %q", b)
	}
	rt := reg.Understand(ctx, locale.English, "yes").Route
	if r := reg.RunRoute(ctx, rt, "yes"); r.Kind != command.Success {
		t.Errorf("after yes: %v %q %v", r.Kind, r.Spoken, r.Data)
	}
	if b, _ := os.ReadFile(path); string(b) != "nothing" {
		t.Errorf("after yes the file holds %q", b)
	}
	c, _ := reg.Lookup("edit_file")
	b, _ := json.Marshal(c.ParametersSchema())
	if !strings.Contains(string(b), `"oldText":{`) || !strings.Contains(string(b), `"newText":{`) {
		t.Errorf("edit_file's edits lost their fields:\n%s", b)
	}
	var asks []string
	for _, tl := range h.Servers()[0].Tools {
		if tl.Confirm {
			asks = append(asks, tl.Name)
		}
	}
	if !slices.Contains(asks, "write_file") || !slices.Contains(asks, "edit_file") || slices.Contains(asks, "read_text_file") {
		t.Errorf("tools that ask first: %v", asks)
	}
}
