package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// TestNestedSchemaIsPassedWhole: a parameter that is a list of objects
// reaches the model with its items, their properties, descriptions and
// required list, under the command's parameter names; the call goes to
// the server under its own.
func TestNestedSchemaIsPassedWhole(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	start(t, reg, Options{Servers: []Server{selfServer(t, "house", "house")}})
	c, ok := reg.Lookup("create_entities")
	if !ok {
		t.Fatalf("no create_entities in %v", names(reg))
	}
	b, _ := json.Marshal(c.ParametersSchema())
	got := string(b)
	for _, want := range []string{`"entities":{"description":"the entities to create","items":{`, `"required":["name","entityType"]`,
		`"observations":{"description":"what is known about it","items":{"type":"string"}`, `"required":["entities"]`} {
		if !strings.Contains(got, want) {
			t.Errorf("schema lacks %s:\n%s", want, got)
		}
	}
	mustBeSchema(t, c.ParametersSchema())
	if c.Description != "Create several entities in the notebook at once. Each entity has a name, a kind and observations. Entities that exist already are left as they are, which the result reports." {
		t.Errorf("description %q", c.Description)
	}
	args := map[string]any{"entities": []any{map[string]any{"name": "Rex", "entityType": "pet", "observations": []any{"barks at the post"}}}}
	if out := result(t, reg.Call(context.Background(), "create_entities", args, "")); !strings.Contains(out, "created Rex (pet)") {
		t.Errorf("create_entities: %q", out)
	}
	if c.About == "" || !strings.Contains(c.About, "household's notebook") {
		t.Errorf("the server's instructions are not the tool's About: %q", c.About)
	}
}

// mustBeSchema fails unless s is a JSON Schema a validator accepts.
func mustBeSchema(t *testing.T, s map[string]any) {
	t.Helper()
	b, _ := json.Marshal(s)
	var js jsonschema.Schema
	if err := json.Unmarshal(b, &js); err != nil {
		t.Fatalf("not a JSON Schema: %v\n%s", err, b)
	}
	if _, err := js.Resolve(nil); err != nil {
		t.Fatalf("not a valid JSON Schema: %v\n%s", err, b)
	}
}

// TestSchemaBudget: a schema over the budget is trimmed in steps that
// keep it a valid JSON Schema, top-level parameters and their types last.
func TestSchemaBudget(t *testing.T) {
	long := strings.Repeat("A field of the record that matters a great deal. ", 8)
	leaf := map[string]any{"type": "object", "description": long, "required": []any{"x"}, "title": "Leaf",
		"properties": map[string]any{"x": map[string]any{"type": "string", "description": long, "examples": []any{"a", "b"}}}}
	in := map[string]any{"type": "object", "$schema": "https://json-schema.org/draft/2020-12/schema", "required": []any{"records", "mode"},
		"properties": map[string]any{
			"records": map[string]any{"type": "array", "description": long, "items": map[string]any{"type": "object", "additionalProperties": false,
				"properties": map[string]any{"a": leaf, "b": leaf, "c": leaf, "d": leaf}}},
			"mode": map[string]any{"type": "string", "enum": []any{"add", "replace"}, "description": "How to store them."},
		}}
	for _, budget := range []int{100000, 2400, 900, 300} {
		out := schemaFor(in, map[string]string{"records": "records", "mode": "mode"}, budget)
		mustBeSchema(t, out)
		b, _ := json.Marshal(out)
		props, _ := out["properties"].(map[string]any)
		mode, _ := props["mode"].(map[string]any)
		if len(props) != 2 || !slices.Equal(mode["enum"].([]any), []any{"add", "replace"}) {
			t.Errorf("budget %d: parameters %v", budget, props)
		}
		if budget >= 900 && len(b) > budget {
			t.Errorf("budget %d: %d characters", budget, len(b))
		}
		if budget == 100000 && !strings.Contains(string(b), `"required":["x"]`) {
			t.Errorf("within budget, the nested required list was lost: %s", b)
		}
	}
	if _, ok := in["$schema"]; !ok {
		t.Error("schemaFor changed the server's schema")
	}
}

