package reply

import (
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// rambling is an answer that never stops: sentences of eleven words, as a
// tiny model tells a story, streamed a word (a token) at a time.
func rambling(sentences int) string {
	return strings.Repeat("Once upon a time there was a little dog named Max. ", sentences)
}

// TestRamblingAnswerIsCapped: a model that never stops talking is asked
// for at most AnswerTokens (Ollama's num_predict); when its answer stops
// there, the reply ends at its last full sentence, at once, and not with
// the time-out's "took too long" after the whole chat time-out of talk.
// The time-out is far off, so that a busy machine never reaches it: an
// answer not capped would be all 30 sentences.
func TestRamblingAnswerIsCapped(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true, AnswerTokens: 40, ChatTimeout: time.Minute})
	f.model.on(kindChat, ollamatest.Reply{Content: rambling(30), TokenDelay: 10 * time.Millisecond})
	_, said, err := f.ask(t, "tell me a story about a dog")
	if err != nil {
		t.Fatalf("err = %v; said %q", err, said)
	}
	// 40 tokens are three sentences of eleven words and seven words of a
	// fourth, which is left unsaid.
	want := "Once upon a time there was a little dog named Max."
	if len(said) != 3 || said[0] != want || said[2] != want {
		t.Errorf("said %d sentences %q, want the 3 whole ones within 40 tokens", len(said), said)
	}
	var chat *ollamatest.ChatRequest
	for _, c := range f.srv.Chats() {
		if replytest.KindOf(c) == replytest.Chat {
			chat = &c
		}
	}
	if chat == nil || chat.Options["num_predict"] != float64(40) {
		t.Errorf("chat request %+v: want num_predict 40", chat)
	}
}

// TestCappedAnswerSaysSomething: an answer cut by the cap before its first
// sentence ended is said as far as it went, rather than nothing.
func TestCappedAnswerSaysSomething(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true, AnswerTokens: 6})
	f.model.on(kindChat, ollamatest.Reply{Content: "Well the thing about dogs is that they never stop wagging"})
	_, said, err := f.ask(t, "tell me about dogs")
	if err != nil || len(said) != 1 || said[0] != "Well the thing about dogs is" {
		t.Errorf("said %q, err %v; want the six tokens said", said, err)
	}
}

// TestThinkingIsNotCapped: a thinking model asked to reason spends its
// tokens on reasoning first: its answer is not bounded, so the cap never
// cuts the answer off before it begins.
func TestThinkingIsNotCapped(t *testing.T) {
	f := newFixture(t, thinkModel, Options{PlannerOff: true, Think: true})
	f.model.on(kindChat, ollamatest.Reply{Thinking: strings.Repeat("hmm ", 300), Content: "Dogs wag."})
	_, said, err := f.ask(t, "tell me about dogs")
	if err != nil || len(said) != 1 || said[0] != "Dogs wag." {
		t.Errorf("said %q, err %v", said, err)
	}
	for _, c := range f.srv.Chats() {
		if replytest.KindOf(c) == replytest.Chat {
			if _, ok := c.Options["num_predict"]; ok {
				t.Errorf("a thinking chat was bounded: options %v", c.Options)
			}
		}
	}
}

// TestCapCutsAWrittenCall: a call the model writes in its text, cut by the
// bound before it ends, is neither said nor run; what it said before it is.
func TestCapCutsAWrittenCall(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true, AnswerTokens: 7})
	f.model.on(kindChat, ollamatest.Reply{Content: "I will set that.\n{\"name\": \"set_timer\", \"arguments\": {\"duration\": \"PT5M\"}}"})
	res, said, err := f.ask(t, "tell me about dogs")
	if err != nil || len(said) != 1 || said[0] != "I will set that." || len(res.Tools) != 0 {
		t.Errorf("said %q, tools %v, err %v; want the lead-in alone", said, res.Tools, err)
	}
}

// TestModelsOwnBoundIsKept: a model whose Modelfile bounds its answers
// (num_predict) keeps the smaller of its bound and Hark's: Hark's
// num_predict, sent with every chat, would otherwise take its place. With
// no bound of Hark's the model's own applies. The server is asked about
// the model once, not at every turn.
func TestModelsOwnBoundIsKept(t *testing.T) {
	for _, tt := range []struct {
		name   string
		params string
		answer int
		sent   any // the chat's num_predict; nil for none
		said   int // sentences of eleven words
	}{
		{"the model's smaller", "num_predict 25\ntemperature 0", 0, float64(25), 2},
		{"Hark's smaller", "num_predict 25", 12, float64(12), 1},
		{"no bound of Hark's", "num_predict 25", -1, nil, 2},
		{"the model unbounded", "num_predict -1", 40, float64(40), 3},
		{"none set by the model", "temperature 0.2", 40, float64(40), 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := smallModel
			m.Parameters = tt.params
			f := newFixture(t, m, Options{PlannerOff: true, AnswerTokens: tt.answer})
			f.model.Default(kindChat, ollamatest.Reply{Content: rambling(30)})
			for range 2 {
				_, said, err := f.ask(t, "tell me a story about a dog")
				if err != nil || len(said) != tt.said {
					t.Errorf("said %d sentences %q, err %v; want %d", len(said), said, err, tt.said)
				}
			}
			shows := 0
			for _, r := range f.srv.Requests() {
				if r.Path == "/api/show" {
					shows++
				}
			}
			if shows != 1 {
				t.Errorf("the model was shown %d times, want once", shows)
			}
			for _, c := range f.srv.Chats() {
				if replytest.KindOf(c) == replytest.Chat && c.Options["num_predict"] != tt.sent {
					t.Errorf("chat options %v: want num_predict %v", c.Options, tt.sent)
				}
			}
		})
	}
}

// TestInlineReasoningIsNotCapped: a model that reasons in its answer's
// text (<think>…</think>) without declaring thinking spends the bound's
// tokens on its reasoning as a thinking model does: once it is seen to,
// its answers are not bounded, the one asked again at once included, so
// its reasoning no longer eats its answer.
func TestInlineReasoningIsNotCapped(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true, AnswerTokens: 20})
	f.model.Default(kindChat, ollamatest.Reply{Content: "<think> " + strings.Repeat("hmm ", 60) + "</think> Dogs wag."})
	for _, q := range []string{"tell me about dogs", "and about their tails"} {
		_, said, err := f.ask(t, q)
		if err != nil || len(said) != 1 || said[0] != "Dogs wag." {
			t.Errorf("%q: said %q, err %v; want the answer after the reasoning", q, said, err)
		}
	}
	var predict []any
	for _, c := range f.srv.Chats() {
		if replytest.KindOf(c) == replytest.Chat {
			predict = append(predict, c.Options["num_predict"])
		}
	}
	// The first answer, bounded, was reasoning only; the model was asked
	// again, unbounded, and the next turn's answer is unbounded too.
	if len(predict) != 3 || predict[0] != float64(20) || predict[1] != nil || predict[2] != nil {
		t.Errorf("the chats' num_predict = %v, want [20 <nil> <nil>]", predict)
	}
}
