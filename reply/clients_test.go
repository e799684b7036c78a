package reply

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/storage"
)

// echo answers every chat with the last words of its question, as the
// issue's test model did.
func echo(r ollamatest.ChatRequest) ollamatest.Reply {
	k := kindOf(r)
	if k != kindChat {
		return ollamatest.Reply{Content: map[string]string{kindPlanner: `{"steps": ["reply"]}`, kindRouter: `{"tools": []}`,
			kindExtract: `{"keywords": []}`, kindDiary: `{"summary": "A chat.", "keywords": ["chat"]}`}[k]}
	}
	last := r.Messages[len(r.Messages)-1].Content
	words := strings.Fields(last)
	return ollamatest.Reply{Content: "You said " + strings.Join(words[max(0, len(words)-3):], " ") + "."}
}

// echoing makes the fixture's server echo, answering at most limit calls
// at once, each after delay.
func (f *fixture) echoing(limit int, delay time.Duration) {
	f.srv.Limit(limit)
	f.srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
		rp := echo(r)
		rp.FirstTokenDelay = delay
		return rp
	})
}

func (f *fixture) askAs(t *testing.T, q Query) (Result, []string, error) {
	t.Helper()
	var said []string
	res, err := f.eng.Reply(t.Context(), q, func(s string) { said = append(said, s) })
	return res, said, err
}

// TestEachClientHasItsOwnConversation: the kitchen's words never reach
// the model in a phone's question, nor the phone's in the kitchen's; each
// goes on with its own history.
func TestEachClientHasItsOwnConversation(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	f.srv.Respond(echo)
	if _, _, err := f.askAs(t, Query{Text: "my locker combination is 4471 token VLEAK"}); err != nil {
		t.Fatal(err)
	}
	phone, _, err := f.askAs(t, Query{Text: "what is on the shopping list token ALEAK", Client: "ask:1"})
	if err != nil {
		t.Fatal(err)
	}
	kitchen, _, err := f.askAs(t, Query{Text: "and what was that number again"})
	if err != nil {
		t.Fatal(err)
	}
	chats := f.srv.Chats()
	var aleak, again ollamatest.ChatRequest
	for _, c := range chats {
		last := c.Messages[len(c.Messages)-1].Content
		switch {
		case strings.Contains(last, "ALEAK"):
			aleak = c
		case strings.Contains(last, "that number again"):
			again = c
		}
	}
	for _, m := range aleak.Messages {
		if strings.Contains(m.Content, "VLEAK") || strings.Contains(m.Content, "locker") || strings.Contains(m.Content, "SECRET") {
			t.Errorf("the phone's request carries the kitchen's words: %q", m.Content)
		}
	}
	var kitchenSaw []string
	for _, m := range again.Messages {
		kitchenSaw = append(kitchenSaw, m.Content)
	}
	all := strings.Join(kitchenSaw, "\n")
	if !strings.Contains(all, "locker") || strings.Contains(all, "ALEAK") {
		t.Errorf("the kitchen's second question went with %q: want its own history, not the phone's", all)
	}
	if phone.Conversation == kitchen.Conversation {
		t.Errorf("the phone and the kitchen share conversation %s", phone.Conversation)
	}
}

// TestFollowUpsAreTheClients: "make it 20 minutes" from a phone does not
// change the kitchen's timer; from the kitchen it does.
func TestFollowUpsAreTheClients(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	f.srv.Respond(echo)
	if res, _, err := f.askAs(t, Query{Text: "set a timer for 10 minutes"}); err != nil || !res.Offline {
		t.Fatalf("the timer: %v, offline %v", err, res.Offline)
	}
	res, said, err := f.askAs(t, Query{Text: "make it 20 minutes", Client: "ask:1"})
	if err != nil || res.Offline || len(res.Tools) != 0 {
		t.Errorf("the phone's \"make it 20 minutes\": offline %v, tools %v, said %q, err %v: want it not taken as the kitchen's", res.Offline, res.Tools, said, err)
	}
	if d := timerLength(t, f.db); d != 10*time.Minute {
		t.Errorf("the kitchen's timer is %v after the phone spoke, want 10m", d)
	}
	if res, _, err := f.askAs(t, Query{Text: "make it 20 minutes"}); err != nil || !res.Offline {
		t.Fatalf("the kitchen's own refinement: %v, offline %v", err, res.Offline)
	}
	if d := timerLength(t, f.db); d != 20*time.Minute {
		t.Errorf("the kitchen's timer is %v after it asked, want 20m", d)
	}
}

