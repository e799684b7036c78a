package reply

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// boxCPU is a 1B model on a Raspberry Pi class CPU, as the test server
// reports it.
var boxCPU = ollamatest.Model{Name: "llama3.2:1b", Family: "llama", ParameterSize: "1.2B",
	Capabilities: []string{"completion", "tools"}, PromptRate: 40, GenRate: 15}

// TestSlowServerGetsStandIns: the engine learns a server's speed from the
// counters of its answers. Believing it fast, it asks the planner; the
// planner's answer shows a slow CPU, and from then on, in the same reply
// already, the deterministic stand-ins run instead of the other auxiliary
// calls; the next reply makes one call, the chat call.
func TestSlowServerGetsStandIns(t *testing.T) {
	meter := cost.NewMeter()
	f := newFixture(t, boxCPU, Options{Meter: meter})
	key := cost.Key(f.srv.URL, boxCPU.Name)
	meter.Set(key, cost.Rates{Prompt: 5000, Gen: 500, CharsPerToken: 4}) // as if it had been fast before
	f.model.json(kindPlanner, `{"steps": []}`).json(kindRouter, `{"tools": ["get_weather"]}`).
		on(kindChat, ollamatest.Reply{Content: "It will be dry and mild, so the garden party can go ahead as planned."})
	first, _, err := f.ask(t, "tell me something nice about autumn gardens")
	if calls := replytest.Kinds(f.srv); err != nil || !slices.Equal(calls, []string{kindPlanner, kindChat}) || !slices.Contains(first.StandIns, "router") {
		t.Fatalf("believed fast: calls %v, stand-ins %v, err %v; want the planner, then stand-ins", calls, first.StandIns, err)
	}
	if r := meter.Rates(key); r.Prompt > 100 {
		t.Fatalf("the meter did not learn the slow rates from the counters: %+v", r)
	}
	before := len(f.srv.Chats())
	f.model.on(kindChat, ollamatest.Reply{Content: "Take a coat."})
	second, said, err := f.ask(t, "should my garden party worry about rain in the forecast")
	if err != nil || !slices.Equal(said, []string{"Take a coat."}) {
		t.Fatalf("said %q, err %v", said, err)
	}
	calls := replytest.Kinds(f.srv)[before:]
	if !slices.Equal(calls, []string{kindChat}) {
		t.Errorf("calls %v on a slow server: want the chat call only", calls)
	}
	for _, want := range []string{"planner", "memory terms", "router"} {
		if !slices.Contains(second.StandIns, want) {
			t.Errorf("stand-ins %v: want %s", second.StandIns, want)
		}
	}
	// The keyword stand-in still found the weather, and no more than a handful.
	chat := f.srv.Chats()[len(f.srv.Chats())-1]
	var offered []string
	for _, tl := range chat.Tools {
		offered = append(offered, tl.Function.Name)
	}
	if !slices.Contains(offered, "get_weather") || len(offered) > Handful+2 {
		t.Errorf("offered %v: want get_weather among a handful", offered)
	}
}

// TestFastServerGetsModelCalls: a box that knows nothing assumes its own
// CPU and runs the stand-ins; the first answer shows a fast server, and the
// next reply makes the auxiliary calls the reply spec describes.
func TestFastServerGetsModelCalls(t *testing.T) {
	f := newFixture(t, smallModel, Options{Meter: cost.NewMeter()})
	f.model.on(kindChat, ollamatest.Reply{Content: "Hello there, it is good to hear from you this morning."})
	first, _, _ := f.ask(t, "good morning to you my friend")
	if first.Timings.ModelCalls != 1 || !slices.Contains(first.StandIns, "planner") {
		t.Fatalf("unmeasured: %d calls, stand-ins %v; want the chat call only", first.Timings.ModelCalls, first.StandIns)
	}
	before := len(f.srv.Chats())
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).on(kindChat, ollamatest.Reply{Content: "Fine, thanks."})
	second, _, _ := f.ask(t, "and how are you doing today")
	calls := replytest.Kinds(f.srv)[before:]
	if !slices.Equal(calls, []string{kindPlanner, kindChat}) || len(second.StandIns) != 0 {
		t.Errorf("calls %v, stand-ins %v on a fast server: want the planner, then the chat call", calls, second.StandIns)
	}
}

