package reply

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/storage"
)

// The diary is how recall finds a conversation again: memory searches
// only it and the facts. A conversation's entry is written once it is
// over: when the engine lets go of a conversation it held (Maintain saw
// it lapse, or its client went on to another), and otherwise by catching
// up: each round looks in the store for the conversations without an
// entry whose last exchange is older than the lapse, or that the user
// closed. Those are the entries that failed (the model server was
// restarting, failed, or too slow) and those of conversations the engine
// never held (they were had before it started: the daemon restarted, or
// `hark ask` ran without it). A conversation still within its lapse may
// go on, here or in the next process, and is left until it lapses.
//
// An engine of one conversation (a center's, per node conversation)
// writes none: its conversation does not end for it, the center's
// expiry ends it. Its Diarist, the center's one engine over the whole
// dialogue, writes them all by catching up: a conversation once no
// engine holds it and it has lapsed, and those a center that stopped
// left. The turns of those engines are the Diarist's turns below.
//
// Entries are written one at a time in the background, diaryRound at
// most per round, and never while a turn of the engine is under way:
// a round begins after a turn, or at a tick of Maintain; each entry waits
// behind everyone's turns in the Queue, and a turn of the engine that
// begins meanwhile interrupts it (it is written again after the turn).
// A round is due when the engine starts, when a conversation ends, while
// entries are left, and when a conversation found still open lapses;
// after a failure, not before a wait that doubles from diaryRetry to
// diaryRetryMax, so a model server that is down is asked once in a while,
// not at every turn.
//
// Only conversations the diary has no entry for, or whose entry is behind,
// are written, so none is written twice. An entry is behind when its
// conversation went on after it was written: a center's node reopened the
// conversation's id after a restart, or the user continued it (hark ask
// --continue, a follow-up that names it). Such an entry is rewritten once
// the conversation is over again, under the same date, from the old
// summary and the exchanges it does not cover; the new entry replaces it in
// one write, and only once the model wrote it: a failure leaves it as it
// was. An entry records the last exchange it covers (Through); one written
// before that was kept is taken to cover its conversation from its date to
// the first lapse or close after it (an entry was written only once its
// conversation was over), so that after an upgrade only the entries of
// conversations that did go on are written again, not all of them.
const (
	// diaryRound is the most entries one round writes.
	diaryRound = 3
	// diaryWindow is how far back conversations without an entry are
	// looked for; diaryScan is the most exchanges read to find them, and
	// the most of one conversation summarised (see diaryPlan).
	diaryWindow = 7 * 24 * time.Hour
	diaryScan   = 1000
	// diaryRetry is the wait after a failure, doubled after each further
	// failure in a row up to diaryRetryMax.
	diaryRetry    = time.Minute
	diaryRetryMax = time.Hour
)

// errNotNow stops a round: a turn of the engine began, and goes first, or
// the engine is closing.
var errNotNow = errors.New("reply: the diary waits")

// diarist is the engine's diary writing.
type diarist struct {
	mu       sync.Mutex
	turns    int           // the engine's turns under way
	running  bool          // a round is under way
	over     chan struct{} // closed when the round under way ends
	err      error         // the last round's failure; nil when it did not fail
	missed   bool          // a round was asked for while one was under way
	now      time.Time     // the clock when a round was last asked for
	closed   bool          // the engine is closing: no round begins
	winding  bool          // CatchUpFor's time is up: no entry, nor part of one, begins
	ended    []string      // conversations the engine let go of, written first
	next     time.Time     // when a round is due; zero: when a conversation ends
	set      time.Time     // when next was set; a clock now before it was stepped back
	failures int           // failed rounds in a row
	// writing is the entry being written, which a turn that begins
	// interrupts: its answer never waits for an entry.
	writing *entry
	// tries counts each conversation's failed tries: those tried more
	// go after the others, so one the model cannot summarise holds none
	// of them up.
	tries map[string]int
	// held counts, for a Diarist, the engines that hold each
	// conversation whose entry it writes: none is written while held.
	held map[string]int
}

// entry is an entry being written: whether of a conversation the engine
// let go of, and how to interrupt it; and, for CatchUpFor, its model call
// under way: when it was sent, how long the server is expected to be
// silent before its first word (0: unknown), and whether one came. They
// are guarded by the diarist's mu.
type entry struct {
	ended     bool
	interrupt context.CancelCauseFunc
	sent      time.Time
	silence   time.Duration
	heard     bool
}

// keepsDiary reports whether the engine writes diary entries. An engine
// of one given conversation (a center's, per node conversation) does
// not: its conversation never ends for it; its Diarist, if any, writes it.
func (e *Engine) keepsDiary() bool {
	return e.o.Diary != nil && e.o.Dialogue != nil && e.distil != nil && e.o.Conversation == ""
}

