package reply

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	"github.com/harkbox/hark/storage"
)

// The golden scenarios: every model call of one reply, message by message.

func TestGoldenReplyOnlyPlan(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).on(kindChat, ollamatest.Reply{Content: "Hello! Nice to hear from you."})
	res, said, err := f.ask(t, "hello there my friend")
	if err != nil || !slices.Equal(said, []string{"Hello!", "Nice to hear from you."}) {
		t.Fatalf("said %q, err %v", said, err)
	}
	if got := kinds(f.srv); !slices.Equal(got, []string{kindPlanner, kindChat}) {
		t.Errorf("calls %v: a reply-only plan needs no memory, router or digest", got)
	}
	if res.Timings.ModelCalls != 2 || len(res.Plan) != 1 {
		t.Errorf("result %+v", res)
	}
	golden(t, f.srv, "reply_only")
}

func TestGoldenMemoryWithDigest(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	day := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 0, 0, berlin) }
	f.db.Diary().Add(t.Context(), storage.DiaryEntry{Conversation: "a", Date: day(2), Keywords: []string{"lisbon", "trip"},
		Summary: "The user planned a trip to Lisbon for April with their sister, and asked about the best time to visit the Alfama district, the tram routes, and which pastry shops in Belém open early."})
	f.db.Diary().Add(t.Context(), storage.DiaryEntry{Conversation: "b", Date: day(15), Keywords: []string{"lisbon", "hotel"},
		Summary: "The user booked a hotel in Lisbon near the Alfama district for the April trip and asked how to get there from the airport by metro, and whether the metro runs late at night."})
	f.db.Facts().Add(t.Context(), "my flight to Lisbon leaves on April 3rd at 7 in the morning", day(10))
	f.model.json(kindPlanner, `{"steps": ["memory: the Lisbon trip", "reply"]}`).
		json(kindExtract, `{"keywords": ["Lisbon", "trip", "flight"], "from": "", "to": "", "questions": ["when is the flight"]}`).
		json(kindMemory, `The user flies to Lisbon on April 3rd at 7 in the morning; the hotel is near Alfama.`).
		on(kindChat, ollamatest.Reply{Content: "Your flight to Lisbon leaves on April third at seven in the morning."})
	_, said, err := f.ask(t, "when does my flight to Lisbon leave")
	if err != nil || len(said) != 1 {
		t.Fatalf("said %q, err %v", said, err)
	}
	if got := kinds(f.srv); !slices.Equal(got, []string{kindPlanner, kindExtract, kindMemory, kindRouter, kindChat}) {
		t.Errorf("calls %v", got)
	}
	golden(t, f.srv, "memory_digest")
	if !strings.Contains(f.log.String(), `msg="memory digest"`) {
		t.Errorf("no log line for the memory digest:\n%s", f.log.String())
	}
}

func TestGoldenNativeToolCall(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	f.model.json(kindPlanner, `{"steps": ["get_current_time: the time now", "reply"]}`).
		json(kindRouter, `{"tools": ["get_current_time"]}`).
		on(kindChat,
			ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "get_current_time", Arguments: map[string]any{"detail": "time"}}}},
			ollamatest.Reply{Content: "It's a quarter past ten, time for coffee."})
	res, said, err := f.ask(t, "is it coffee time yet")
	if err != nil || !slices.Equal(said, []string{"It's a quarter past ten, time for coffee."}) {
		t.Fatalf("said %q, err %v", said, err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "get_current_time" {
		t.Errorf("tools %+v", res.Tools)
	}
	golden(t, f.srv, "native_tool_call")
}

// TestToolCallWrittenAfterALeadIn: with native tools, a small model writes
// its call as JSON in its text after a sentence, where the server's tool
// parser does not look. The sentence is said, the call runs and is never
// said, and the model answers with its result, having read its call back
// as a native one. JSON that calls no tool the engine has is no call. A
// model with tools in text may write its call so too.
func TestToolCallWrittenAfterALeadIn(t *testing.T) {
	for _, tt := range []struct {
		name, content, tool string
		said                []string
		text                bool
	}{
		{"the time", "Let me check the time.\n{\"name\": \"get_current_time\", \"parameters\": {}}", "get_current_time",
			[]string{"Let me check the time.", "Done."}, false},
		{"a sentence in an argument", "I'll note that.\n{\"name\": \"remember\", \"arguments\": {\"fact\": \"Anna likes tea. And coffee.\"}}", "remember",
			[]string{"I'll note that.", "Done."}, false},
		{"data, not a call", "Here are the numbers.\n{\"name\": \"Anna\", \"age\": 7}", "",
			[]string{"Here are the numbers."}, false},
		{"tools in text", "Let me check the time.\n{\"name\": \"get_current_time\", \"arguments\": {}}", "get_current_time",
			[]string{"Let me check the time.", "Done."}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			served := smallModel
			if tt.text {
				served = textModel
			}
			f := newFixture(t, served, Options{PlannerOff: true})
			f.model.json(kindRouter, `{"tools": ["get_current_time", "remember"]}`).
				on(kindChat, ollamatest.Reply{Content: tt.content}, ollamatest.Reply{Content: "Done."})
			res, said, err := f.ask(t, "is it coffee time yet for anna")
			if err != nil || !slices.Equal(said, tt.said) {
				t.Errorf("said %q, err %v; want %q", said, err, tt.said)
			}
			if tt.tool == "" {
				if len(res.Tools) != 0 {
					t.Errorf("tools %+v, want none", res.Tools)
				}
				return
			}
			if len(res.Tools) != 1 || res.Tools[0].Name != tt.tool || res.Tools[0].Failed {
				t.Fatalf("tools %+v, want %s run", res.Tools, tt.tool)
			}
			if tt.text {
				return
			}
			chats := f.srv.Chats()
			history := chats[len(chats)-1].Messages
			call, result := history[len(history)-2], history[len(history)-1]
			if len(call.ToolCalls) != 1 || call.ToolCalls[0].Function.Name != tt.tool || strings.Contains(call.Content, "{") || result.Role != "tool" {
				t.Errorf("the model read back %+v, then %+v: want its call as a native one, then the result", call, result)
			}
		})
	}
}

