package router

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/harkbox/hark/reply/llm"
)

var catalogue = []Tool{
	{"get_weather", "Weather.", []string{"weather", "rain", "forecast"}},
	{"set_timer", "Timer.", []string{"timer", "countdown"}},
	{"calculate", "Maths.", []string{"plus", "times"}},
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
		{"llm fails", New(Options{Model: fixed{err: errors.New("down")}}), "will it rain", []string{"get_weather", "set_timer", "calculate"}, true},
		{"llm garbage", New(Options{Model: fixed{content: "weather I guess"}}), "will it rain", []string{"get_weather", "set_timer", "calculate"}, true},
		{"keyword", New(Options{Strategy: Keyword}), "is rain in the forecast", []string{"get_weather"}, false},
		{"keyword name", New(Options{Strategy: Keyword}), "start a countdown timer", []string{"set_timer"}, false},
		{"keyword none", New(Options{Strategy: Keyword}), "tell me a story", []string{"get_weather", "set_timer", "calculate"}, true},
		{"all", New(Options{Strategy: All}), "anything", []string{"get_weather", "set_timer", "calculate"}, false},
		{"max", New(Options{Model: fixed{content: `{"tools":["get_weather","set_timer","calculate"]}`}, Max: 2}), "x", []string{"get_weather", "set_timer"}, false},
	}
	for _, tt := range tests {
		got, fb := tt.r.Select(t.Context(), tt.query, catalogue)
		if !slices.Equal(got, tt.want) || fb != tt.fellBack {
			t.Errorf("%s: %v fellBack=%v, want %v %v", tt.name, got, fb, tt.want, tt.fellBack)
		}
	}
}
