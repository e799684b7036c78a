package box

import (
	"context"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/storage"
)

// TestCutReplyKeepsWhatWasSaid: a voice turn's exchange is held until the
// turn is over; a reply cut after its first sentence is kept with that
// sentence only (redacted anew when it held a secret); a whole reply is
// kept whole; a typed question is kept at once and logged as typed.
func TestCutReplyKeepsWhatWasSaid(t *testing.T) {
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	turns := newTurnLog(db.Dialogue(), t.Logf)
	d := heardDialogue{db.Dialogue()}
	ctx := t.Context()
	stored := func() []storage.Exchange {
		t.Helper()
		xs, err := db.Dialogue().Recent(ctx, time.Now().Add(-time.Hour), 10)
		if err != nil {
			t.Fatal(err)
		}
		return xs
	}
	for i, tc := range []struct {
		sentences []string
		text      string // as the engine stores it
		said      int
		cut       bool
		want      string
	}{
		{[]string{"Once upon a time.", "There was a cat.", "The end."}, "Once upon a time. There was a cat. The end.", 1, true, "Once upon a time."},
		{[]string{"Mail me at ann@example.com.", "Or call."}, "Mail me at [EMAIL_1]. Or call.", 1, true, "Mail me at [EMAIL_1]."},
		{[]string{"Hello.", "Bye."}, "Hello. Bye.", 2, false, "Hello. Bye."},
	} {
		id := uint64(i + 1)
		held := &heldExchange{}
		if err := d.Append(holding(ctx, held), storage.Exchange{At: time.Now(), User: "tell me", Assistant: tc.text}); err != nil {
			t.Fatal(err)
		}
		if n := len(stored()); n != i {
			t.Fatalf("turn %d: %d exchanges stored before the turn is over, want %d", id, n, i)
		}
		turns.replied(id, reply.Result{Sentences: tc.sentences, Timings: reply.Timings{FirstToken: 300 * time.Millisecond}}, held)
		turns.voice(ctx, voice.Turn{ID: id, Heard: "tell me", Said: tc.sentences[:tc.said], Cut: tc.cut, Endpoint: time.Second, FirstAudio: 800 * time.Millisecond})
		xs := stored()
		if len(xs) != i+1 || xs[i].Assistant != tc.want {
			t.Errorf("turn %d: stored %+v, want %q", id, xs, tc.want)
		}
	}
	if err := d.Append(context.Background(), storage.Exchange{At: time.Now(), User: "typed", Assistant: "At once."}); err != nil || len(stored()) != 4 {
		t.Errorf("an exchange outside a voice turn is not written at once: %v", err)
	}
	turns.typedTurn(time.Now(), "what time is it", reply.Result{Sentences: []string{"Nine."}}, nil)
	list, _ := turns.Turns(ctx)
	if len(list) != 4 || list[0].FirstToken != 300 || list[0].Said != "Once upon a time." || !list[0].Cut || list[3].Source != "typed" || list[3].Said != "Nine." {
		t.Errorf("the turns: %+v", list)
	}
	for range keptTurns {
		turns.typedTurn(time.Now(), "again", nil, nil)
	}
	if list, _ := turns.Turns(ctx); len(list) != keptTurns || list[0].Heard != "again" {
		t.Errorf("%d turns kept, want the last %d", len(list), keptTurns)
	}
}