func TestGoldenTextToolFallback(t *testing.T) {
	f := newFixture(t, textModel, Options{})
	f.model.json(kindPlanner, `not json at all`). // fails open
							json(kindRouter, `{"tools": ["get_current_time"]}`).
							on(kindChat,
			ollamatest.Reply{Content: "Let me check.\n```tool_call\n{\"name\": \"get_current_time\", \"arguments\": {\"detail\": \"day\"}}\n```"},
			ollamatest.Reply{Content: "Today is Sunday."})
	_, said, err := f.ask(t, "which day of the week is it today my friend")
	if err != nil || !slices.Equal(said, []string{"Let me check.", "Today is Sunday."}) {
		t.Fatalf("said %q, err %v", said, err)
	}
	reqs := f.srv.Requests()
	var statuses []bool
	for _, r := range reqs {
		if r.Chat != nil && kindOf(*r.Chat) == kindChat {
			statuses = append(statuses, len(r.Chat.Tools) > 0)
		}
	}
	// The server lists the model's capabilities without tools: text tools
	// from the start, and no request the server would refuse.
	if !slices.Equal(statuses, []bool{false, false}) {
		t.Errorf("chat calls offered native tools: %v", statuses)
	}
	for _, r := range reqs {
		if r.Chat != nil && len(r.Chat.Tools) > 0 {
			t.Error("a request with native tools went to a model without them")
		}
	}
	golden(t, f.srv, "text_tool_fallback")
	// The engine stays in text mode for the session.
	f.model.on(kindChat, ollamatest.Reply{Content: "Still Sunday."})
	f.ask(t, "and what day is it again please")
	last := f.srv.Chats()[len(f.srv.Chats())-1]
	if len(last.Tools) != 0 || !strings.Contains(last.Messages[0].Content, "```tool_call") {
		t.Error("the next reply went back to native tools")
	}
}

func TestGoldenDuplicateCallSuppressed(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	call := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "check_timers", Arguments: map[string]any{}}}}
	f.model.json(kindPlanner, `{"steps": ["check_timers: list them", "reply"]}`).
		json(kindRouter, `{"tools": ["check_timers"]}`).
		on(kindChat, call, call, ollamatest.Reply{Content: "You have no timers running."})
	_, said, err := f.ask(t, "tell me about my timers please")
	if err != nil || !slices.Equal(said, []string{"You have no timers running."}) {
		t.Fatalf("said %q, err %v", said, err)
	}
	last := f.srv.Chats()[len(f.srv.Chats())-1].Messages
	if m := last[len(last)-1]; m.Role != "tool" || !strings.Contains(m.Content, "already called with these arguments") {
		t.Errorf("the repeated call got %+v", m)
	}
	golden(t, f.srv, "duplicate_call")
}

func TestGoldenMalformedContent(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).
		on(kindChat, ollamatest.Reply{Content: `{"temperature": 12, "unit": "C", "conditions": "sun`})
	_, said, _ := f.ask(t, "tell me something about the sun")
	if !slices.Equal(said, []string{trouble}) {
		t.Errorf("said %q, want only %q", said, trouble)
	}
	golden(t, f.srv, "malformed")
}

