package command

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
)

func TestParseTypeSpellings(t *testing.T) {
	tests := map[string]Type{
		"string": {Kind: String}, "str": {Kind: String},
		"integer": {Kind: Integer}, "int": {Kind: Integer},
		"float":   {Kind: Float},
		"boolean": {Kind: Boolean}, "bool": {Kind: Boolean},
		"array": {Kind: Array}, "list": {Kind: Array},
		"dict":     {Kind: Dict},
		"datetime": {Kind: DateTime}, "date": {Kind: Date}, "time": {Kind: Time}, "timedelta": {Kind: TimeDelta},
	}
	for _, item := range []string{"string", "int", "float", "bool", "datetime", "date", "time", "timedelta"} {
		k := kindNames[item]
		for _, spelling := range []string{"array<" + item + ">", "array[" + item + "]", item + "[]"} {
			tests[spelling] = Type{Kind: Array, Items: k}
		}
	}
	for in, want := range tests {
		got, err := ParseType(in)
		if err != nil || got != want {
			t.Errorf("ParseType(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"number", "array<dict>", "array<>", "int[][]", "map", ""} {
		if _, err := ParseType(bad); err == nil {
			t.Errorf("ParseType(%q) accepted an unknown type", bad)
		}
	}
}

func TestSchemaOfEveryType(t *testing.T) {
	tests := map[string]string{
		"string":       `{"type":"string"}`,
		"int":          `{"type":"integer"}`,
		"float":        `{"type":"number"}`,
		"bool":         `{"type":"boolean"}`,
		"list":         `{"type":"array"}`,
		"dict":         `{"type":"object"}`,
		"datetime":     `{"format":"date-time","type":"string"}`,
		"date":         `{"format":"date","type":"string"}`,
		"time":         `{"format":"time","type":"string"}`,
		"timedelta":    `{"format":"duration","type":"string"}`,
		"array<int>":   `{"items":{"type":"integer"},"type":"array"}`,
		"array[float]": `{"items":{"type":"number"},"type":"array"}`,
		"datetime[]":   `{"items":{"format":"date-time","type":"string"},"type":"array"}`,
		"array<str>":   `{"items":{"type":"string"},"type":"array"}`,
		"bool[]":       `{"items":{"type":"boolean"},"type":"array"}`,
		"array<date>":  `{"items":{"format":"date","type":"string"},"type":"array"}`,
		"array[time]":  `{"items":{"format":"time","type":"string"},"type":"array"}`,
		"timedelta[]":  `{"items":{"format":"duration","type":"string"},"type":"array"}`,
	}
	for typ, want := range tests {
		tt, err := ParseType(typ)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(tt.Schema())
		if string(got) != want {
			t.Errorf("schema of %s = %s, want %s", typ, got, want)
		}
	}
}

func TestToolSchema(t *testing.T) {
	c := &Command{
		Name: "calculate", Description: "Do arithmetic.",
		Parameters: []Parameter{
			{Name: "a", Type: "float", Required: true, Description: "First number"},
			{Name: "operation", Type: "string", Required: true, Enum: []string{"add", "subtract"}},
			{Name: "b", Type: "float", Required: true, Refinable: true},
		},
		Run: func(context.Context, Call) (Response, error) { return Response{}, nil },
	}
	if err := NewRegistry(Options{}).Register(c); err != nil {
		t.Fatal(err)
	}
	got := string(c.ToolJSON())
	want := `{"function":{"description":"Do arithmetic.","name":"calculate","parameters":{"properties":{"a":{"description":"First number","type":"number"},"b":{"_refinable":true,"type":"number"},"operation":{"enum":["add","subtract"],"type":"string"}},"required":["a","operation","b"],"type":"object"}},"type":"function"}`
	if got != want {
		t.Errorf("tool schema\n got %s\nwant %s", got, want)
	}
}

func TestRegisterRejects(t *testing.T) {
	run := func(context.Context, Call) (Response, error) { return Response{}, nil }
	for name, c := range map[string]*Command{
		"unknown type": {Name: "x", Description: "d", Run: run, Parameters: []Parameter{{Name: "p", Type: "number"}}},
		"bad name":     {Name: "Set-Timer", Description: "d", Run: run},
		"no run":       {Name: "x", Description: "d"},
		"dup param":    {Name: "x", Description: "d", Run: run, Parameters: []Parameter{{Name: "p", Type: "int"}, {Name: "p", Type: "int"}}},
	} {
		if err := NewRegistry(Options{}).Register(c); err == nil {
			t.Errorf("%s: registered", name)
		}
	}
	r := NewRegistry(Options{})
	r.Register(&Command{Name: "x", Description: "d", Run: run})
	if err := r.Register(&Command{Name: "x", Description: "d", Run: run}); err == nil {
		t.Error("a repeated name registered")
	}
}

// recorder is a command that records the arguments Run saw.
type recorder struct {
	got  []Call
	resp Response
	err  error
}

func (rc *recorder) run(ctx context.Context, c Call) (Response, error) {
	rc.got = append(rc.got, c)
	return rc.resp, rc.err
}

type secretMap map[string]string

func (m secretMap) Get(ctx context.Context, key string) (string, error) { return m[key], nil }

var clock = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func newTestRegistry(t *testing.T, c *Command, secrets secretMap) *Registry {
	t.Helper()
	now := clock
	r := NewRegistry(Options{Secrets: secrets, Now: func() time.Time { return now }, Location: time.UTC})
	if err := r.Register(c); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLifecycle(t *testing.T) {
	type tc struct {
		name     string
		cmd      func(rc *recorder) *Command
		secrets  secretMap
		args     map[string]any
		wantKind ResponseKind
		wantArgs Args   // what Run saw, when it ran
		wantSay  string // part of the spoken answer
		valid    []string
	}
	base := func(rc *recorder, params ...Parameter) *Command {
		return &Command{Name: "test_cmd", Description: "A test.", Parameters: params, Run: rc.run}
	}
	tests := []tc{
		{name: "runs with typed args", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "n", Type: "int", Required: true}, Parameter{Name: "f", Type: "float"}, Parameter{Name: "d", Type: "timedelta"}, Parameter{Name: "at", Type: "datetime"})
		}, args: map[string]any{"n": 5.0, "f": 3.0, "d": "PT1H30M", "at": "2026-11-23T07:00:00Z"}, wantKind: Success,
			wantArgs: Args{"n": int64(5), "f": 3.0, "d": 90 * time.Minute, "at": time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)}},
		{name: "words and strings coerced", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "n", Type: "integer"}, Parameter{Name: "d", Type: "timedelta"}, Parameter{Name: "t", Type: "time"})
		}, args: map[string]any{"n": "twelve", "d": "an hour and a half", "t": "7:30 pm"}, wantKind: Success,
			wantArgs: Args{"n": int64(12), "d": 90 * time.Minute, "t": time.Date(0, 1, 1, 19, 30, 0, 0, time.UTC)}},
		{name: "artefacts count as absent", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "name", Type: "string"}, Parameter{Name: "n", Type: "int"})
		}, args: map[string]any{"name": "None", "n": "default"}, wantKind: Success, wantArgs: Args{}},
		{name: "artefact for a required param is missing", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "n", Type: "int", Required: true})
		}, args: map[string]any{"n": "null"}, wantKind: Invalid, wantSay: "missing required parameter n"},
		{name: "missing required", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "op", Type: "string", Required: true, Enum: []string{"add", "subtract"}})
		}, args: map[string]any{}, wantKind: Invalid, wantSay: "missing required parameter op", valid: []string{"add", "subtract"}},
		{name: "wrong type", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "n", Type: "int"})
		}, args: map[string]any{"n": "lots"}, wantKind: Invalid, wantSay: `"lots" is not an integer`},
		{name: "not whole", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "n", Type: "int"})
		}, args: map[string]any{"n": 2.5}, wantKind: Invalid, wantSay: "2.5 is not a whole number"},
		{name: "bool from yes is refused", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "b", Type: "bool"})
		}, args: map[string]any{"b": "yes"}, wantKind: Invalid},
		{name: "enum by string", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "level", Type: "int", Enum: []string{"1", "2", "3"}})
		}, args: map[string]any{"level": 2.0}, wantKind: Success, wantArgs: Args{"level": int64(2)}},
		{name: "enum case-insensitive", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "op", Type: "string", Enum: []string{"add", "subtract"}})
		}, args: map[string]any{"op": "ADD"}, wantKind: Success, wantArgs: Args{"op": "add"}},
		{name: "enum miss carries valid values", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "op", Type: "string", Enum: []string{"add", "subtract"}})
		}, args: map[string]any{"op": "multiply"}, wantKind: Invalid, wantSay: `"multiply" is not one of add, subtract`, valid: []string{"add", "subtract"}},
		{name: "custom check", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "v", Type: "int", Check: func(v any) error {
				if v.(int64) > 100 {
					return errors.New("volume goes up to 100")
				}
				return nil
			}})
		}, args: map[string]any{"v": 150.0}, wantKind: Invalid, wantSay: "volume goes up to 100"},
		{name: "auto-correction", cmd: func(rc *recorder) *Command {
			c := base(rc, Parameter{Name: "room", Type: "string"})
			c.Validate = func(ctx context.Context, a Args) []Problem {
				if a.String("room") == "livingroom" {
					return []Problem{{Param: "room", Suggest: "living_room"}}
				}
				return nil
			}
			return c
		}, args: map[string]any{"room": "livingroom"}, wantKind: Success, wantArgs: Args{"room": "living_room"}},
		{name: "validation error with valid values", cmd: func(rc *recorder) *Command {
			c := base(rc, Parameter{Name: "room", Type: "string"})
			c.Validate = func(ctx context.Context, a Args) []Problem {
				return []Problem{{Param: "room", Message: "no room called " + a.String("room"), Valid: []string{"kitchen", "hall"}}}
			}
			return c
		}, args: map[string]any{"room": "attic"}, wantKind: Invalid, wantSay: "no room called attic", valid: []string{"kitchen", "hall"}},
		{name: "default applied", cmd: func(rc *recorder) *Command {
			return base(rc, Parameter{Name: "count", Type: "int", Default: "1"})
		}, args: nil, wantKind: Success, wantArgs: Args{"count": int64(1)}},
		{name: "missing required secret", cmd: func(rc *recorder) *Command {
			c := base(rc)
			c.Name = "get_news"
			c.Secrets = []Secret{{Key: "NEWS_API_KEY", Required: true}}
			return c
		}, wantKind: Failure, wantSay: "Get news isn't set up yet. To set it up, run: hark secrets set NEWS_API_KEY."},
		{name: "secret present", cmd: func(rc *recorder) *Command {
			c := base(rc)
			c.Secrets = []Secret{{Key: "K", Required: true}, {Key: "OPTIONAL"}}
			return c
		}, secrets: secretMap{"K": "v"}, wantKind: Success, wantArgs: Args{}},
		{name: "run fails", cmd: func(rc *recorder) *Command {
			rc.err = errors.New("disk full")
			return base(rc)
		}, wantKind: Failure, wantSay: "Sorry, that didn't work.", wantArgs: Args{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := &recorder{resp: Said("done", nil)}
			c := tt.cmd(rc)
			r := newTestRegistry(t, c, tt.secrets)
			resp := r.Call(t.Context(), c.Name, tt.args, "utterance")
			if resp.Kind != tt.wantKind {
				t.Fatalf("kind %v, want %v (%+v)", resp.Kind, tt.wantKind, resp)
			}
			if tt.wantSay != "" && !strings.Contains(resp.Spoken, tt.wantSay) {
				t.Errorf("spoken %q, want it to contain %q", resp.Spoken, tt.wantSay)
			}
			if tt.wantArgs != nil {
				if len(rc.got) != 1 || !reflect.DeepEqual(rc.got[0].Args, tt.wantArgs) {
					t.Errorf("Run saw %+v, want %+v", rc.got, tt.wantArgs)
				}
			} else if len(rc.got) != 0 {
				t.Errorf("Run was called with %+v", rc.got[0].Args)
			}
			if tt.valid != nil && (len(resp.Problems) == 0 || !reflect.DeepEqual(resp.Problems[0].Valid, tt.valid)) {
				t.Errorf("problems %+v, want valid values %v", resp.Problems, tt.valid)
			}
		})
	}
}