func TestClipSentence(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"Short.", 50, "Short."},
		{"Reads a file. Returns its text in full, with line numbers when asked.", 40, "Reads a file."},
		{"Reads a file and returns its whole text with line numbers", 30, "Reads a file and returns its…"},
		{"Lines\nof   text.", 50, "Lines of text."},
	} {
		if got := clipSentence(tc.in, tc.n); got != tc.want {
			t.Errorf("clipSentence(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestDestructiveToolAsksFirst: a tool the server marks destructive runs
// only after the user's own yes, heard as a refinement of the call; an
// argument from the model cannot stand in for it. A read-only tool runs
// at once.
func TestDestructiveToolAsksFirst(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	h := start(t, reg, Options{Servers: []Server{selfServer(t, "house", "house")}})
	ctx := context.Background()
	r := reg.Call(ctx, "delete_all", map[string]any{confirmKey: "yes"}, "empty the notebook")
	if r.Kind != command.FollowUp || !strings.Contains(r.Spoken, "Say yes to confirm") {
		t.Fatalf("a destructive call ran without asking: %v %q %v", r.Kind, r.Spoken, r.Data)
	}
	u := reg.Understand(ctx, locale.English, "Yes.")
	rt := u.Route
	if !u.OK || rt.Command.Name != "delete_all" {
		t.Fatalf("the yes was not taken as the answer: %+v", u)
	}
	if r := reg.RunRoute(ctx, rt, "Yes."); r.Kind != command.Success || !strings.Contains(r.Data["result"].(string), "the notebook is empty") {
		t.Errorf("after yes: %v %q %v", r.Kind, r.Spoken, r.Data)
	}
	reg.Call(ctx, "delete_all", nil, "")
	rt = reg.Understand(ctx, locale.English, "no").Route
	if r := reg.RunRoute(ctx, rt, "no"); r.Data["cancelled"] != true {
		t.Errorf("after no: %v %q %v", r.Kind, r.Spoken, r.Data)
	}
	if r := reg.Call(ctx, "read_notes", nil, ""); r.Kind != command.Success {
		t.Errorf("a read-only tool asked: %v %q", r.Kind, r.Spoken)
	}
	var confirm []string
	for _, tl := range h.Servers()[0].Tools {
		if tl.Confirm {
			confirm = append(confirm, tl.Name)
		}
	}
	if !slices.Equal(confirm, []string{"delete_all"}) {
		t.Errorf("tools that ask: %v", confirm)
	}
}

// TestConfiguredConfirmation: the configuration makes any tool ask, by
// either of its names.
func TestConfiguredConfirmation(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	s := selfServer(t, "kit", "sdk")
	s.Confirm = []string{"get_sum"}
	start(t, reg, Options{Servers: []Server{s}})
	if r := reg.Call(context.Background(), "get_sum", map[string]any{"a": 1, "b": 2}, ""); r.Kind != command.FollowUp {
		t.Errorf("get_sum with confirm: %v %q", r.Kind, r.Spoken)
	}
}

// TestStdioServerEnvironment: a stdio server sees none of the daemon's
// variables beyond the basic few, and those its configuration names.
func TestStdioServerEnvironment(t *testing.T) {
	t.Setenv("HARK_TEST_CANARY", "the daemon's secret")
	t.Setenv("HARK_TEST_PASSED", "passed on")
	reg := command.NewRegistry(command.Options{})
	s := selfServer(t, "house", "house")
	s.Env = append(s.Env, "HARK_TEST_PASSED", "HARK_TEST_SET=set here")
	start(t, reg, Options{Servers: []Server{s}})
	for name, want := range map[string]string{"HARK_TEST_CANARY": "HARK_TEST_CANARY=.", "HARK_TEST_PASSED": "HARK_TEST_PASSED=passed on.",
		"HARK_TEST_SET": "HARK_TEST_SET=set here.", "PATH": "PATH=" + os.Getenv("PATH") + "."} {
		if out := result(t, reg.Call(context.Background(), "get_env", map[string]any{"name": name}, "")); !strings.Contains(out, want) {
			t.Errorf("%s: %q, want %q", name, out, want)
		}
	}
}

// TestCollisionNamesFollowTheConfiguration: two servers offering get-sum:
// the first configured keeps the name, the other takes its server's name
// in front, even when the first is slower to start.
func TestCollisionNamesFollowTheConfiguration(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	kit, house := selfServer(t, "kit", "sdk"), selfServer(t, "house", "house")
	kit.Env = append(kit.Env, "HARK_MCP_DELAY=400ms")
	kit.Allow, house.Allow = []string{"get-sum"}, []string{"get_sum"}
	start(t, reg, Options{Servers: []Server{kit, house}})
	if out := result(t, reg.Call(context.Background(), "get_sum", map[string]any{"a": 1, "b": 1}, "")); !strings.Contains(out, "The sum is 2") {
		t.Errorf("get_sum is not kit's: %q", out)
	}
	if out := result(t, reg.Call(context.Background(), "house_get_sum", map[string]any{"a": 1, "b": 1}, "")); !strings.Contains(out, "house sum 2") {
		t.Errorf("house_get_sum: %q", out)
	}
}

// TestAllowDenyByEitherNameAndWarnings: deny takes the command's name as
// well as the server's; a name that matches no tool is a warning in the
// server's status.
func TestAllowDenyByEitherNameAndWarnings(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	s := selfServer(t, "kit", "sdk")
	s.Deny = []string{"get_sum", "die", "hang", "git-sum"}
	s.Confirm = []string{"ecoh"}
	h := start(t, reg, Options{Servers: []Server{s}})
	if _, ok := reg.Lookup("get_sum"); ok {
		t.Error(`deny = ["get_sum"] did not leave out get-sum`)
	}
	if got := names(reg); !slices.Equal(got, []string{"echo", "fail"}) {
		t.Errorf("catalogue %v", got)
	}
	w := h.Servers()[0].Warnings
	if len(w) != 2 || !strings.Contains(w[0], `confirm names "ecoh"`) || !strings.Contains(w[1], `deny names "git-sum"`) {
		t.Errorf("warnings %q", w)
	}
}

// TestCrashNamesExitAndLastWords: a stdio server that dies at start is
// down with its exit status and the last line it wrote.
func TestCrashNamesExitAndLastWords(t *testing.T) {
	h := start(t, nil, Options{Servers: []Server{selfServer(t, "notes", "crash")}, MinBackoff: time.Hour})
	st := h.Servers()[0]
	if st.State != "down" || !strings.Contains(st.Error, "exit status 7") || !strings.Contains(st.Error, "fatal: /srv/notes.json is missing") {
		t.Errorf("status %+v", st)
	}
}

// TestStalledServerIsSkippedNextTime: a server that never answers holds a
// one-shot command only as long as its wait, is remembered as down, and
// the next run does not wait for it at all.
func TestStalledServerIsSkippedNextTime(t *testing.T) {
	state := filepath.Join(t.TempDir(), "mcp-state.json")
	for run := range 2 {
		reg := command.NewRegistry(command.Options{})
		h, err := New(Options{Servers: []Server{selfServer(t, "mute", "stall")}, Catalogue: reg, StatePath: state})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		h.Start(ctx)
		began := time.Now()
		wctx, wcancel := context.WithTimeout(ctx, 500*time.Millisecond)
		err = h.Ready(wctx)
		wcancel()
		waited := time.Since(began)
		cancel()
		h.Wait()
		closed := time.Since(began)
		t.Logf("run %d: Ready returned after %v (%v), closed after %v", run, waited.Round(time.Millisecond), err, closed.Round(time.Millisecond))
		if run == 0 && err == nil {
			t.Error("the first run: Ready did not wait for the silent server")
		}
		if run == 1 && err != nil {
			t.Errorf("the second run waited for a server that was down: %v", err)
		}
	}
}

// TestAWedgedServerIsStartedAgain: a call that times out is followed by a
// ping; a server that does not answer it is restarted.
func TestAWedgedServerIsStartedAgain(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	s := selfServer(t, "broken", "wedge")
	s.Timeout = 200 * time.Millisecond
	h := start(t, reg, Options{Servers: []Server{s}, PingEvery: time.Hour})
	if r := reg.Call(context.Background(), "fine", nil, ""); r.Kind != command.Failure {
		t.Fatalf("a wedged call: %v %q", r.Kind, r.Spoken)
	}
	waitFor(t, "the wedged server to be started again", func() bool { return h.Servers()[0].Restarts >= 1 })
}