func TestGoldenOutOfTurns(t *testing.T) {
	f := newFixture(t, smallModel, Options{MaxTurns: 3})
	f.model.json(kindPlanner, `{"steps": ["calculate: the sums", "reply"]}`).
		json(kindRouter, `{"tools": ["calculate"]}`).
		json(kindLoop, "I couldn't finish all of that. So far: two plus two is four, and three plus three is six.")
	for i := range 3 {
		n := float64(i + 2)
		f.model.on(kindChat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "calculate", Arguments: map[string]any{"a": n, "operation": "add", "b": n}}}})
	}
	_, said, err := f.ask(t, "add up every pair of numbers you can think of")
	// The caveat and what was found is a reply: no error.
	if err != nil || len(said) != 2 || said[0] != "I couldn't finish all of that." {
		t.Errorf("said %q, err %v", said, err)
	}
	golden(t, f.srv, "out_of_turns")
}

func TestGoldenCompoundSplit(t *testing.T) {
	f := newFixture(t, textModel, Options{})
	f.model.json(kindPlanner, `{"steps": []}`).
		json(kindRouter, `{"tools": ["get_current_time", "calculate"]}`).
		on(kindChat,
			ollamatest.Reply{Content: "```tool_call\n{\"name\": \"get_current_time\", \"arguments\": {}}\n```"},
			ollamatest.Reply{Content: "```tool_call\n{\"name\": \"calculate\", \"arguments\": {\"a\": 12, \"operation\": \"multiply\", \"b\": 4}}\n```"},
			ollamatest.Reply{Content: "It's 10:15, and twelve times four is forty-eight."})
	_, said, err := f.ask(t, "tell me the current time and work out twelve times four")
	if err != nil || len(said) != 1 {
		t.Fatalf("said %q, err %v", said, err)
	}
	chats := f.srv.Chats()
	first := chats[len(chats)-2].Messages
	if m := first[len(first)-1]; !strings.Contains(m.Content, `You have answered 1 of 2 parts of the request. Still open: "work out twelve times four".`) {
		t.Errorf("after the first result: %q", m.Content)
	}
	golden(t, f.srv, "compound_split")
}

func TestGoldenCarryOverAfterFailedTool(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	f.model.json(kindPlanner, `{"steps": ["get_weather: tomorrow", "reply"]}`).
		json(kindRouter, `{"tools": ["get_weather"]}`).
		on(kindChat,
			ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "get_weather", Arguments: map[string]any{"day": "tomorrow"}}}},
			ollamatest.Reply{Content: "For which city would you like the forecast?"})
	if _, said, _ := f.ask(t, "should I bring an umbrella tomorrow"); !slices.Equal(said, []string{"For which city would you like the forecast?"}) {
		t.Fatalf("first turn said %q", said)
	}
	// The follow-up supplies the city; the router misses the weather tool,
	// but the failed call carries it over.
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).
		on(kindChat, ollamatest.Reply{Content: "Got it, Lisbon."})
	f.ask(t, "I am in Lisbon")
	last := f.srv.Chats()[len(f.srv.Chats())-1]
	var offered []string
	for _, tl := range last.Tools {
		offered = append(offered, tl.Function.Name)
	}
	if !slices.Contains(offered, "get_weather") {
		t.Errorf("offered %v, want the failed get_weather carried over", offered)
	}
	golden(t, f.srv, "carry_over")
}

func TestGoldenRedaction(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	secrets := []string{"bob@example.com", "4111 1111 1111 1111", "+49 30 1234567", "hunter2", "DE89 3704 0044 0532 0130 00"}
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).
		on(kindChat, ollamatest.Reply{Content: "I won't keep card numbers, but I noted the rest."})
	q := "please note bob@example.com, card 4111 1111 1111 1111, phone +49 30 1234567, my password is hunter2, iban DE89 3704 0044 0532 0130 00"
	if _, _, err := f.ask(t, q); err != nil {
		t.Fatal(err)
	}
	golden(t, f.srv, "redaction")
	for _, r := range f.srv.Requests() {
		for _, s := range secrets {
			if bytes.Contains(r.Body, []byte(s)) {
				t.Errorf("a request to the model holds %q", s)
			}
		}
	}
	for _, s := range secrets {
		if strings.Contains(f.log.String(), s) {
			t.Errorf("the log holds %q", s)
		}
	}
	got, _ := f.db.Dialogue().Recent(t.Context(), clock.Add(-time.Hour), 5)
	if len(got) != 1 || !strings.Contains(got[0].User, "[EMAIL_1]") {
		t.Fatalf("stored %+v", got)
	}
	for _, s := range secrets {
		if strings.Contains(got[0].User, s) {
			t.Errorf("the stored exchange holds %q", s)
		}
	}
	dir := f.db.Dir()
	f.db.Close()
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(path)
			for _, s := range secrets {
				if bytes.Contains(b, []byte(s)) {
					t.Errorf("%s holds %q", path, s)
				}
			}
		}
		return nil
	})
}

