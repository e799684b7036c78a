package reply

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/schedule"
)

type fixedMixer struct{ level int }

func (m *fixedMixer) Volume(context.Context) (int, bool, error) { return m.level, false, nil }
func (m *fixedMixer) SetVolume(_ context.Context, l int, _ bool) error {
	m.level = l
	return nil
}

type noStatus struct{}

func (noStatus) Status(context.Context) builtin.DeviceStatus { return builtin.DeviceStatus{Version: "test"} }

// withCommands gives the fixture's engine the built-in commands.
func withCommands(t testing.TB, f *fixture) *command.Registry {
	t.Helper()
	clock := func() time.Time { return clock }
	sched, _ := schedule.New(schedule.Options{Store: f.db.Schedule(), Now: clock, Location: berlin})
	reg := command.NewRegistry(command.Options{Now: clock, Location: berlin})
	if err := reg.Register(builtin.All(builtin.Deps{Schedule: sched, Mixer: &fixedMixer{level: 50}, Memory: f.db.Facts(), Status: noStatus{}})...); err != nil {
		t.Fatal(err)
	}
	f.eng.o.Commands = reg
	return reg
}

func TestOfflinePathNeedsNoModel(t *testing.T) {
	f := newFixture(t, Options{})
	withCommands(t, f)
	res, said, err := f.ask(t, "set a timer for 5 minutes")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(said, []string{"Timer set for 5 minutes."}) || !res.Offline || res.Timings.ModelCalls != 0 {
		t.Errorf("said %q, result %+v", said, res)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "set_timer" {
		t.Errorf("tools %+v", res.Tools)
	}
	if len(f.srv.Requests()) != 0 {
		t.Errorf("the model server was asked: %+v", f.srv.Requests())
	}
}

func TestNativeToolCall(t *testing.T) {
	f := newFixture(t, Options{})
	withCommands(t, f)
	f.srv.Enqueue(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "get_current_time", Arguments: map[string]any{"detail": "time"}}}},
		ollamatest.Reply{Content: "It's a quarter past ten, time for coffee."},
	)
	res, said, err := f.ask(t, "is it coffee time yet")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(said, []string{"It's a quarter past ten, time for coffee."}) || res.Timings.ModelCalls != 2 {
		t.Errorf("said %q, model calls %d", said, res.Timings.ModelCalls)
	}
	golden(t, f.srv, 1, "native_tool_call")
	chats := f.srv.Chats()
	if len(chats[0].Tools) != 16 {
		t.Errorf("offered %d tools, want the 16 built-ins", len(chats[0].Tools))
	}
}

func TestValidationRetryThenAsk(t *testing.T) {
	f := newFixture(t, Options{})
	withCommands(t, f)
	bad := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "calculate", Arguments: map[string]any{"a": 3.0, "operation": "times", "b": 4.0}}}}
	f.srv.Enqueue(bad, bad)
	res, said, err := f.ask(t, "three by four")
	if err != nil {
		t.Fatal(err)
	}
	want := "Which one do you mean: add, subtract, multiply, divide, power or percent?"
	if !slices.Equal(said, []string{want}) || !res.FollowUp {
		t.Errorf("said %q follow-up %v, want the user asked to choose", said, res.FollowUp)
	}
	chats := f.srv.Chats()
	if len(chats) != 2 {
		t.Fatalf("%d model calls, want the retry once", len(chats))
	}
	retry := chats[1].Messages[len(chats[1].Messages)-1]
	if retry.Role != "tool" || !strings.Contains(retry.Content, "Valid values for operation: add, subtract, multiply, divide, power, percent") {
		t.Errorf("tool result sent back: %+v", retry)
	}
}

func TestValidationRetrySucceeds(t *testing.T) {
	f := newFixture(t, Options{})
	withCommands(t, f)
	f.srv.Enqueue(
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "calculate", Arguments: map[string]any{"a": 3.0, "operation": "times", "b": 4.0}}}},
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "calculate", Arguments: map[string]any{"a": 3.0, "operation": "multiply", "b": 4.0}}}},
		ollamatest.Reply{Content: "Three by four is twelve."},
	)
	_, said, err := f.ask(t, "three by four")
	if err != nil || !slices.Equal(said, []string{"Three by four is twelve."}) {
		t.Errorf("said %q, err %v", said, err)
	}
	if got := f.srv.Chats()[2].Messages; !strings.Contains(got[len(got)-1].Content, `"result":12`) {
		t.Errorf("last tool result %+v", got[len(got)-1])
	}
}

func TestStopToolEndsConversation(t *testing.T) {
	f := newFixture(t, Options{})
	withCommands(t, f)
	f.srv.Enqueue(ollamatest.Reply{Content: "First answer."})
	f.ask(t, "tell me something")
	f.srv.Enqueue(ollamatest.Reply{Content: "I'll stop.", ToolCalls: []ollamatest.ToolCall{{Name: "stop"}}})
	_, said, _ := f.ask(t, "okay that will do for today")
	if !slices.Equal(said, []string{"I'll stop."}) {
		t.Errorf("said %q", said)
	}
	f.srv.Enqueue(ollamatest.Reply{Content: "Hello again."})
	res, _, _ := f.ask(t, "hello")
	if n := len(f.srv.Chats()[2].Messages); n != 2 {
		t.Errorf("after stop the next question carried %d messages, want a fresh conversation (2)", n)
	}
	if res.Conversation == "" {
		t.Error("no conversation id")
	}
}

func TestModelWithoutToolsIsAskedAgainWithout(t *testing.T) {
	f := newFixture(t, Options{})
	withCommands(t, f)
	f.srv.Enqueue(ollamatest.Reply{Fault: ollamatest.NoTools}, ollamatest.Reply{Content: "Hi there."})
	_, said, err := f.ask(t, "hi")
	if err != nil || !slices.Equal(said, []string{"Hi there."}) {
		t.Fatalf("said %q, err %v", said, err)
	}
	chats := f.srv.Chats()
	if len(chats) != 2 || len(chats[0].Tools) == 0 || len(chats[1].Tools) != 0 {
		t.Errorf("requests offered %d then %d tools", len(chats[0].Tools), len(chats[1].Tools))
	}
	f.srv.Enqueue(ollamatest.Reply{Content: "Still here."})
	f.ask(t, "again")
	if len(f.srv.Chats()[2].Tools) != 0 {
		t.Error("tools offered again to a model that refused them")
	}
}

func TestOutOfTurns(t *testing.T) {
	f := newFixture(t, Options{MaxTurns: 3})
	withCommands(t, f)
	f.srv.Respond(func(ollamatest.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "get_current_time"}}}
	})
	res, said, err := f.ask(t, "loop forever")
	if err == nil || !slices.Equal(said, []string{"Sorry, I couldn't finish that."}) || res.Timings.ModelCalls != 3 {
		t.Errorf("said %q, calls %d, err %v", said, res.Timings.ModelCalls, err)
	}
}

func TestUnreachableModelStillRunsOfflineCommands(t *testing.T) {
	f := newFixture(t, Options{})
	withCommands(t, f)
	c, _ := llm.New(llm.Options{Host: deadHost(t), Model: "x"})
	f.eng.o.Model = c
	_, said, err := f.ask(t, "what's 12 times 4")
	if err != nil || !slices.Equal(said, []string{"12 times 4 is 48."}) {
		t.Errorf("said %q, err %v", said, err)
	}
	_, said, err = f.ask(t, "who wrote Dune")
	if err == nil || !slices.Equal(said, []string{"I can't reach my language model right now."}) {
		t.Errorf("said %q, err %v", said, err)
	}
}
