package command

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestSeed001Types: every type spelling of seed 001, its JSON schema, and
// the values the seed says pass or fail. Hark is deliberately more lenient
// in two places, both kept here: integers may come as number words
// ("five"), and booleans as "yes"/"no" are refused like the seed's, but
// "true"/"false" strings are taken.
func TestSeed001Types(t *testing.T) {
	now := time.Date(2026, 11, 25, 15, 30, 0, 0, time.UTC) // a Wednesday
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, tt := range []struct {
		spelling string
		schema   string
		ok       []any
		want     []any // what ok becomes, when it is not itself
		bad      []any
	}{
		{"string", `{"type":"string"}`, []any{"Lisbon"}, nil, []any{[]any{"x"}}},
		{"str", `{"type":"string"}`, []any{"Lisbon"}, nil, nil},
		{"integer", `{"type":"integer"}`, []any{5.0, "five"}, []any{int64(5), int64(5)}, []any{2.5, "lots"}},
		{"int", `{"type":"integer"}`, []any{5.0}, []any{int64(5)}, []any{"five and a bit"}},
		{"float", `{"type":"number"}`, []any{3.0, 2.5}, nil, []any{"many"}},
		{"boolean", `{"type":"boolean"}`, []any{true, "false"}, []any{true, false}, []any{"yes"}},
		{"bool", `{"type":"boolean"}`, []any{false}, nil, []any{"yes"}},
		{"array", `{"type":"array"}`, []any{[]any{"a", 1.0}}, nil, []any{"a"}},
		{"list", `{"type":"array"}`, []any{[]any{"a"}}, nil, []any{"a"}},
		{"dict", `{"type":"object"}`, []any{map[string]any{"a": 1.0}}, nil, []any{"a"}},
		{"datetime", `{"format":"date-time","type":"string"}`, []any{"2025-01-01T09:00:00Z", "2025-01-01", "today", "tomorrow"},
			[]any{time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC), day(2025, 1, 1), day(2026, 11, 25), day(2026, 11, 26)}, []any{"soonish"}},
		{"date", `{"format":"date","type":"string"}`, []any{"2025-01-01", "friday"}, []any{day(2025, 1, 1), day(2026, 11, 27)}, []any{"2025-13-45"}},
		{"time", `{"format":"time","type":"string"}`, []any{"07:30", "7 pm"}, []any{time.Date(0, 1, 1, 7, 30, 0, 0, time.UTC), time.Date(0, 1, 1, 19, 0, 0, 0, time.UTC)}, []any{"today"}},
		{"timedelta", `{"format":"duration","type":"string"}`, []any{"PT5M", "1h30m", "ten minutes"}, []any{5 * time.Minute, 90 * time.Minute, 10 * time.Minute}, []any{"a while"}},
	} {
		for _, spelling := range append([]string{tt.spelling}, arraySpellings(tt.spelling)...) {
			typ, err := ParseType(spelling)
			if err != nil {
				if spelling != tt.spelling {
					continue // arrays of dicts, lists: not in the seed's table
				}
				t.Errorf("%s: %v", spelling, err)
				continue
			}
			if spelling == tt.spelling {
				if b, _ := json.Marshal(typ.Schema()); string(b) != tt.schema {
					t.Errorf("%s: schema %s, want %s", spelling, b, tt.schema)
				}
			}
			for i, v := range tt.ok {
				in, want := v, v
				if tt.want != nil {
					want = tt.want[i]
				}
				if typ.Kind == Array && spelling != tt.spelling {
					in, want = []any{v}, []any{want}
				}
				got, err := coerce(typ, in, now)
				if err != nil || !same(got, want) {
					t.Errorf("%s: %v → %v (%v), want %v", spelling, in, got, err, want)
				}
			}
			for _, v := range tt.bad {
				in := v
				if typ.Kind == Array && spelling != tt.spelling {
					in = []any{v}
				}
				if got, err := coerce(typ, in, now); err == nil {
					t.Errorf("%s: %v accepted as %v, want refused", spelling, in, got)
				}
			}
		}
	}
}

// TestSeed001WeatherDates: the seed's weather example, a list of date keys
// and ISO dates, can be written and is resolved to days.
func TestSeed001WeatherDates(t *testing.T) {
	now := time.Date(2026, 11, 25, 15, 30, 0, 0, time.UTC) // a Wednesday
	r := NewRegistry(Options{Now: func() time.Time { return now }, Location: time.UTC})
	var got []any
	r.Register(&Command{Name: "get_weather", Description: "Weather.",
		Parameters: []Parameter{{Name: "resolved_datetimes", Type: "array<datetime>", Required: true, Description: "Date keys: 'today', 'tomorrow', 'this_weekend', etc."}},
		Run: func(_ context.Context, c Call) (Response, error) {
			got, _ = c.Args["resolved_datetimes"].([]any)
			return Response{Spoken: "ok"}, nil
		}})
	resp := r.Call(t.Context(), "get_weather", map[string]any{"resolved_datetimes": []any{"today", "2025-01-01", "this_weekend"}}, "weather")
	want := []time.Time{time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}
	if resp.Kind != Success || len(got) != len(want) {
		t.Fatalf("%+v, got %v", resp, got)
	}
	for i := range want {
		if !got[i].(time.Time).Equal(want[i]) {
			t.Errorf("day %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func arraySpellings(item string) []string {
	return []string{"array<" + item + ">", "array[" + item + "]", item + "[]"}
}

func same(a, b any) bool {
	if ta, ok := a.(time.Time); ok {
		tb, ok := b.(time.Time)
		return ok && ta.Equal(tb)
	}
	if la, ok := a.([]any); ok {
		lb, ok := b.([]any)
		if !ok || len(la) != len(lb) {
			return false
		}
		for i := range la {
			if !same(la[i], lb[i]) {
				return false
			}
		}
		return true
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