// Behaviour beyond the golden files.

func TestOfflinePathNeedsNoModel(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	res, said, err := f.ask(t, "set a timer for 5 minutes")
	if err != nil || !slices.Equal(said, []string{"Timer set for 5 minutes."}) || !res.Offline || res.Timings.ModelCalls != 0 {
		t.Errorf("said %q, result %+v, err %v", said, res, err)
	}
	if len(f.srv.Requests()) != 0 {
		t.Errorf("the model server was asked: %d requests", len(f.srv.Requests()))
	}
}

func TestConversationCache(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	f.model.json(kindPlanner, `{"steps": ["get_current_time: now", "reply"]}`).json(kindRouter, `{"tools": ["get_current_time"]}`).
		on(kindChat, ollamatest.Reply{Content: "It is morning."}, ollamatest.Reply{Content: "Still morning."})
	f.ask(t, "is it still morning over here")
	f.ask(t, "is it still morning over here")
	got := kinds(f.srv)
	if !slices.Equal(got, []string{kindPlanner, kindRouter, kindChat, kindChat}) {
		t.Errorf("calls %v: the repeated query should reuse the plan and the router's pick", got)
	}
	// stop ends the conversation and empties the cache.
	f.ask(t, "stop")
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).on(kindChat, ollamatest.Reply{Content: "Yes."})
	f.ask(t, "is it still morning over here")
	planners := 0
	for _, k := range kinds(f.srv) {
		if k == kindPlanner {
			planners++
		}
	}
	if planners != 2 {
		t.Errorf("calls %v: after stop the planner should be asked again", kinds(f.srv))
	}
}

func TestRouterFallbackIsNotCached(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	f.model.json(kindPlanner, `{"steps": []}`).json(kindRouter, "no idea").json(kindRouter, `{"tools": []}`).
		on(kindChat, ollamatest.Reply{Content: "One."}, ollamatest.Reply{Content: "Two."})
	f.ask(t, "will there be rain in the forecast tomorrow")
	first := f.srv.Chats()[len(f.srv.Chats())-1]
	f.ask(t, "will there be rain in the forecast tomorrow")
	second := f.srv.Chats()[len(f.srv.Chats())-1]
	var offered []string
	for _, tl := range first.Tools {
		offered = append(offered, tl.Function.Name)
	}
	// The router's failure falls back to the best tools by keyword, never
	// to every tool, and that guess is not remembered: the router is asked
	// again. (What was offered stays on offer in the conversation.)
	routers := 0
	for _, k := range kinds(f.srv) {
		if k == kindRouter {
			routers++
		}
	}
	if !slices.Contains(offered, "get_weather") || len(offered) > Handful+2 || routers != 2 || len(second.Tools) != len(first.Tools) {
		t.Errorf("offered %v then %d tools, router asked %d times: want the keyword pick, not every tool, and the router asked again",
			offered, len(second.Tools), routers)
	}
}

func TestRecallGate(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	f.db.Dialogue().Append(t.Context(), storage.Exchange{At: clock.Add(-time.Minute), Conversation: "c", User: "weather in Lisbon", Assistant: "Sunny.",
		Tools: []storage.ToolRecord{{Name: "get_weather", Arguments: map[string]any{"location": "Lisbon"}, Result: `{"message": "In Lisbon it is sunny and 18 degrees."}`}}})
	f.model.on(kindChat, ollamatest.Reply{Content: "Yes, sunny in Lisbon."})
	f.ask(t, "sunny in Lisbon")
	if slices.Contains(kinds(f.srv), kindExtract) {
		t.Errorf("calls %v: memory was searched though the tool result covers the query", kinds(f.srv))
	}
}