// due makes a round due at at, the clock reading now; d.mu is held.
func (d *diarist) due(at, now time.Time) {
	d.next, d.set = at, now
}

// finished notes that the engine let go of conversation id, whose entry
// the next round writes. It never blocks: callers hold e.mu.
func (e *Engine) finished(id string) {
	if !e.keepsDiary() {
		return
	}
	now := e.o.Now()
	d := &e.diary
	d.mu.Lock()
	defer d.mu.Unlock()
	if !slices.Contains(d.ended, id) {
		d.ended = append(d.ended, id)
	}
	if d.failures == 0 {
		d.due(now, now)
	}
	e.round(now)
}

// turnBegins and turnEnds bracket a turn: no round begins during one,
// and one may begin after it; the same for the engine's Diarist.
func (e *Engine) turnBegins() {
	d := &e.diary
	d.mu.Lock()
	d.turns++
	if d.writing != nil {
		d.writing.interrupt(errNotNow)
	}
	d.mu.Unlock()
	if e.o.Diarist != nil {
		e.o.Diarist.turnBegins()
	}
}

func (e *Engine) turnEnds() {
	e.diary.mu.Lock()
	e.diary.turns--
	e.round(e.o.Now())
	e.diary.mu.Unlock()
	if e.o.Diarist != nil {
		e.o.Diarist.turnEnds()
	}
}

// hold notes that an engine whose Diarist e is holds conversation id.
func (e *Engine) hold(id string) {
	e.diary.mu.Lock()
	defer e.diary.mu.Unlock()
	e.diary.held[id]++
}

// letGo notes that an engine whose Diarist e is let go of conversation
// id: once none holds it, a round looks at it, and writes it if it has
// lapsed (or when it lapses).
func (e *Engine) letGo(id string) {
	now := e.o.Now()
	d := &e.diary
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.held[id]--; d.held[id] > 0 {
		return
	}
	delete(d.held, id)
	if d.failures == 0 {
		d.due(now, now)
	}
	e.round(now)
}

// catchUp begins a round when one is due.
func (e *Engine) catchUp() {
	e.diary.mu.Lock()
	defer e.diary.mu.Unlock()
	e.round(e.o.Now())
}

