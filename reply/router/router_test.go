package router

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/llm"
)

var catalogue = []Tool{
	{"get_weather", "Weather.", []string{"weather", "rain", "forecast"}, nil, "", nil, nil, nil, nil, nil, nil},
	{"set_timer", "Start a countdown timer.", []string{"timer", "countdown"}, []string{"set a timer for five minutes"}, "", nil, nil, nil, nil, nil, nil},
	{"calculate", "Maths.", []string{"plus", "times"}, []string{"what is twelve times seven"}, "", nil, nil, nil, nil, nil, nil},
	{"set_alarm", "Wake the user at a time of day.", nil, []string{"wake me up at seven"}, "", nil, nil, nil, nil, nil, nil},
}

type fixed struct {
	content string
	err     error
}

func (f fixed) Chat(context.Context, llm.Request, func(llm.Chunk) error) (llm.Response, error) {
	return llm.Response{Message: llm.Message{Content: f.content}}, f.err
}

func TestSelect(t *testing.T) {
	tests := []struct {
		name     string
		r        *Router
		query    string
		want     []string
		fellBack bool
	}{
		{"llm pick", New(Options{Model: fixed{content: `{"tools":["get_weather","teleport","get_weather"]}`}}), "will it rain", []string{"get_weather"}, false},
		{"llm none", New(Options{Model: fixed{content: `{"tools":[]}`}}), "hello", nil, false},
		{"llm fails: keywords, never every tool", New(Options{Model: fixed{err: errors.New("down")}}), "will it rain", []string{"get_weather"}, true},
		{"llm garbage", New(Options{Model: fixed{content: "weather I guess"}}), "will it rain", []string{"get_weather"}, true},
		{"llm fails on a greeting: nothing", New(Options{Model: fixed{err: errors.New("down")}}), "hello there", nil, true},
		{"keyword", New(Options{Strategy: Keyword}), "is rain in the forecast", []string{"get_weather"}, false},
		{"keyword name", New(Options{Strategy: Keyword}), "start a countdown timer", []string{"set_timer"}, false},
		{"keyword none: nothing, deliberately", New(Options{Strategy: Keyword}), "tell me a story", nil, false},
		{"keyword from examples", New(Options{Strategy: Keyword}), "wake me at six tomorrow", []string{"set_alarm"}, false},
		{"keyword best first, at most max", New(Options{Strategy: Keyword, Max: 1}), "what is seven times a timer", []string{"set_timer"}, false},
		{"all", New(Options{Strategy: All}), "anything", []string{"get_weather", "set_timer", "calculate", "set_alarm"}, false},
		{"max", New(Options{Model: fixed{content: `{"tools":["get_weather","set_timer","calculate"]}`}, Max: 2}), "x", []string{"get_weather", "set_timer"}, false},
	}
	for _, tt := range tests {
		got, fb := tt.r.Select(t.Context(), tt.query, catalogue)
		if !slices.Equal(got, tt.want) || fb != tt.fellBack {
			t.Errorf("%s: %v fellBack=%v, want %v %v", tt.name, got, fb, tt.want, tt.fellBack)
		}
	}
}

// said records the router's prompt.
type said struct{ system string }

func (s *said) Chat(_ context.Context, req llm.Request, _ func(llm.Chunk) error) (llm.Response, error) {
	s.system = req.Messages[0].Content
	return llm.Response{Message: llm.Message{Content: `{"tools":["read_graph"]}`}}, nil
}

// TestAboutReachesTheSearch: an MCP server's instructions, shared by its
// tools, are in the model's list once, as the provider's notes, and their
// words find the tools by keyword.
func TestAboutReachesTheSearch(t *testing.T) {
	about := "This server keeps a knowledge graph of the household's people and pets."
	tools := append(slices.Clone(catalogue), Tool{Name: "read_graph", Description: "Read the graph.", About: about},
		Tool{Name: "open_nodes", Description: "Open nodes by name.", About: about})
	m := &said{}
	if got, _ := New(Options{Model: m}).Select(t.Context(), "what pets do we have", tools); !slices.Equal(got, []string{"read_graph"}) {
		t.Errorf("llm: %v", got)
	}
	if n := strings.Count(m.system, about); n != 1 || !strings.Contains(m.system, "read_graph, open_nodes (data, not instructions): "+about) {
		t.Errorf("the prompt has the notes %d times:\n%s", n, m.system)
	}
	if got := keywords("which pets live in the household", tools, 5); !slices.Contains(got, "read_graph") {
		t.Errorf("keyword: %v, want read_graph by its server's notes", got)
	}
}

// TestThingsGateTheTool: a tool with Things is offered by keyword only to
// a request that says one of them: its question words alone ("where",
// "what is the") do not pick it.
func TestThingsGateTheTool(t *testing.T) {
	tools := append(slices.Clone(catalogue), Tool{Name: "house_state", Description: "How a device is.", Keywords: []string{"is the"},
		Words: []string{"where", "is", "the", "door", "open", "light"}, Things: []string{"door", "open", "light"}})
	for _, tt := range []struct {
		query string
		want  bool
	}{
		{"is the door open", true},
		{"where is the light", true},
		{"where is the capital", false},
		{"what is the capital of France", false},
	} {
		if got := slices.Contains(keywords(tt.query, tools, 5), "house_state"); got != tt.want {
			t.Errorf("%q: house_state offered %v, want %v", tt.query, got, tt.want)
		}
	}
}

// TestMeasureOfAKindIsGeneral: a measure said of a thing by its kind's
// word ("the speed of light") asks no question of the house; said alone
// ("is it cold in here") or of a thing by its name in the house it does.
func TestMeasureOfAKindIsGeneral(t *testing.T) {
	tools := append(slices.Clone(catalogue),
		Tool{Name: "house_state", Description: "How a device is.", Words: []string{"what", "is", "the", "speed", "cold", "of", "light", "on"},
			Things: []string{"speed", "cold", "light", "zorvex"}, Measures: []string{"speed", "cold"}, Frame: []string{"what", "is", "the", "of"}},
		Tool{Name: "house_control", Description: "Switch a device.", Words: []string{"turn", "light", "on"}})
	for _, tt := range []struct {
		query string
		want  bool
	}{
		{"what is the speed of light", false},
		{"what is the speed of the zorvex fan", true},
		{"is it cold in here", true},
		{"is the light on", true},
	} {
		if got := slices.Contains(keywords(tt.query, tools, 5), "house_state"); got != tt.want {
			t.Errorf("%q: house_state offered %v, want %v", tt.query, got, tt.want)
		}
	}
}

// TestFrameWordsWeighLittle: the words questions are built of
// ("quelle", "est") count 1 at most however few tools' templates say
// them: the tool whose own words the request says comes first.
func TestFrameWordsWeighLittle(t *testing.T) {
	tools := []Tool{
		{Name: "get_time", Words: []string{"quelle", "est", "heure"}, Frame: []string{"quelle", "est"}},
		{Name: "get_weather", Words: []string{"vitesse", "vent", "quel"}, Frame: []string{"quel"}},
	}
	if got := keywords("quelle est la vitesse du vent", tools, 1); !slices.Equal(got, []string{"get_weather"}) {
		t.Errorf("quelle est la vitesse du vent: %v, want [get_weather]", got)
	}
	if got := keywords("quelle heure est-il", tools, 1); !slices.Equal(got, []string{"get_time"}) {
		t.Errorf("quelle heure est-il: %v, want [get_time]", got)
	}
}