func TestPlannerSeesUnreachableServerOnce(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	c, _ := llm.New(llm.Options{Host: deadHost(t), Model: "x"})
	f.eng.o.Model, f.eng.o.Aux, f.eng.o.Info = c, c, nil
	start := time.Now()
	_, said, err := f.ask(t, "who wrote the novel Dune")
	if !errors.Is(err, llm.ErrUnreachable) || !slices.Equal(said, []string{"I didn't understand that, and I can't reach my language model right now."}) {
		t.Errorf("said %q, err %v", said, err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("took %v: the unreachable server should be given up on at the first call", time.Since(start))
	}
	_, said, _ = f.ask(t, "what's 12 times 4")
	if !slices.Equal(said, []string{"12 times 4 is 48."}) {
		t.Errorf("offline with the server down: %q", said)
	}
}

func TestSearchToolsWidensTheSet(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).
		on(kindChat,
			ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: SearchTools, Arguments: map[string]any{"query": "timer"}}}},
			ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration": "PT3M"}}}},
			ollamatest.Reply{Content: "Your egg timer is running."})
	_, said, err := f.ask(t, "watch my boiled eggs for three minutes")
	if err != nil || !slices.Equal(said, []string{"Your egg timer is running."}) {
		t.Fatalf("said %q, err %v", said, err)
	}
	chats := f.srv.Chats()
	var before, after []string
	for _, tl := range chats[1].Tools {
		before = append(before, tl.Function.Name)
	}
	for _, tl := range chats[2].Tools {
		after = append(after, tl.Function.Name)
	}
	if slices.Contains(before, "set_timer") || !slices.Contains(after, "set_timer") {
		t.Errorf("tools before %v, after %v", before, after)
	}
}

func TestSearchToolsIsCapped(t *testing.T) {
	f := newFixture(t, smallModel, Options{ToolSearchMax: 1})
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).
		on(kindChat,
			ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: SearchTools, Arguments: map[string]any{"query": "volume"}}}},
			ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: SearchTools, Arguments: map[string]any{"query": "memory"}}}},
			ollamatest.Reply{Content: "Done."})
	f.ask(t, "do something clever with the volume")
	last := f.srv.Chats()[len(f.srv.Chats())-1].Messages
	if m := last[len(last)-1]; !strings.Contains(m.Content, "no more tool searches") {
		t.Errorf("second search got %q", m.Content)
	}
}

func TestTextModeRunsPlanStepsDirectly(t *testing.T) {
	f := newFixture(t, textModel, Options{})
	f.model.json(kindPlanner, `{"steps": ["get_current_time: the time", "calculate: 12 times 4", "reply"]}`).
		json(kindRouter, `{"tools": []}`).
		json(kindResolve, `{"name": "get_current_time", "arguments": {"detail": "time"}}`).
		json(kindResolve, `{"name": "calculate", "arguments": {"a": 12, "operation": "multiply", "b": 4}}`).
		on(kindChat, ollamatest.Reply{Content: "It's 10:15 and the answer is 48."})
	_, said, err := f.ask(t, "what's the time and what is twelve times four")
	if err != nil || !slices.Equal(said, []string{"It's 10:15 and the answer is 48."}) {
		t.Fatalf("said %q, err %v", said, err)
	}
	if got := kinds(f.srv); !slices.Equal(got, []string{kindPlanner, kindRouter, kindResolve, kindResolve, kindChat}) {
		t.Errorf("calls %v: the chat model should only be asked for the final answer", got)
	}
	final := f.srv.Chats()[4].Messages
	if m := final[len(final)-1]; !strings.Contains(m.Content, "[Tool result: calculate]") || !strings.Contains(m.Content, "All planned steps are done") {
		t.Errorf("final nudge %q", m.Content)
	}
}

func TestSpeaksFirstSentenceWhileStreaming(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	gate := make(chan struct{})
	f.model.json(kindRouter, `{"tools": []}`).
		on(kindChat, ollamatest.Reply{Content: "It is sunny today. Highs of twelve degrees this afternoon.", Gate: gate, GateAfter: 5})
	var said []string
	_, err := f.eng.Reply(t.Context(), Query{Text: "weather talk"}, func(s string) {
		said = append(said, s)
		if len(said) == 1 {
			close(gate) // only now may the model go on
		}
	})
	if err != nil || len(said) != 2 {
		t.Errorf("said %q, err %v", said, err)
	}
}

func TestThinkingIsKeptAndNotSpoken(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	f.model.json(kindPlanner, `{"steps": ["get_current_time: now", "reply"]}`).json(kindRouter, `{"tools": ["get_current_time"]}`).
		on(kindChat,
			ollamatest.Reply{Thinking: "I should check the clock.", ToolCalls: []ollamatest.ToolCall{{Name: "get_current_time"}}},
			ollamatest.Reply{Content: "It is quarter past ten."})
	_, said, _ := f.ask(t, "what time do you make it")
	if !slices.Equal(said, []string{"It is quarter past ten."}) {
		t.Errorf("said %q", said)
	}
	last := f.srv.Chats()[len(f.srv.Chats())-1].Messages
	found := false
	for _, m := range last {
		found = found || m.Thinking == "I should check the clock."
	}
	if !found {
		t.Error("thinking was not kept in the history")
	}
}