// CatchUp writes the diary entries left to write, round after round,
// until none is left (a conversation still open is left until it
// lapses), a round fails, or ctx is done; it returns the round's error
// (logged already), or ctx's. It begins no round during a turn or after
// Close, nor one that a failure put off. The daemon's Maintain does this
// in the background; a process that answers once and exits (hark ask
// without the daemon) calls it after its answer, with a deadline, and
// then Close, which gives up an entry still being written.
func (e *Engine) CatchUp(ctx context.Context) error {
	if !e.keepsDiary() {
		return nil
	}
	d := &e.diary
	for {
		d.mu.Lock()
		e.round(e.o.Now())
		running, over, err := d.running, d.over, d.err
		d.mu.Unlock()
		if !running {
			return err
		}
		select {
		case <-over:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// round begins a round in the background when one is due and neither a
// round nor a turn is under way; d.mu is held.
func (e *Engine) round(now time.Time) {
	d := &e.diary
	d.now = now
	if d.running {
		d.missed = true // it asks again when it ends
		return
	}
	if d.closed || d.winding || d.turns > 0 || d.next.IsZero() {
		return
	}
	if now.Before(d.next) && !now.Before(d.set) {
		return
	}
	d.running, d.over = true, make(chan struct{})
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.writeRound(e.closing)
	}()
}

// claim makes w the entry being written when no turn is under way and,
// when the engine is closing, w is of a conversation it let go of (Close
// waits for those; the others are the next process's).
func (e *Engine) claim(w *entry) bool {
	d := &e.diary
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.turns > 0 || d.winding || d.closed && !w.ended {
		return false
	}
	d.writing = w
	return true
}

// release ends the claim of w.
func (e *Engine) release(w *entry) {
	e.diary.mu.Lock()
	if e.diary.writing == w {
		e.diary.writing = nil
	}
	e.diary.mu.Unlock()
}

// closeDiary begins a last round for the conversations the engine let go
// of, if none is under way, and no round after it; it interrupts an entry
// being written that is not of one of those. It reports whether the
// engine was open: false when it was closed before.
func (e *Engine) closeDiary() (open bool) {
	now := e.o.Now()
	d := &e.diary
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	if len(d.ended) > 0 && d.failures == 0 {
		d.due(now, now)
		e.round(now)
	}
	d.closed = true
	if d.writing != nil && !d.writing.ended {
		d.writing.interrupt(errNotNow)
	}
	return true
}

// writeRound writes up to diaryRound entries, and says when the next
// round is due. ctx ends when Close gives up waiting. Its time is the
// clock's when a round was last asked for: the clock is read there, never
// in the background.
func (e *Engine) writeRound(ctx context.Context) {
	d := &e.diary
	d.mu.Lock()
	now, ended, tries := d.now, slices.Clone(d.ended), maps.Clone(d.tries)
	d.mu.Unlock()
	todo, opens, err := e.unwritten(ctx, ended, tries, now)
	var done []string // written, or needing none
	if err == nil {
		for _, id := range ended {
			if !slices.Contains(todo, id) {
				done = append(done, id)
			}
		}
	}
	written, failed := 0, ""
	for _, id := range todo {
		if err != nil || written == diaryRound {
			break
		}
		if err = e.writeEntry(ctx, id, slices.Contains(ended, id), now); err != nil {
			failed = id
			break
		}
		done = append(done, id)
		written++
	}
	left := written < len(todo)

	d.mu.Lock()
	defer d.mu.Unlock()
	d.running, d.err = false, nil
	close(d.over)
	d.ended = slices.DeleteFunc(d.ended, func(id string) bool { return slices.Contains(done, id) })
	for _, id := range done {
		delete(d.tries, id)
	}
	now = d.now // perhaps asked for again since
	switch {
	case ctx.Err() != nil: // closing: the next process writes them
	case errors.Is(err, errNotNow):
		d.due(now, now) // after the turn
	case err != nil:
		if failed != "" {
			d.tries[failed]++
		}
		d.failures++
		d.err = err
		wait := retryAfter(d.failures)
		d.due(now.Add(wait), now)
		log := e.log
		if failed != "" {
			log = log.With("conversation", failed)
		}
		log.Warn("diary entry not written; trying again later", "retry_in", wait.String(), "err", err)
	case left || len(d.ended) > 0:
		d.failures = 0
		d.due(now, now)
	default:
		d.failures = 0
		d.due(opens, now)
	}
	if d.missed {
		d.missed = false
		e.round(now)
	}
}

// retryAfter is the wait after failures in a row: diaryRetry, doubled
// after each further one, diaryRetryMax at most.
func retryAfter(failures int) time.Duration {
	wait := diaryRetry
	for range failures - 1 {
		if wait >= diaryRetryMax {
			break
		}
		wait *= 2
	}
	return min(wait, diaryRetryMax)
}

// unwritten is the conversations whose entries are to be written, in the
// order to write them: those the engine let go of (ended), then the
// lapsed ones of the store's last diaryWindow without an entry, oldest
// first, those tried more after the others. opens is when the first
// conversation found still open (and not the engine's, nor held by an
// engine whose Diarist it is) lapses; zero for none.
func (e *Engine) unwritten(ctx context.Context, ended []string, tries map[string]int, now time.Time) (todo []string, opens time.Time, err error) {
	e.mu.Lock()
	held := map[string]bool{}
	for _, c := range e.convs {
		held[c.id] = true
	}
	e.mu.Unlock()
	e.diary.mu.Lock()
	for id := range e.diary.held {
		held[id] = true
	}
	e.diary.mu.Unlock()
	all, err := e.o.Dialogue.Recent(ctx, now.Add(-diaryWindow), diaryScan)
	if err != nil {
		return nil, time.Time{}, err
	}
	last := map[string]int{} // each conversation's last exchange
	for i, x := range all {
		last[x.Conversation] = i
	}
	found := slices.DeleteFunc(slices.Clone(ended), func(id string) bool { return held[id] })
	ids := slices.SortedFunc(maps.Keys(last), func(a, b string) int { return last[a] - last[b] })
	for _, id := range ids {
		x := all[last[id]]
		if held[id] || slices.Contains(found, id) {
			continue
		}
		// Over as recent sees it: closed, or quiet longer than the lapse,
		// or stamped after now (the clock was stepped back since).
		if gap := now.Sub(x.At); x.Closed || gap < 0 || gap > e.o.ConversationLapse {
			found = append(found, id)
		} else if at := x.At.Add(e.o.ConversationLapse + time.Second); opens.IsZero() || at.Before(opens) {
			opens = at
		}
	}
	entries, err := e.o.Diary.Entries(ctx, found)
	if err != nil {
		return nil, opens, err
	}
	of := map[string][]storage.Exchange{}
	for _, x := range all {
		of[x.Conversation] = append(of[x.Conversation], x)
	}
	for _, id := range found {
		if old, ok := entries[id]; !ok || e.behind(old, of[id]) {
			todo = append(todo, id)
		}
	}
	slices.SortStableFunc(todo, func(a, b string) int { return tries[a] - tries[b] })
	return todo, opens, nil
}

// writeEntry summarises conversation id into the diary, once no turn is
// under way and the Queue lets it through after everyone's turns; a turn
// that begins meanwhile interrupts it (errNotNow). ended tells a
// conversation the engine let go of.
func (e *Engine) writeEntry(ctx context.Context, id string, ended bool, now time.Time) error {
	ctx, interrupt := context.WithCancelCause(ctx)
	defer interrupt(nil)
	w := &entry{ended: ended, interrupt: interrupt}
	if !e.claim(w) {
		return errNotNow
	}
	defer e.release(w)
	err := e.summarise(ctx, w, id, now)
	if err != nil && errors.Is(context.Cause(ctx), errNotNow) {
		return errNotNow
	}
	return err
}

func (e *Engine) summarise(ctx context.Context, w *entry, id string, now time.Time) error {
	if q := e.o.Queue; q != nil {
		tk := q.Join("diary", llm.Background)
		defer tk.Leave()
		if err := tk.Wait(ctx); err != nil {
			return err
		}
	}
	xs, err := e.o.Dialogue.RecentIn(ctx, id, now.Add(-diaryWindow), diaryScan)
	if err != nil || len(xs) == 0 {
		return err // none left (deleted meanwhile): nothing to write
	}
	entries, err := e.o.Diary.Entries(ctx, []string{id})
	if err != nil {
		return err
	}
	entry, rewrite := entries[id]
	from := 0
	if rewrite {
		// Behind: the old summary stands for what it covers, so that the
		// exchanges it does not cover are never cut from the model's input.
		from = e.covered(entry, xs) + 1
		if from == len(xs) {
			return nil // it covers them all (written meanwhile)
		}
	} else {
		entry = storage.DiaryEntry{Conversation: id, Date: xs[0].At}
	}
	// A conversation too long for one prompt is summarised in parts, the
	// earlier first, each given the summary so far as a behind entry's
	// rewrite is; each part's entry is stored as it is written, so that a
	// part that fails, or gives way to a turn, leaves the ones before it
	// done, and the next try goes on from them.
	for _, p := range diaryPlan(entry.Summary, xs[from:]) {
		lines := p.prompt(entry.Summary)
		if !e.sending(w, lines) {
			return errNotNow // CatchUpFor's time is up
		}
		d := *e.distil
		d.Model, d.Timeout = hearing{d.Model, func() { e.heard(w) }}, e.diaryTimeout(lines)
		summary, keywords, err := d.Diary(ctx, lines)
		if err != nil {
			return err // the entry stays as the last part left it
		}
		entry.Summary, entry.Through = summary, xs[from+p.last].At
		entry.Keywords = mergeKeywords(keywords, entry.Keywords)
		if err := e.o.Diary.Add(context.WithoutCancel(ctx), entry); err != nil {
			return err
		}
	}
	return nil
}

// diaryEarlier begins the line that gives the model a behind entry's
// summary, before the exchanges it does not cover.
const diaryEarlier = "Earlier in this conversation (summarised): "

// diaryKeywords is the most keywords a rewritten entry keeps: the new
// ones, then the old ones the model left out, so that recall still finds
// the earlier part by them.
const diaryKeywords = 12

// mergeKeywords is fresh, then those of old not among them (by case),
// diaryKeywords at most unless fresh alone has more.
func mergeKeywords(fresh, old []string) []string {
	out := slices.Clone(fresh)
	for _, k := range old {
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, k) }) {
			out = append(out, k)
		}
	}
	return out[:min(len(out), max(diaryKeywords, len(fresh)))]
}

