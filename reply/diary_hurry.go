package reply

import (
	"context"
	"sync"
	"time"

	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/distil"
	"github.com/harkbox/hark/reply/llm"
)

// CatchUpFor is CatchUp for about d, for a process that answers once and
// exits (hark ask without the daemon). When d is up no entry, nor part of
// one, begins, and the model call under way is let finish while the
// server is working on it, so that a slow server still gets an entry
// written at each call rather than one given up every time: a call whose
// answer began is let run to its end (the distiller's time-out bounds it);
// one still silent, as long as its prompt takes at the server's measured
// rate, twice. A call to a server never measured, or silent for longer, is
// one to a stalled server: it is left at d, for Close to give up. What an
// entry's parts wrote is kept either way (summarise). It returns
// CatchUp's error, or context.DeadlineExceeded when entries were left for
// lack of time; ctx done ends it at once, as CatchUp.
func (e *Engine) CatchUpFor(ctx context.Context, d time.Duration) error {
	if !e.keepsDiary() {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- e.CatchUp(ctx) }() // waited for below, on every path
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
	}
	e.wind(true)
	defer e.wind(false)
	for {
		left := e.callLeft()
		if left <= 0 {
			cancel()
			<-done
			return context.DeadlineExceeded
		}
		t.Reset(left)
		select {
		case err := <-done:
			if err == nil {
				err = context.DeadlineExceeded // stopped before the backlog's end
			}
			return err
		case <-t.C:
		}
	}
}

// wind stops (on) or lets go on (off) the beginning of entries and parts.
func (e *Engine) wind(on bool) {
	e.diary.mu.Lock()
	e.diary.winding = on
	e.diary.mu.Unlock()
}

// callLeft is how much longer the model call of the entry under way is
// given once CatchUpFor's time is up; 0 or less for none.
func (e *Engine) callLeft() time.Duration {
	d := &e.diary
	d.mu.Lock()
	defer d.mu.Unlock()
	w := d.writing
	switch {
	case w == nil || w.sent.IsZero():
		return 0 // none sent: nothing under way to finish
	case w.heard:
		return time.Until(w.sent.Add(e.o.DigestTimeout + time.Second))
	}
	return time.Until(w.sent.Add(min(2*w.silence, e.o.DigestTimeout)))
}

// sending notes that the model call of entry w is sent with lines, and how
// long the server is expected to be silent on it; false when no call may
// begin (CatchUpFor's time is up).
func (e *Engine) sending(w *entry, lines []string) bool {
	var silence time.Duration
	if r, tokens := e.diaryRates(lines); r.Known() {
		silence = r.PromptTime(tokens)
	}
	d := &e.diary
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.winding {
		return false
	}
	w.sent, w.silence, w.heard = time.Now(), silence, false
	return true
}

// diaryRates are the rates of the server that writes the diary (the
// auxiliary model's, else the chat model's; the prior when neither is
// known) and the prompt tokens of a diary call with lines.
func (e *Engine) diaryRates(lines []string) (cost.Rates, int) {
	r := e.meter.Rates(e.auxKey())
	if !r.Known() {
		r = e.meter.Rates(e.chatKey())
	}
	chars := distil.DiaryOverhead + len(lines)
	for _, l := range lines {
		chars += len(l)
	}
	return r, r.Tokens(chars)
}

// diaryAnswer is about the most tokens a diary call answers with: a
// summary of a few sentences and its keywords.
const diaryAnswer = 200

// diaryCeiling bounds a diary call however slow its server is measured.
const diaryCeiling = 10 * time.Minute

// diaryTimeout is how long a diary call with lines is given: three times
// what the meter says the server takes over it, and no less than the
// digest time-out. A reply's helpers must be quick or not be made; an
// entry is background work that gives way to a turn, and a model on the
// box's own CPU takes tens of seconds over one.
func (e *Engine) diaryTimeout(lines []string) time.Duration {
	r, tokens := e.diaryRates(lines)
	return min(diaryCeiling, max(e.o.DigestTimeout, 3*r.Call(tokens, diaryAnswer)))
}

// heard notes that the answer to entry w's model call began.
func (e *Engine) heard(w *entry) {
	e.diary.mu.Lock()
	w.heard = true
	e.diary.mu.Unlock()
}

// hearing is a model that tells when each answer begins (first), which
// it streams for that.
type hearing struct {
	llm.Chatter
	first func()
}

func (h hearing) Chat(ctx context.Context, req llm.Request, onChunk func(llm.Chunk) error) (llm.Response, error) {
	var once sync.Once
	return h.Chatter.Chat(ctx, req, func(c llm.Chunk) error {
		once.Do(h.first)
		if onChunk != nil {
			return onChunk(c)
		}
		return nil
	})
}