func TestMarkdownIsNotSpoken(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	f.model.on(kindChat, ollamatest.Reply{Content: "## Answer\nHere are **two** things:\n1. First *thing*.\n2. Second `thing`."})
	_, said, _ := f.ask(t, "tell me two things about you")
	if strings.Join(said, " ") != "Answer Here are two things: First thing. Second thing." {
		t.Errorf("said %q", said)
	}
}

func TestFailuresAreSpoken(t *testing.T) {
	tests := []struct {
		name  string
		reply ollamatest.Reply
		o     Options
		want  error
		say   string
	}{
		{name: "cut", reply: ollamatest.Reply{Content: "Half an", Fault: ollamatest.DropMidStream, DropAfter: 1}, want: llm.ErrStreamCut, say: "I lost the connection to my language model."},
		{name: "500", reply: ollamatest.Reply{Fault: ollamatest.ServerError}, want: llm.ErrServerFailed, say: "Something went wrong with my language model."},
		{name: "runner died", reply: ollamatest.Reply{Content: "Half an answer", Fault: ollamatest.StreamError, DropAfter: 1, Error: "llama runner process has terminated"},
			want: llm.ErrServerFailed, say: "Something went wrong with my language model."},
		{name: "slow", reply: ollamatest.Reply{Content: "late", FirstTokenDelay: 5 * time.Second}, o: Options{ChatTimeout: 50 * time.Millisecond}, want: context.DeadlineExceeded, say: "My language model took too long to answer."},
		{name: "empty", reply: ollamatest.Reply{Content: ""}, say: "Sorry, I have no answer to that."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, smallModel, tt.o)
			f.model.on(kindChat, tt.reply)
			_, said, err := f.ask(t, "hello there you")
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if len(said) == 0 || said[len(said)-1] != tt.say {
				t.Errorf("said %q, want it to end with %q", said, tt.say)
			}
			got, _ := f.db.Dialogue().Recent(t.Context(), clock.Add(-time.Minute), 5)
			if len(got) != 1 || !got[0].Failed {
				t.Errorf("stored %+v, want the exchange marked failed", got)
			}
		})
	}
}

func TestCancelledReplySaysNothingMore(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	gate := make(chan struct{})
	f.model.json(kindRouter, `{"tools": []}`).on(kindChat, ollamatest.Reply{Content: "First part here. Second part.", Gate: gate, GateAfter: 4})
	ctx, cancel := context.WithCancel(t.Context())
	var said []string
	_, err := f.eng.Reply(ctx, Query{Text: "story"}, func(s string) {
		said = append(said, s)
		cancel()
	})
	if !errors.Is(err, context.Canceled) || !slices.Equal(said, []string{"First part here."}) {
		t.Errorf("said %q, err %v", said, err)
	}
	f.srv.Quiet()
	reqs := f.srv.Requests()
	if !reqs[len(reqs)-1].Cancelled {
		t.Error("the model request was not cancelled")
	}
}

func TestSizeAwarePrompts(t *testing.T) {
	small := newFixture(t, smallModel, Options{})
	small.model.json(kindRouter, `{"tools": ["get_current_time"]}`).on(kindChat, ollamatest.Reply{Content: "Hi."})
	small.ask(t, "hey there how are you")
	large := newFixture(t, largeModel, Options{})
	large.model.json(kindRouter, `{"tools": ["get_current_time"]}`).on(kindChat, ollamatest.Reply{Content: "Hi."})
	large.ask(t, "hey there how are you")
	sys := func(f *fixture) string { c := f.srv.Chats(); return c[len(c)-1].Messages[0].Content }
	if !strings.Contains(sys(small), "Never use tools for greetings") || strings.Contains(sys(small), "whenever they give a better") {
		t.Errorf("small prompt:\n%s", sys(small))
	}
	if strings.Contains(sys(large), "Never use tools for greetings") || !strings.Contains(sys(large), "whenever they give a better") {
		t.Errorf("large prompt:\n%s", sys(large))
	}
	if got := parseSize("gemma3n:e2b"); got != 2 {
		t.Errorf("parseSize(e2b) = %v", got)
	}
	if got := parseSize("270M"); got != 0.27 {
		t.Errorf("parseSize(270M) = %v", got)
	}
}

