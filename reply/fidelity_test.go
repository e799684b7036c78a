package reply

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// TestRefusedToolsStillFallBackToText: a server that lists no capabilities
// gets native tools, and its 400 "does not support tools" still switches
// to text tools, the safety net.
func TestRefusedToolsStillFallBackToText(t *testing.T) {
	m := textModel
	m.Name, m.Capabilities = "mystery:1b", nil
	f := newFixture(t, m, Options{PlannerOff: true})
	f.model.json(kindRouter, `{"tools": ["get_current_time"]}`).on(kindChat, ollamatest.Reply{Content: "Sunday."})
	if _, said, err := f.ask(t, "which day of the week is it today my friend"); err != nil || !slices.Equal(said, []string{"Sunday."}) {
		t.Fatalf("said %q, err %v", said, err)
	}
	var native []bool
	for _, r := range f.srv.Requests() {
		if r.Chat != nil && kindOf(*r.Chat) == kindChat {
			native = append(native, len(r.Chat.Tools) > 0)
		}
	}
	if !slices.Equal(native, []bool{true, false}) {
		t.Errorf("chat calls offered native tools: %v, want refused once, then text", native)
	}
}

var thinkModel = ollamatest.Model{Name: "qwen3:1.7b", Family: "qwen3", ParameterSize: "1.7B", Capabilities: []string{"completion", "tools", "thinking"}}

// TestThinkingOnlyTurn: a thinking model that answers with reasoning only
// is asked again, its reasoning kept in the history and never said; think
// is sent as configured because the model can think.
func TestThinkingOnlyTurn(t *testing.T) {
	f := newFixture(t, thinkModel, Options{PlannerOff: true})
	f.model.json(kindRouter, `{"tools": []}`).on(kindChat,
		ollamatest.Reply{Thinking: "The user greets me. I should greet back."},
		ollamatest.Reply{Thinking: "Greeting back.", Content: "Hello to you too!"})
	res, said, err := f.ask(t, "hello there my good friend")
	if err != nil || !slices.Equal(said, []string{"Hello to you too!"}) || strings.Contains(res.Text, "greet") {
		t.Fatalf("said %q (%q), err %v", said, res.Text, err)
	}
	chats := f.srv.Chats()
	for _, c := range chats {
		if kindOf(c) == kindChat && (c.Think == nil || string(c.Think) != "false") {
			t.Errorf("think = %s, want false sent to a thinking model", c.Think)
		}
	}
	golden(t, f.srv, "thinking_only")
	// A model that cannot think is not told to.
	g := newFixture(t, smallModel, Options{PlannerOff: true})
	g.model.json(kindRouter, `{"tools": []}`).on(kindChat, ollamatest.Reply{Content: "Hi."})
	g.ask(t, "hello there my good friend")
	for _, c := range g.srv.Chats() {
		if c.Think != nil {
			t.Errorf("think = %s sent to a model without thinking", c.Think)
		}
	}
}

// TestThinkingOnlyIsBounded: reasoning forever ends the reply after two
// asks, with the usual apology.
func TestThinkingOnlyIsBounded(t *testing.T) {
	f := newFixture(t, thinkModel, Options{PlannerOff: true})
	only := ollamatest.Reply{Thinking: "Hmm."}
	f.model.json(kindRouter, `{"tools": []}`).on(kindChat, only, only, only)
	_, said, err := f.ask(t, "hello there my good friend")
	if err == nil || len(said) != 1 || !strings.Contains(said[0], "no answer") {
		t.Errorf("said %q, err %v", said, err)
	}
	chats := 0
	for _, c := range f.srv.Chats() {
		if kindOf(c) == kindChat {
			chats++
		}
	}
	if chats != 1+maxThinkingTurns {
		t.Errorf("%d chat calls: want the first and %d asks, no more", chats, maxThinkingTurns)
	}
}