func TestPostProcessOnlyForModelCalls(t *testing.T) {
	rc := &recorder{resp: Said("ok", nil)}
	c := &Command{Name: "music", Description: "d", Parameters: []Parameter{{Name: "action", Type: "string"}}, Run: rc.run,
		PostProcess: func(a Args, utterance string) Args {
			if a.String("action") == "delete" {
				a["action"] = "trash"
			}
			return a
		},
	}
	r := newTestRegistry(t, c, nil)
	r.Call(t.Context(), "music", map[string]any{"action": "delete"}, "delete it")
	rt := Route{Command: c, Claim: Claim{Arguments: map[string]any{"action": "delete"}, Spoken: "Deleted."}}
	resp := r.RunRoute(t.Context(), rt, "Delete it!")
	if resp.Spoken != "Deleted." {
		t.Errorf("claim's spoken answer not used: %q", resp.Spoken)
	}
	if rc.got[0].Args.String("action") != "trash" || rc.got[1].Args.String("action") != "delete" {
		t.Errorf("model call saw %v, pre-routed call saw %v; want repair only for the model", rc.got[0].Args, rc.got[1].Args)
	}
}

func TestUnknownCommand(t *testing.T) {
	r := NewRegistry(Options{})
	if resp := r.Call(t.Context(), "teleport", nil, "beam me up"); resp.Kind != Failure || !strings.Contains(resp.Data["error"].(string), "teleport") {
		t.Errorf("resp = %+v", resp)
	}
}

