package box

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/redact"
	"github.com/harkbox/hark/storage"
)

// keptTurns is how many turns the live view keeps.
const keptTurns = 50

// turnLog is the last turns of talk, spoken and typed, for the page's live
// view; and, for a spoken turn, the exchange the reply engine wrote, held
// until the pipeline says how much of the reply was said.
type turnLog struct {
	dialogue *storage.Dialogue
	log      func(msg string, args ...any)

	mu      sync.Mutex
	turns   []control.Turn
	replies map[uint64]replied // by voice turn, until the turn is over
	typed   int
}

// replied is what the reply of a voice turn left for its record.
type replied struct {
	firstToken time.Duration
	sentences  []string
	held       *heldExchange
}

func newTurnLog(d *storage.Dialogue, warn func(msg string, args ...any)) *turnLog {
	return &turnLog{dialogue: d, log: warn, replies: map[uint64]replied{}}
}

var _ control.Turns = (*turnLog)(nil)

// Turns lists the kept turns, oldest first.
func (l *turnLog) Turns(context.Context) ([]control.Turn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.turns), nil
}

func (l *turnLog) add(t control.Turn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.turns = append(l.turns, t)
	if len(l.turns) > keptTurns {
		l.turns = slices.Delete(l.turns, 0, len(l.turns)-keptTurns)
	}
}

// replied notes what the reply of voice turn id left: its timings and
// sentences, and the exchange held for the turn's end.
func (l *turnLog) replied(id uint64, res any, held *heldExchange) {
	r := replied{held: held}
	if rr, ok := res.(reply.Result); ok {
		r.firstToken, r.sentences = rr.Timings.FirstToken, rr.Sentences
	}
	l.mu.Lock()
	l.replies[id] = r
	l.mu.Unlock()
}

// voice records a voice turn that is over, and writes the exchange its
// reply left with only what was said of it.
func (l *turnLog) voice(ctx context.Context, t voice.Turn) {
	l.mu.Lock()
	r := l.replies[t.ID]
	delete(l.replies, t.ID)
	l.mu.Unlock()
	if err := r.held.write(ctx, l.dialogue, t, r.sentences); err != nil {
		l.log("the exchange was not kept", "turn_id", t.ID, "err", err)
	}
	var total time.Duration
	if t.FirstAudio > 0 {
		total = t.Endpoint + t.Transcribe + t.FirstAudio
	}
	l.add(control.Turn{ID: fmt.Sprintf("voice-%d", t.ID), At: t.Began, Source: "voice", Heard: t.Heard, Said: strings.Join(t.Said, " "),
		Cut: t.Cut, Error: t.Err, Endpoint: millis(t.Endpoint), Transcribe: millis(t.Transcribe), FirstToken: millis(r.firstToken),
		FirstAudio: millis(t.FirstAudio), Total: millis(total)})
}

// typedTurn records a question typed on the page or asked with hark ask.
func (l *turnLog) typedTurn(began time.Time, q string, res any, err error) {
	t := control.Turn{At: began, Source: "typed", Heard: q, Total: millis(time.Since(began))}
	if rr, ok := res.(reply.Result); ok {
		t.Said, t.FirstToken = strings.Join(rr.Sentences, " "), millis(rr.Timings.FirstToken)
	}
	if err != nil {
		t.Error = err.Error()
	}
	l.mu.Lock()
	l.typed++
	t.ID = fmt.Sprintf("typed-%d", l.typed)
	l.mu.Unlock()
	l.add(t)
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// heldExchange is the exchange of a voice turn, which the reply engine
// wrote before the reply was said: it is kept once the turn is over, with
// only the sentences that were said when a press cut the reply short.
type heldExchange struct {
	mu sync.Mutex
	x  *storage.Exchange
}

type heldKey struct{}

// holding is ctx whose exchange the dialogue holds in h.
func holding(ctx context.Context, h *heldExchange) context.Context {
	return context.WithValue(ctx, heldKey{}, h)
}

// write keeps the held exchange: cut to what was said when the turn was
// cut, whole otherwise. Nothing held writes nothing.
func (h *heldExchange) write(ctx context.Context, d *storage.Dialogue, t voice.Turn, sentences []string) error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	x := h.x
	h.x = nil
	h.mu.Unlock()
	if x == nil {
		return nil
	}
	if t.Cut && len(t.Said) < len(sentences) {
		x.Assistant = cut(x.Assistant, sentences, len(t.Said))
	}
	return d.Append(context.WithoutCancel(ctx), *x)
}

// cut is the stored reply text with only its first n sentences: the
// sentences themselves when the text is them as said, else (a secret in
// them was redacted) the n sentences redacted anew.
func cut(text string, sentences []string, n int) string {
	said := strings.Join(sentences[:n], " ")
	if text == strings.Join(sentences, " ") {
		return said
	}
	r, _ := redact.New().Redact(said)
	return r
}

// heardDialogue is the dialogue the reply engine writes to: an exchange of
// a voice turn is held until the turn is over (see heldExchange), every
// other one is written at once.
type heardDialogue struct{ *storage.Dialogue }

func (d heardDialogue) Append(ctx context.Context, x storage.Exchange) error {
	if h, ok := ctx.Value(heldKey{}).(*heldExchange); ok && h != nil {
		h.mu.Lock()
		h.x = &x
		h.mu.Unlock()
		return nil
	}
	return d.Dialogue.Append(ctx, x)
}