// TestInlineReasoningIsNotSaid: a model whose server does not parse its
// reasoning out writes it in the answer between <think> tags. It is
// never said nor kept as the answer; it stays in the history as thinking,
// as a thinking model's does; and an answer that was reasoning only, its
// block cut off by the token limit, is asked for again and then ends with
// the usual apology.
func TestInlineReasoningIsNotSaid(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	f.model.json(kindRouter, `{"tools": ["get_current_time"]}`).on(kindChat,
		ollamatest.Reply{Content: "<think>I should check the clock.</think>", ToolCalls: []ollamatest.ToolCall{{Name: "get_current_time"}}},
		ollamatest.Reply{Content: "<think>The tool says 10:15. Say it plainly.</think>\n\nIt is quarter past ten."})
	res, said, err := f.ask(t, "what time do you make it")
	if err != nil || !slices.Equal(said, []string{"It is quarter past ten."}) || res.Text != "It is quarter past ten." {
		t.Fatalf("said %q (%q), err %v", said, res.Text, err)
	}
	stored, _ := f.db.Dialogue().Recent(t.Context(), clock.Add(-time.Hour), 5)
	if len(stored) != 1 || stored[0].Assistant != "It is quarter past ten." {
		t.Errorf("stored %+v", stored)
	}
	last := f.srv.Chats()[len(f.srv.Chats())-1].Messages
	kept := false
	for _, m := range last {
		kept = kept || m.Role == "assistant" && m.Thinking == "I should check the clock." && m.Content == ""
	}
	if !kept {
		t.Errorf("the reasoning is not kept as thinking in the history: %+v", last)
	}

	g := newFixture(t, smallModel, Options{PlannerOff: true})
	cut := ollamatest.Reply{Content: "<think>The user wants the capital of France. Let me reason about this at length before I answer and"}
	g.model.json(kindRouter, `{"tools": []}`).on(kindChat, cut, cut, cut)
	_, said, err = g.ask(t, "what is the capital of france")
	if err == nil || len(said) != 1 || !strings.Contains(said[0], "no answer") {
		t.Errorf("reasoning cut off: said %q, err %v; want the apology for an empty answer", said, err)
	}
	chats := 0
	for _, c := range g.srv.Chats() {
		if kindOf(c) == kindChat {
			chats++
		}
	}
	if chats != 1+maxThinkingTurns {
		t.Errorf("%d chat calls: want the first and %d asks, as for a thinking model", chats, maxThinkingTurns)
	}
}