func timerLength(t *testing.T, db *storage.DB) time.Duration {
	t.Helper()
	items, err := db.Schedule().List(t.Context(), storage.Timer)
	if err != nil || len(items) != 1 {
		t.Fatalf("timers %+v, %v: want one", items, err)
	}
	return items[0].Duration
}

// TestContinueOnlyYourOwn: a client continues its own conversation by id,
// however long ago; another's is refused, an unknown one named.
func TestContinueOnlyYourOwn(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	f.srv.Respond(echo)
	first, _, err := f.askAs(t, Query{Text: "remember the blue bicycle", Client: "ask:1"})
	if err != nil {
		t.Fatal(err)
	}
	fresh, _, _ := f.askAs(t, Query{Text: "something else entirely", Client: "ask:2"})
	if fresh.Conversation == first.Conversation {
		t.Fatal("another client joined the first one's conversation")
	}
	again, _, err := f.askAs(t, Query{Text: "what colour was it", Client: "ask:1", Conversation: first.Conversation})
	chats := f.srv.Chats()
	last := chats[len(chats)-1].Messages
	if err != nil || again.Conversation != first.Conversation || !strings.Contains(last[1].Content, "blue bicycle") {
		t.Errorf("continuing: %v, conversation %s, messages %v", err, again.Conversation, last)
	}
	if _, _, err := f.askAs(t, Query{Text: "and me", Client: "ask:2", Conversation: first.Conversation}); !errors.Is(err, ErrNotYours) {
		t.Errorf("another's conversation: %v, want ErrNotYours", err)
	}
	if _, _, err := f.askAs(t, Query{Text: "hm", Client: "ask:1", Conversation: "c-nothing"}); !errors.Is(err, ErrNoConversation) {
		t.Errorf("an unknown conversation: %v, want ErrNoConversation", err)
	}
}

// TestOneAtATimeServer: a server that answers one chat at a time, six
// typed questions at once and the microphone's a moment later: all seven
// are answered, none too slow, though the budget is shorter than the
// queue; the microphone waits only for the answer under way (and a trial,
// from which the queue learns the server answers one at a time).
func TestOneAtATimeServer(t *testing.T) {
	q := llm.NewQueue(llm.QueueOptions{})
	f := newFixture(t, smallModel, Options{PlannerOff: true, Queue: q, ReplyBudget: 600 * time.Millisecond, ChatTimeout: 5 * time.Second})
	f.echoing(1, 250*time.Millisecond)
	var wg sync.WaitGroup
	var mu sync.Mutex
	results := map[string]Result{}
	errs := map[string]error{}
	ask := func(client, text string) {
		res, err := f.eng.Reply(t.Context(), Query{Text: text, Client: client}, func(string) {})
		mu.Lock()
		results[client], errs[client] = res, err
		mu.Unlock()
	}
	for i := range 6 {
		wg.Go(func() { ask("ask:"+string(rune('a'+i)), "tell me a fact about the number "+string(rune('1'+i))) })
	}
	time.Sleep(80 * time.Millisecond) // the microphone's question comes a moment later
	wg.Go(func() { ask(Microphone, "what is the weather like on the moon") })
	wg.Wait()
	for client, err := range errs {
		if err != nil {
			t.Errorf("%s: %v", client, err)
		}
	}
	mic := results[Microphone]
	var longest time.Duration
	for c, r := range results {
		if c != Microphone {
			longest = max(longest, r.Timings.Queued)
		}
	}
	t.Logf("the microphone waited %v; the longest typed wait %v; queue %+v", mic.Timings.Queued, longest, q.Status())
	if mic.Timings.Queued > 2*time.Second || mic.Timings.Queued > longest/2 {
		t.Errorf("the microphone waited %v, the longest typed question %v: want the microphone first", mic.Timings.Queued, longest)
	}
	if s := q.Status(); s.Parallel != 1 || s.InFlight != 0 || s.Waiting != 0 {
		t.Errorf("queue after the storm: %+v", s)
	}
}