// TestPromptPrefixIsStableAcrossCallsAndTurns: the system prompt is
// byte-identical in every chat call of a reply and of a conversation; the
// time rides in front of the user's words, current each turn; and each
// turn's prompt begins with the previous turn's messages, byte for byte, so
// a server's prompt cache reuses all of them. The golden file shows the
// exact prompts.
func TestPromptPrefixIsStableAcrossCallsAndTurns(t *testing.T) {
	now := clock
	f := newFixture(t, smallModel, Options{Now: func() time.Time { return now }, PlannerOff: true})
	f.model.json(kindRouter, `{"tools": ["check_timers"]}`).
		on(kindChat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "check_timers"}}}, ollamatest.Reply{Content: "Nothing is ticking."})
	f.ask(t, "anything ticking away in the kitchen")
	now = now.Add(90 * time.Second)
	f.model.json(kindRouter, `{"tools": ["check_timers"]}`).on(kindChat, ollamatest.Reply{Content: "Then I will wait."})
	f.ask(t, "and in the hall, anything there")
	var chats []ollamatest.ChatRequest
	for _, c := range f.srv.Chats() {
		if replytest.KindOf(c) == kindChat {
			chats = append(chats, c)
		}
	}
	if len(chats) != 3 {
		t.Fatalf("%d chat calls, want 3: %v", len(chats), kinds(f.srv))
	}
	for _, c := range chats[1:] {
		if c.Messages[0].Content != chats[0].Messages[0].Content {
			t.Errorf("the system prompt changed between calls:\n%s\n%s", chats[0].Messages[0].Content, c.Messages[0].Content)
		}
		for _, m := range c.Messages[1:] {
			if m.Role == "system" {
				t.Error("a call with a second system message")
			}
		}
	}
	first, second := chats[0].Messages, chats[2].Messages
	same := func(a, b ollamatest.Message) bool {
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		return bytes.Equal(x, y)
	}
	if len(second) < len(first)+2 || !slices.EqualFunc(second[:len(first)], first, same) {
		t.Errorf("the second turn does not start with the first turn's messages:\n%v\n%v", first, second)
	}
	if !strings.HasPrefix(first[len(first)-1].Content, "[Now: Sunday 22 November 2026, 10:15 (CET). Place: Berlin.]\n") ||
		!strings.HasPrefix(second[len(second)-1].Content, "[Now: Sunday 22 November 2026, 10:16 (CET). Place: Berlin.]\n") {
		t.Errorf("each user message carries its own time:\n%q\n%q", first[len(first)-1].Content, second[len(second)-1].Content)
	}
	golden(t, f.srv, "two_turns")
}

func TestDiaryWrittenWhenConversationEnds(t *testing.T) {
	now := clock
	f := newFixture(t, smallModel, Options{Now: func() time.Time { return now }})
	f.model.on(kindChat, ollamatest.Reply{Content: "Lisbon is lovely in April."}, ollamatest.Reply{Content: "Hello again."}).
		json(kindDiary, `{"summary": "The user asked about visiting Lisbon in April.", "keywords": ["lisbon", "april", "travel"]}`)
	res1, _, _ := f.ask(t, "is Lisbon nice in April")
	now = now.Add(10 * time.Minute) // the conversation lapses
	f.ask(t, "hello there again")
	f.eng.Close()
	got, _ := f.db.Diary().Search(t.Context(), []string{"lisbon"}, time.Time{}, time.Time{}, 5)
	if len(got) != 1 || got[0].Conversation != res1.Conversation || !got[0].Date.Equal(clock) {
		t.Errorf("diary %+v", got)
	}
}

func TestStorageFailureDoesNotBreakTheReply(t *testing.T) {
	f := newFixture(t, smallModel, Options{Dialogue: brokenDialogue{}})
	f.model.on(kindChat, ollamatest.Reply{Content: "Still here."})
	_, said, err := f.ask(t, "are you still there")
	if err != nil || !slices.Equal(said, []string{"Still here."}) {
		t.Errorf("said %q, err %v", said, err)
	}
	if !strings.Contains(f.log.String(), "store exchange failed") || strings.Contains(f.log.String(), "are you still there") {
		t.Errorf("log %q: want the failure, not the words", f.log.String())
	}
}

type brokenDialogue struct{}

func (brokenDialogue) Append(context.Context, storage.Exchange) error {
	return errors.New("no space left on device")
}
func (brokenDialogue) Recent(context.Context, time.Time, int) ([]storage.Exchange, error) {
	return nil, errors.New("no space left on device")
}
func (brokenDialogue) RecentIn(context.Context, string, time.Time, int) ([]storage.Exchange, error) {
	return nil, errors.New("no space left on device")
}

func TestValidationRetryThenAsk(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	bad := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "calculate", Arguments: map[string]any{"a": 3.0, "operation": "times", "b": 4.0}}}}
	f.model.json(kindPlanner, `{"steps": ["calculate: 3 by 4", "reply"]}`).json(kindRouter, `{"tools": ["calculate"]}`).on(kindChat, bad, bad)
	res, said, err := f.ask(t, "three by four is what")
	if err != nil || !slices.Equal(said, []string{"Which one do you mean: add, subtract, multiply, divide, power, percent or something else?"}) || !res.FollowUp {
		t.Errorf("said %q, follow-up %v, err %v", said, res.FollowUp, err)
	}
	last := f.srv.Chats()[len(f.srv.Chats())-1].Messages
	if m := last[len(last)-1]; !strings.Contains(m.Content, "Valid values for operation: add, subtract, multiply, divide, power, percent, root") {
		t.Errorf("retry message %q", m.Content)
	}
}