// TestSchemaHintsOnTheWire: the tool definitions as the server gets them,
// with the hints Ollama's types drop (format, _refinable) in the
// description, pinned by a golden file.
func TestSchemaHintsOnTheWire(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	f.model.json(kindRouter, `{"tools": ["set_timer", "set_reminder"]}`).on(kindChat, ollamatest.Reply{Content: "Sure."})
	f.ask(t, "I need help keeping time in the kitchen")
	chat := f.srv.Chats()[len(f.srv.Chats())-1]
	got, _ := json.MarshalIndent(chat.Tools, "", "  ")
	if !strings.Contains(string(got), "(format: duration; the user may change it right after)") {
		t.Errorf("the duration's hints did not reach the model:\n%s", got)
	}
	path := filepath.Join("testdata", "schema_hints.golden.json")
	if *update {
		os.WriteFile(path, append(got, '\n'), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != string(got)+"\n" {
		t.Errorf("the tools on the wire differ from %s (-update rewrites it): %v\n%s", path, err, got)
	}
}

// TestExamplesWithinTheBudget: a tool's example rides in its description
// when the tool budget has room for it, and is left out, keeping the tool,
// when only the bare tool fits. DirectAnswer becomes a tool note.
func TestExamplesWithinTheBudget(t *testing.T) {
	for _, tt := range []struct {
		budget  int
		example bool
	}{{2000, true}, {165, false}} {
		f := newFixture(t, smallModel, Options{PlannerOff: true, ToolTokens: tt.budget})
		f.model.json(kindRouter, `{"tools": ["set_timer", "get_current_time"]}`).on(kindChat, ollamatest.Reply{Content: "Sure."})
		f.ask(t, "I need help keeping time in the kitchen")
		chat := f.srv.Chats()[len(f.srv.Chats())-1]
		var desc string
		for _, tl := range chat.Tools {
			if tl.Function.Name == "set_timer" {
				desc = tl.Function.Description
			}
		}
		if desc == "" {
			t.Fatalf("budget %d: set_timer was not offered", tt.budget)
		}
		if got := strings.Contains(desc, `Example: "set a pasta timer for 8 minutes" → {"duration":"PT8M","name":"pasta"}`); got != tt.example {
			t.Errorf("budget %d: example in %q: %v, want %v", tt.budget, desc, got, tt.example)
		}
		if tt.example && !strings.Contains(chat.Messages[0].Content, "get_current_time: you may also answer without it") {
			t.Errorf("the direct-answer note is missing:\n%s", chat.Messages[0].Content)
		}
		if log := f.log.String(); !strings.Contains(log, `msg="tools offered"`) || !strings.Contains(log, "from=llm") {
			t.Errorf("no log line says where the tools came from:\n%s", log)
		}
	}
}

// TestPostProcessGetsTheUsersWords: a command's post-processing reads the
// utterance as the user said it, not as the model saw it (redacted).
func TestPostProcessGetsTheUsersWords(t *testing.T) {
	var heard string
	reg := command.NewRegistry(command.Options{})
	reg.Register(&command.Command{Name: "note_number", Description: "Note a phone number.",
		Parameters:  []command.Parameter{{Name: "number", Type: "string"}},
		PostProcess: func(a command.Args, utterance string) command.Args { heard = utterance; return a },
		Run: func(context.Context, command.Call) (command.Response, error) {
			return command.Response{Spoken: "Noted."}, nil
		}})
	f := newFixture(t, smallModel, Options{PlannerOff: true, Router: "all", Commands: reg})
	f.model.on(kindChat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "note_number", Arguments: map[string]any{"number": "[phone 1]"}}}},
		ollamatest.Reply{Content: "Noted."})
	f.ask(t, "please jot down the plumber, his phone is +49 176 12345678")
	chat := f.srv.Chats()[0]
	if strings.Contains(fmtJSON(chat.Messages), "12345678") {
		t.Fatal("the number reached the model")
	}
	if !strings.Contains(heard, "+49 176 12345678") {
		t.Errorf("post-processing heard %q, want the user's words", heard)
	}
}

func fmtJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestFallbackMidReply: the engine over a chain whose first server cuts
// its answer off: the user hears one sentence about it, then the second
// server's answer.
func TestFallbackMidReply(t *testing.T) {
	a, b := ollamatest.New(smallModel), ollamatest.New(smallModel)
	defer a.Close()
	defer b.Close()
	ma, mb := replytest.New(), replytest.New()
	a.Respond(ma.Respond)
	b.Respond(mb.Respond)
	ma.On(kindChat, ollamatest.Reply{Content: "Well, the thing is that", Fault: ollamatest.DropMidStream, DropAfter: 3})
	mb.Default(kindChat, ollamatest.Reply{Content: "Here is the whole answer."})
	var eps []*llm.Client
	for _, s := range []*ollamatest.Server{a, b} {
		u, _ := url.Parse(s.URL)
		c, _ := llm.New(llm.Options{Host: u, Model: smallModel.Name})
		eps = append(eps, c)
	}
	chain, _ := llm.NewChain(llm.ChainOptions{Endpoints: eps})
	f := newFixture(t, smallModel, Options{Model: chain, Info: chain, PlannerOff: true, Router: "keyword"})
	_, said, err := f.ask(t, "tell me something cheerful please")
	if err != nil || !slices.Equal(said, []string{llm.Switched, "Here is the whole answer."}) {
		t.Errorf("said %q, err %v", said, err)
	}
}