// TestWaitingMicrophoneHearsALine: the microphone's question behind a
// long answer hears that the box is answering someone else, then its
// answer; a typed one is told through its Hold.
func TestWaitingMicrophoneHearsALine(t *testing.T) {
	q := llm.NewQueue(llm.QueueOptions{Parallel: 1})
	f := newFixture(t, smallModel, Options{PlannerOff: true, Queue: q})
	gate, answering := make(chan struct{}), make(chan struct{})
	f.srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
		rp := echo(r)
		if kindOf(r) == kindChat && strings.Contains(r.Messages[len(r.Messages)-1].Content, "long story") {
			rp.Tokens, rp.Gate, rp.GateAfter = []string{"Once upon a time.", " The", " end."}, gate, 1
			close(answering)
		}
		return rp
	})
	done := make(chan error)
	go func() {
		_, err := f.eng.Reply(t.Context(), Query{Text: "tell me a long story", Client: "ask:1"}, func(string) {})
		done <- err
	}()
	<-answering
	go func() { time.Sleep(1500 * time.Millisecond); close(gate) }()
	var holds []Hold
	type answer struct {
		said []string
		err  error
	}
	typed := make(chan answer)
	go func() {
		_, said, err := f.askAs(t, Query{Text: "tell me something nice", Client: "ask:2", Hold: func(h Hold) { holds = append(holds, h) }})
		typed <- answer{said, err}
	}()
	_, said, err := f.askAs(t, Query{Text: "is it raining"})
	ta := <-typed
	if err3 := <-done; err != nil || ta.err != nil || err3 != nil {
		t.Fatalf("microphone %v, typed %v, the long story %v", err, ta.err, err3)
	}
	if len(said) != 2 || said[0] != "One moment, I'm answering someone else." || !strings.HasPrefix(said[1], "You said") {
		t.Errorf("the microphone heard %q", said)
	}
	if len(holds) != 1 || holds[0].Why != ForTurn || holds[0].Ahead < 1 || strings.Contains(strings.Join(ta.said, " "), "moment") {
		t.Errorf("the typed question: holds %+v, said %q: want the wait told through its Hold", holds, ta.said)
	}
}

// TestOwnerAndLatest: the box finds whose a conversation is, and an
// asker's newest one, from the dialogue.
func TestOwnerAndLatest(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	f.srv.Respond(echo)
	a, _, _ := f.askAs(t, Query{Text: "first question here", Client: "ask:uid0:1"})
	b, _, _ := f.askAs(t, Query{Text: "second question here", Client: "ask:uid0:2"})
	f.askAs(t, Query{Text: "the kitchen speaks"})
	if c, err := f.eng.Owner(t.Context(), a.Conversation); err != nil || c != "ask:uid0:1" {
		t.Errorf("Owner: %q, %v", c, err)
	}
	if _, err := f.eng.Owner(t.Context(), "nope"); !errors.Is(err, ErrNoConversation) {
		t.Errorf("Owner of nothing: %v", err)
	}
	if c, id, ok := f.eng.Latest(t.Context(), "ask:uid0:"); !ok || c != "ask:uid0:2" || id != b.Conversation {
		t.Errorf("Latest: %q %q %v, want the second", c, id, ok)
	}
	if _, _, ok := f.eng.Latest(t.Context(), "ask:uid1000:"); ok {
		t.Error("Latest found another user's")
	}
}

// TestQueueLearnsAServerThatAnswersTogether: against a server that answers
// three chats at once, the trial turn runs alongside the first, and the
// queue lets two through from then on.
func TestQueueLearnsAServerThatAnswersTogether(t *testing.T) {
	q := llm.NewQueue(llm.QueueOptions{})
	f := newFixture(t, smallModel, Options{PlannerOff: true, Router: "keyword", Queue: q})
	f.echoing(3, 400*time.Millisecond)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			if _, err := f.eng.Reply(t.Context(), Query{Text: "say something", Client: "ask:" + string(rune('a'+i))}, func(string) {}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if s := q.Status(); s.Parallel != 2 || f.srv.MostAtOnce() < 2 {
		t.Errorf("queue %+v, the server answered at most %d at once: want two at once learned", s, f.srv.MostAtOnce())
	}
}