// TestToolBudget: the tool definitions of a call fit the budget, the
// router's best picks first; stop and search_tools always stay.
func TestToolBudget(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true, ToolTokens: 220})
	f.model.json(kindRouter, `{"tools": ["set_reminder", "set_alarm", "check_timers"]}`).
		on(kindChat, ollamatest.Reply{Content: "Sure."})
	res, _, _ := f.ask(t, "I need to be woken and reminded about things")
	chat := f.srv.Chats()[len(f.srv.Chats())-1]
	var offered []string
	for _, tl := range chat.Tools {
		offered = append(offered, tl.Function.Name)
	}
	if !slices.Equal(offered, []string{"stop", "search_tools", "set_reminder"}) {
		t.Errorf("offered %v under a 220-token budget: want the best pick, stop and search_tools", offered)
	}
	if res.Timings.ToolTokens == 0 || res.Timings.ToolTokens > 220 {
		t.Errorf("tool tokens %d, want within the budget of 220", res.Timings.ToolTokens)
	}
	// A small model's default budget holds a handful, never the catalogue.
	g := newFixture(t, smallModel, Options{PlannerOff: true, Router: "all"})
	g.model.on(kindChat, ollamatest.Reply{Content: "Sure."})
	res, _, _ = g.ask(t, "I need to be woken and reminded about things")
	if n := len(g.srv.Chats()[len(g.srv.Chats())-1].Tools); n > 8 || res.Timings.ToolTokens > 360 {
		t.Errorf("%d tools, %d tokens with every tool routed: want the 360-token budget kept", n, res.Timings.ToolTokens)
	}
}

// llama32Template renders the tools inside its loop over the messages, in
// the last user message, as Llama 3.2's template does.
const llama32Template = `{{- if .System }}<|start_header_id|>system<|end_header_id|>

{{ .System }}<|eot_id|>{{ end }}
{{- range $i, $_ := .Messages }}{{- $last := eq (len (slice $.Messages $i)) 1 }}
{{- if eq .Role "user" }}<|start_header_id|>user<|end_header_id|>
{{- if and $.Tools $last }}
Tools: {{ range $.Tools }}{{ . }}{{ end }}{{ end }}
{{ .Content }}<|eot_id|>{{ end }}{{ end }}`

// TestToolsMovedByTheTemplateGoInTheSystemPrompt: for a template that puts
// the tools in the last user message, where they are new prompt on every
// call, the tools are described in the system prompt instead.
func TestToolsMovedByTheTemplateGoInTheSystemPrompt(t *testing.T) {
	if !movesTools(llama32Template) || movesTools("{{ if .Tools }}{{ .Tools }}{{ end }}{{ range .Messages }}{{ .Content }}{{ end }}") {
		t.Fatal("movesTools misjudges the templates")
	}
	m := smallModel
	m.Template = llama32Template
	f := newFixture(t, m, Options{PlannerOff: true})
	f.model.json(kindRouter, `{"tools": ["check_timers"]}`).on(kindChat, ollamatest.Reply{Content: "None."})
	f.ask(t, "anything ticking away in the kitchen")
	chat := f.srv.Chats()[len(f.srv.Chats())-1]
	if len(chat.Tools) != 0 || !strings.Contains(chat.Messages[0].Content, "check_timers") {
		t.Errorf("native tools %d, system prompt:\n%s\nwant the tools described in the system prompt", len(chat.Tools), chat.Messages[0].Content)
	}
	n := newFixture(t, m, Options{PlannerOff: true, ToolStyle: "native"})
	n.model.json(kindRouter, `{"tools": ["check_timers"]}`).on(kindChat, ollamatest.Reply{Content: "None."})
	n.ask(t, "anything ticking away in the kitchen")
	if chat := n.srv.Chats()[len(n.srv.Chats())-1]; len(chat.Tools) == 0 {
		t.Error("tool_style native keeps the server's tool calling")
	}
}

// TestWarmFillsTheCache: the warm-up call asks for one token with the
// system prompt every reply starts with, so the first reply after it
// reuses that prefix from the server's cache.
func TestWarmFillsTheCache(t *testing.T) {
	// No auxiliary calls: between the warm-up and the reply, the cache
	// holds only what they sent.
	f := newFixture(t, smallModel, Options{Policy: cost.Policy{Floor: time.Nanosecond, Share: 1e-9}})
	if _, err := f.eng.Warm(t.Context()); err != nil {
		t.Fatal(err)
	}
	warm := f.srv.Chats()[0]
	if replytest.KindOf(warm) != replytest.Warm || warm.Options["num_predict"] != float64(1) {
		t.Fatalf("warm-up request %+v: want the chat prompt with a one-token answer", warm.Options)
	}
	f.model.on(kindChat, ollamatest.Reply{Content: "Hello to you."})
	res, _, err := f.ask(t, "hello there my friend")
	if err != nil {
		t.Fatal(err)
	}
	chat := f.srv.Chats()[len(f.srv.Chats())-1]
	if chat.Messages[0].Content != warm.Messages[0].Content {
		t.Errorf("the first reply's system prompt differs from the warm-up's:\n%s\n%s", warm.Messages[0].Content, chat.Messages[0].Content)
	}
	if res.Timings.Evaluated*3 > res.Timings.PromptTokens {
		t.Errorf("evaluated %d of %d prompt tokens: want most of the prompt from the warmed cache", res.Timings.Evaluated, res.Timings.PromptTokens)
	}
}
