package reply

import (
	"fmt"
	"unicode/utf8"

	"github.com/harkbox/hark/reply/distil"
	"github.com/harkbox/hark/storage"
)

const (
	// diaryParts is the most model calls one try at an entry makes,
	// however long its conversation (diaryPlan).
	diaryParts = 4
	// diaryRoom is the most of the summary so far given with a part of a
	// conversation too long for one prompt.
	diaryRoom = 800
	// diaryShort is the length lines are cut to, at the shortest, before
	// exchanges in the middle of a conversation are left out.
	diaryShort = 40
)

// diaryPart is what one model call of an entry summarises: the lines of
// its exchanges, the summary so far before them, and last, the index
// among the exchanges planned of the last one it covers.
type diaryPart struct {
	lines []string
	room  int // the most of the summary so far given; 0: all of it
	last  int
}

// prompt is what the model is given for p when the summary so far is
// summary ("" for none).
func (p diaryPart) prompt(summary string) []string {
	if summary == "" {
		return p.lines
	}
	if p.room > 0 {
		summary = clip(summary, p.room-1)
	}
	return append([]string{diaryEarlier + summary}, p.lines...)
}

// diaryPlan splits xs, the exchanges an entry is to cover, oldest first,
// into the parts the model summarises one after the other, each given the
// summary so far (earlier, for the first; "" for none). What fits one
// prompt (distil.DiaryPrompt) is one part, as it always was. A longer
// conversation is diaryParts parts at most, each of one prompt with
// diaryRoom left for the summary so far: an entry costs diaryParts model
// calls at most, however long its conversation. When its exchanges do not
// fit those whole, every line is cut to the longest length at which they
// do (its start stays: the question, the gist of the answer); when they do
// not fit with lines of diaryShort, exchanges in the middle are left out,
// and a line says how many: the conversation's start and its end always
// reach the model.
func diaryPlan(earlier string, xs []storage.Exchange) []diaryPart {
	if len(xs) == 0 {
		return nil
	}
	whole := diaryItems(xs, 0, 0, -1)
	size := whole.size()
	if earlier != "" {
		size += runes(diaryEarlier+earlier) + 1
	}
	if size <= distil.DiaryPrompt {
		return []diaryPart{{lines: whole.lines(), last: len(xs) - 1}}
	}
	budget := distil.DiaryPrompt - runes(diaryEarlier) - diaryRoom - 1
	fit := func(its diaryLines) []diaryPart {
		parts := its.pack(budget)
		if len(parts) > diaryParts {
			return nil
		}
		return parts
	}
	if parts := fit(whole); parts != nil {
		return parts
	}
	// The longest cut that fits, by halves: shorter lines never take more
	// parts (each part is filled before the next begins).
	lo, hi := diaryShort, whole.longest()
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fit(diaryItems(xs, 0, 0, mid)) != nil {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if parts := fit(diaryItems(xs, 0, 0, lo)); parts != nil {
		return parts
	}
	// Too many even cut short: keep as many as fit, half from the start,
	// half from the end (one exchange of diaryShort lines always fits).
	n := len(xs)
	for {
		n = max(1, n*9/10)
		if parts := fit(diaryItems(xs, n/2, len(xs)-n+n/2, diaryShort)); parts != nil || n == 1 {
			return parts
		}
	}
}

// diaryItem is one exchange as the model reads it, or the line that
// stands for those left out; upto is the index of the last exchange it
// covers.
type diaryItem struct {
	lines []string
	size  int // in runes, with a line end after each line
	upto  int
}

type diaryLines []diaryItem

// diaryItems is xs with those from xs[head] to xs[tail-1] left out (none
// when head == tail), its lines cut to n runes (none when n < 0).
func diaryItems(xs []storage.Exchange, head, tail, n int) diaryLines {
	out := make(diaryLines, 0, len(xs)-tail+head+1)
	add := func(upto int, lines ...string) {
		it := diaryItem{lines: lines, upto: upto}
		for _, l := range lines {
			it.size += runes(l) + 1
		}
		out = append(out, it)
	}
	for i, x := range xs {
		switch {
		case i >= head && i < tail:
			if i == tail-1 {
				add(i, fmt.Sprintf("(%d exchanges left out)", tail-head))
			}
		case n < 0:
			add(i, "User: "+x.User, "Assistant: "+x.Assistant)
		default:
			add(i, "User: "+clip(x.User, n-1), "Assistant: "+clip(x.Assistant, n-1))
		}
	}
	return out
}

// size is the length of its lines joined, in runes.
func (its diaryLines) size() int {
	n := 0
	for _, it := range its {
		n += it.size
	}
	return max(n-1, 0)
}

// lines are its lines, in order.
func (its diaryLines) lines() []string {
	var out []string
	for _, it := range its {
		out = append(out, it.lines...)
	}
	return out
}

// longest is the length of its longest line, in runes.
func (its diaryLines) longest() int {
	n := 0
	for _, it := range its {
		for _, l := range it.lines {
			n = max(n, runes(l))
		}
	}
	return n
}

// pack fills parts of budget runes at most with its items, in order, each
// part before the next; nil when an item alone is longer.
func (its diaryLines) pack(budget int) []diaryPart {
	var out []diaryPart
	size := budget + 1
	for _, it := range its {
		if it.size > budget+1 {
			return nil
		}
		if size+it.size > budget+1 {
			out = append(out, diaryPart{room: diaryRoom})
			size = 0
		}
		p := &out[len(out)-1]
		p.lines = append(p.lines, it.lines...)
		p.last = it.upto
		size += it.size
	}
	return out
}

func runes(s string) int { return utf8.RuneCountInString(s) }