func TestToolDigestWhenAsked(t *testing.T) {
	f := newFixture(t, smallModel, Options{ToolDigest: On})
	f.model.json(kindPlanner, `{"steps": ["device_status: all", "reply"]}`).json(kindRouter, `{"tools": ["device_status"]}`).
		on(kindChat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "device_status", Arguments: map[string]any{"detail": "all"}}}},
			ollamatest.Reply{Content: "All is well."}).
		json(kindTool, "According to the device_status tool, Hark runs version test.")
	f.ask(t, "give me a full report on yourself")
	// device_status's result is short: passed through, no digest call.
	if slices.Contains(kinds(f.srv), kindTool) {
		t.Errorf("a short result was digested: %v", kinds(f.srv))
	}
}

// TestCommandsHearTheUtterancesLanguage: the language speech recognition
// detected reaches the command as its primary code.
func TestCommandsHearTheUtterancesLanguage(t *testing.T) {
	var heard []string
	reg := command.NewRegistry(command.Options{})
	err := reg.Register(&command.Command{Name: "which_language", Description: "Notes the language.",
		Intents:    []string{"HassGetCurrentTime"},
		FromIntent: func(context.Context, command.Match) (command.Claim, error) { return command.Claim{}, nil },
		Run: func(_ context.Context, c command.Call) (command.Response, error) {
			heard = append(heard, c.Language)
			return command.Response{Spoken: "Ja."}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, smallModel, Options{Commands: reg})
	for _, q := range []Query{{Text: "wie spät ist es", Language: "de-CH"}, {Text: "wie spät ist es", Language: "DE"}, {Text: "what time is it"}} {
		if _, err := f.eng.Reply(t.Context(), q, func(string) {}); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(heard, []string{"de", "de", "en"}) {
		t.Errorf("languages heard %q", heard)
	}
}

// TestClockBehindNeverLosesAnExchange: on a board whose clock booted
// behind (1970, before NTP), yesterday's conversation is not reopened, the
// new exchange is the history of the next question, and after NTP steps
// the clock (the box restamps this start's exchanges) the conversation
// goes on. Before, exchanges were keyed by wall time: the old conversation
// was reopened and the new exchange lost from the history.
func TestClockBehindNeverLosesAnExchange(t *testing.T) {
	now := clock
	f := newFixture(t, smallModel, Options{Now: func() time.Time { return now }, PlannerOff: true})
	f.model.on(kindChat, ollamatest.Reply{Content: "Lisbon is lovely."}, ollamatest.Reply{Content: "It is sunny."},
		ollamatest.Reply{Content: "Pack a hat."}, ollamatest.Reply{Content: "Bring water."})
	yesterday, _, _ := f.ask(t, "tell me about Lisbon")
	now = time.Unix(5, 0) // the board restarts, its clock behind
	first, _, _ := f.ask(t, "what is the weather in Porto")
	now = now.Add(time.Minute)
	second, _, _ := f.ask(t, "and tomorrow")
	if first.Conversation == yesterday.Conversation || second.Conversation != first.Conversation {
		t.Fatalf("conversations %q, %q, %q: want a new one, continued", yesterday.Conversation, first.Conversation, second.Conversation)
	}
	step := clock.Add(24 * time.Hour).Sub(now)
	if n, err := f.db.Dialogue().Restamp(t.Context(), step); err != nil || n != 3 {
		t.Fatalf("restamp: %d %v", n, err) // this store's every exchange was made since it opened
	}
	now = now.Add(step).Add(30 * time.Second)
	third, _, _ := f.ask(t, "should I take a hat")
	if third.Conversation != first.Conversation {
		t.Errorf("after NTP's step: conversation %q, want %q", third.Conversation, first.Conversation)
	}
	var chats []ollamatest.ChatRequest
	for _, c := range f.srv.Chats() {
		if replytest.KindOf(c) == kindChat {
			chats = append(chats, c)
		}
	}
	last := chats[len(chats)-1].Messages
	var history []string
	for _, m := range last {
		if m.Role == "user" {
			history = append(history, m.Content[strings.Index(m.Content, "\n")+1:])
		}
	}
	if want := []string{"what is the weather in Porto", "and tomorrow", "should I take a hat"}; !slices.Equal(history, want) {
		t.Errorf("the model saw %q, want %q", history, want)
	}
}