func TestRefinement(t *testing.T) {
	rc := &recorder{resp: Response{Kind: Success, Spoken: "ok", Data: map[string]any{"timer_id": "t1"}}}
	c := &Command{Name: "set_timer", Description: "d", Run: rc.run, Parameters: []Parameter{
		{Name: "duration", Type: "timedelta", Required: true, Refinable: true},
		{Name: "name", Type: "string"},
	}}
	now := clock
	r := NewRegistry(Options{Now: func() time.Time { return now }, Location: time.UTC})
	r.Register(c)
	refined := func(text string) (Route, bool) {
		u := r.Understand(t.Context(), locale.English, text)
		return u.Route, u.OK && u.Route.Refine
	}
	if _, ok := refined("actually ten minutes"); ok {
		t.Fatal("refined before any call")
	}
	r.Call(t.Context(), "set_timer", map[string]any{"duration": "5m", "name": "tea"}, "set a tea timer for 5 minutes")
	now = now.Add(5 * time.Second)
	rt, ok := refined("Actually, ten minutes.")
	if !ok || !rt.Refine {
		t.Fatalf("no refinement: %+v", rt)
	}
	r.RunRoute(t.Context(), rt, "actually ten minutes")
	got := rc.got[1]
	if got.Args.Duration("duration") != 10*time.Minute || got.Args.String("name") != "tea" || got.Refines["timer_id"] != "t1" {
		t.Errorf("refined call saw %+v refining %v", got.Args, got.Refines)
	}
	if _, ok := refined("what is the capital of peru"); ok {
		t.Error("an unrelated question was taken as a refinement")
	}
	now = now.Add(time.Minute)
	if _, ok := refined("actually twenty minutes"); ok {
		t.Error("refined after the window closed")
	}
	now = now.Add(-time.Minute)
	r.Forget("")
	if _, ok := refined("actually twenty minutes"); ok {
		t.Error("refined after the conversation ended")
	}
}

// A node's tool named as a template's intent ("calculate", with its own
// num1 and num2) is not given the template's slots (a, b) offline: what
// no slot fills goes to the model, not back to the user as an error.
func TestAnotherCommandUnderAnIntentsNameGoesToTheModel(t *testing.T) {
	r := NewRegistry(Options{})
	c := &Command{Name: "calculate", Description: "the node's calculator",
		Parameters: []Parameter{{Name: "num1", Type: "float", Required: true}, {Name: "num2", Type: "float", Required: true},
			{Name: "operation", Type: "string", Required: true}},
		Run: func(context.Context, Call) (Response, error) { return Response{Kind: Success}, nil }}
	if err := r.Register(c); err != nil {
		t.Fatal(err)
	}
	u := r.Understand(t.Context(), locale.English, "what is 3 plus 4")
	if u.OK || u.Reason != Unresolved_ {
		t.Errorf("understood %+v; want not carried out, its slot unresolved", u)
	}
}
