package reply

import (
	"context"
	"time"

	"github.com/harkbox/hark/reply/llm"
)

// history returns the current conversation's earlier exchanges as messages,
// newest kept when the caps bite, and the conversation's id: the one still
// open, or a new one when it lapsed or the user ended it.
func (e *Engine) history(ctx context.Context, now time.Time) ([]llm.Message, string) {
	conv := "c" + now.UTC().Format("20060102T150405.000")
	if e.o.Dialogue == nil {
		return nil, conv
	}
	past, err := e.o.Dialogue.Recent(ctx, now.Add(-24*time.Hour), 4*e.o.HistoryTurns)
	if err != nil {
		e.log.Warn("read dialogue failed; answering without history", "err", err)
		return nil, conv
	}
	if n := len(past); n == 0 || past[n-1].Closed {
		return nil, conv
	}
	// Walk back while each exchange is within the lapse of the one after it.
	last := now
	first := len(past)
	for i := len(past) - 1; i >= 0 && last.Sub(past[i].At) <= e.o.ConversationLapse && !(i < len(past)-1 && past[i].Closed); i-- {
		first, last = i, past[i].At
	}
	past = past[first:]
	if len(past) == 0 {
		if e.o.Commands != nil {
			e.o.Commands.Forget() // a lapsed conversation refines nothing
		}
		return nil, conv
	}
	conv = past[len(past)-1].Conversation
	var msgs []llm.Message
	chars, turns := 0, 0
	for i := len(past) - 1; i >= 0 && turns < e.o.HistoryTurns; i-- {
		x := past[i]
		if x.Failed || x.Conversation != conv {
			continue
		}
		n := len(x.User) + len(x.Assistant)
		if chars+n > e.o.HistoryChars {
			break
		}
		chars += n
		turns++
		msgs = append([]llm.Message{{Role: llm.RoleUser, Content: x.User}, {Role: llm.RoleAssistant, Content: x.Assistant}}, msgs...)
	}
	return msgs, conv
}