// behind reports whether entry does not cover the last of xs, its
// conversation's exchanges of the diary's window, oldest first: the
// conversation went on after it was written.
func (e *Engine) behind(entry storage.DiaryEntry, xs []storage.Exchange) bool {
	return len(xs) > 0 && e.covered(entry, xs) < len(xs)-1
}

// covered is the index of the last of xs (one conversation's exchanges,
// oldest first) that entry covers; -1 for none of them. An entry that
// records it covers through the exchange of that time. One written before
// that was recorded covers from its date, which is its first exchange's
// time, to the first lapse or close after it; one whose first exchange is
// out of sight (older than the window) covers none of those in sight.
func (e *Engine) covered(entry storage.DiaryEntry, xs []storage.Exchange) int {
	if !entry.Through.IsZero() {
		for i := len(xs) - 1; i >= 0; i-- {
			if xs[i].At.Equal(entry.Through) {
				return i
			}
		}
		return -1
	}
	i := slices.IndexFunc(xs, func(x storage.Exchange) bool { return x.At.Equal(entry.Date) })
	if i < 0 {
		return -1
	}
	for i+1 < len(xs) && !xs[i].Closed && xs[i+1].At.Sub(xs[i].At) <= e.o.ConversationLapse {
		i++
	}
	return i
}
