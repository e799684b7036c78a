package tooltext

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		calls    []Call
		rest     string
		bad      bool
	}{
		{"fenced", "```tool_call\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Paris\"}}\n```",
			[]Call{{"get_weather", map[string]any{"location": "Paris"}}}, "", false},
		{"with prose", "Let me look.\n```tool_call\n{\"name\":\"get_current_time\",\"arguments\":{}}\n```",
			[]Call{{"get_current_time", map[string]any{}}}, "Let me look.", false},
		{"two calls", "```tool_call\n{\"name\":\"a\",\"arguments\":{}}\n```\n```tool_call\n{\"name\":\"b\"}\n```",
			[]Call{{"a", map[string]any{}}, {"b", map[string]any{}}}, "", false},
		{"json fence", "```json\n{\"name\": \"stop\", \"arguments\": {}}\n```", []Call{{"stop", map[string]any{}}}, "", false},
		{"json fence that is data", "```json\n{\"temp\": 5}\n```", nil, "```json\n{\"temp\": 5}\n```", false},
		{"tags", "<tool_call>{\"name\": \"x\", \"parameters\": {\"n\": 1}}</tool_call>", []Call{{"x", map[string]any{"n": 1.0}}}, "", false},
		{"function form", "```tool_call\n{\"function\": {\"name\": \"f\", \"arguments\": {\"a\": true}}}\n```", []Call{{"f", map[string]any{"a": true}}}, "", false},
		{"string arguments", "```tool_call\n{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 2}\"}\n```", []Call{{"f", map[string]any{"a": 2.0}}}, "", false},
		{"unclosed fence", "```tool_call\n{\"name\": \"f\", \"arguments\": {}}", []Call{{"f", map[string]any{}}}, "", false},
		{"prose around braces", "```tool_call\nHere: {\"name\": \"f\"} done\n```", []Call{{"f", map[string]any{}}}, "", false},
		{"truncated json", "```tool_call\n{\"name\": \"f\", \"arguments\": {\"a\":\n```", nil, "", true},
		{"no name", "```tool_call\n{\"arguments\": {}}\n```", nil, "", true},
		{"plain answer", "It is sunny in Paris.", nil, "It is sunny in Paris.", false},
	}
	for _, tt := range tests {
		calls, rest, err := Parse(tt.in)
		if !reflect.DeepEqual(calls, tt.calls) || rest != tt.rest || (err != nil) != tt.bad {
			t.Errorf("%s: Parse = %+v, %q, %v; want %+v, %q, bad=%v", tt.name, calls, rest, err, tt.calls, tt.rest, tt.bad)
		}
	}
}

func TestTrailing(t *testing.T) {
	tests := []struct {
		name, in string
		calls    []Call
		rest     string
	}{
		{"after a lead-in", "Let me check the time.\n{\"name\": \"get_current_time\", \"parameters\": {}}",
			[]Call{{"get_current_time", map[string]any{}}}, "Let me check the time."},
		{"alone", "{\"name\": \"set_timer\", \"arguments\": {\"duration\": \"PT5M\"}}\n",
			[]Call{{"set_timer", map[string]any{"duration": "PT5M"}}}, ""},
		{"over several lines", "One moment.\n\n  {\n    \"function\": {\"name\": \"f\", \"arguments\": {\"a\": 1}}\n  }",
			[]Call{{"f", map[string]any{"a": 1.0}}}, "One moment."},
		{"two", "Sure.\n{\"name\": \"a\"}\n{\"name\": \"b\", \"args\": {}}",
			[]Call{{"a", map[string]any{}}, {"b", map[string]any{}}}, "Sure."},
		{"data, not a call", "Here it is:\n{\"temperature\": 12}", nil, "Here it is:\n{\"temperature\": 12}"},
		{"a call and data", "{\"name\": \"a\"}\n{\"temperature\": 12}", nil, "{\"name\": \"a\"}\n{\"temperature\": 12}"},
		{"words after it", "Let me look.\n{\"name\": \"a\"}\nDone.", nil, "Let me look.\n{\"name\": \"a\"}\nDone."},
		{"in the sentence", "Let me look {\"name\": \"a\"}", nil, "Let me look {\"name\": \"a\"}"},
		{"truncated", "Let me look.\n{\"name\": \"a\", \"arguments\": {", nil, "Let me look.\n{\"name\": \"a\", \"arguments\": {"},
		{"plain answer", "It is sunny in Paris.", nil, "It is sunny in Paris."},
	}
	for _, tt := range tests {
		calls, rest := Trailing(tt.in)
		if !reflect.DeepEqual(calls, tt.calls) || rest != tt.rest {
			t.Errorf("%s: Trailing = %+v, %q; want %+v, %q", tt.name, calls, rest, tt.calls, tt.rest)
		}
	}
}

func TestDescribe(t *testing.T) {
	got := Describe([]Tool{{Name: "set_timer", Description: "Start a timer.", Parameters: json.RawMessage(
		`{"type":"object","properties":{"duration":{"type":"string","format":"duration","description":"e.g. PT5M"},"name":{"type":"string"}},"required":["duration"]}`)}})
	for _, want := range []string{"```tool_call\n{\"name\": \"tool_name\"", "- set_timer: Start a timer. Arguments: duration (string duration, required): e.g. PT5M; name (string)."} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe lacks %q:\n%s", want, got)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("```tool_call\n{\"name\":\"a\",\"arguments\":{\"x\":[1,{\"y\":\"}\"}]}}\n```")
	f.Add("<tool_call>{\"name\":\"b\"")
	f.Add("text ``` ```tool_call\n{")
	f.Fuzz(func(t *testing.T, s string) {
		calls, rest, _ := Parse(s)
		for _, c := range calls {
			if c.Name == "" || c.Arguments == nil {
				t.Errorf("call without a name or arguments: %+v", c)
			}
		}
		if strings.Contains(rest, "```tool_call\n") {
			t.Errorf("a tool_call fence was left in the text: %q", rest)
		}
		calls, rest = Trailing(s)
		for _, c := range calls {
			if c.Name == "" || c.Arguments == nil {
				t.Errorf("trailing call without a name or arguments: %+v", c)
			}
		}
		if len(calls) > 0 && !strings.Contains(s, rest) {
			t.Errorf("Trailing's rest %q is not what came before its calls in %q", rest, s)
		}
	})
}
