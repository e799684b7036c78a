package router

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/harkbox/hark/reply/llm"
)

var catalogue = []Tool{
	{"get_weather", "Weather.", []string{"weather", "rain", "forecast"}, nil, nil, nil},
	{"set_timer", "Start a countdown timer.", []string{"timer", "countdown"}, []string{"set a timer for five minutes"}, nil, nil},
	{"calculate", "Maths.", []string{"plus", "times"}, []string{"what is twelve times seven"}, nil, nil},
	{"set_alarm", "Wake the user at a time of day.", nil, []string{"wake me up at seven"}, nil, nil},
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
