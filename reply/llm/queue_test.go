package llm

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func granted(t *Ticket) bool { return t.Admitted() }

// TestQueueOrder: one at a time, the microphone first, then the asker
// with fewer turns under way, then the oldest; background last.
func TestQueueOrder(t *testing.T) {
	q := NewQueue(QueueOptions{Parallel: 1})
	first := q.Join("phone-a", Asked)
	if !granted(first) {
		t.Fatal("the first turn waits on an empty queue")
	}
	diary := q.Join("diary", Background)
	a2 := q.Join("phone-a", Asked)
	b := q.Join("phone-b", Asked)
	mic := q.Join("microphone", Spoken)
	if got := mic.Ahead(); got != 1 {
		t.Errorf("the microphone has %d turns ahead, want only the one under way", got)
	}
	if got := diary.Ahead(); got != 4 {
		t.Errorf("the diary has %d turns ahead, want everyone's", got)
	}
	var order []string
	for _, want := range []*Ticket{mic, b, a2, diary} {
		for _, tk := range []*Ticket{first, mic, b, a2, diary} {
			if granted(tk) && !tk.done {
				order = append(order, tk.client)
				tk.Leave()
				break
			}
		}
		if !granted(want) {
			t.Fatalf("after %v, %s is not let through", order, want.client)
		}
	}
	want := []string{"phone-a", "microphone", "phone-b", "phone-a"}
	if len(order) != len(want) {
		t.Fatalf("order %v", order)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Errorf("order %v, want %v", order, want)
			break
		}
	}
	diary.Leave()
}

// TestQueueWaitCancelled: a turn that gives up leaves its place.
func TestQueueWaitCancelled(t *testing.T) {
	q := NewQueue(QueueOptions{Parallel: 1})
	busy := q.Join("a", Asked)
	w := q.Join("b", Asked)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := w.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait: %v", err)
	}
	if s := q.Status(); s.Waiting != 0 || s.InFlight != 1 {
		t.Errorf("after giving up: %+v", s)
	}
	busy.Leave()
	if s := q.Status(); s.InFlight != 0 {
		t.Errorf("after the last left: %+v", s)
	}
}

// TestQueueLearnsParallelism: a trial turn whose answer did not wait
// while another call went on raises the parallelism; one that waited caps
// it and ends the trials; a call with nothing else under way teaches
// nothing.
func TestQueueLearnsParallelism(t *testing.T) {
	ran := Response{Duration: 2 * time.Second, PromptDuration: 1500 * time.Millisecond, EvalDuration: 450 * time.Millisecond}
	waited := Response{Duration: 4 * time.Second, PromptDuration: 1500 * time.Millisecond, EvalDuration: 400 * time.Millisecond}

	q := NewQueue(QueueOptions{})
	a := q.Join("a", Asked)
	ca := a.Begin()
	b := q.Join("b", Asked)
	if !granted(b) || !b.Trial() {
		t.Fatal("with the parallelism unknown, a second turn is not tried")
	}
	if mic := q.Join("microphone", Spoken); granted(mic) {
		t.Fatal("the microphone's turn was sent to the server as a trial")
	}
	cb := b.Begin()
	cb.End(ran, nil)
	ca.End(ran, nil) // both answered in about the same 2 s, neither waiting
	if s := q.Status(); s.Parallel != 2 || !s.Learned {
		t.Fatalf("after answers that ran alongside: %+v, want 2 at once", s)
	}

	q = NewQueue(QueueOptions{})
	a = q.Join("a", Asked)
	ca = a.Begin()
	b = q.Join("b", Asked)
	cb = b.Begin()
	cb.End(waited, nil)
	ca.End(ran, nil)
	a.Leave()
	b.Leave()
	c := q.Join("c", Asked)
	d := q.Join("d", Asked)
	if s := q.Status(); s.Parallel != 1 || granted(d) {
		t.Errorf("after an answer that waited: %+v, d let through %v; want one at a time and no more trials", s, granted(d))
	}
	c.Leave()
	d.Leave()

	q = NewQueue(QueueOptions{})
	a = q.Join("a", Asked)
	b = q.Join("b", Asked)
	a.Begin().End(Response{Duration: 50 * time.Millisecond, PromptDuration: 40 * time.Millisecond}, nil)
	time.Sleep(60 * time.Millisecond)
	b.Begin().End(ran, nil) // after a's: they never ran together
	if s := q.Status(); s.Parallel != 1 {
		t.Errorf("calls one after the other taught %+v", s)
	}
}

// TestQueueConfigured: a configured parallelism is kept: that many at
// once, no trials, nothing learned.
func TestQueueConfigured(t *testing.T) {
	q := NewQueue(QueueOptions{Parallel: 2})
	a, b, c := q.Join("a", Asked), q.Join("b", Asked), q.Join("c", Asked)
	if !granted(a) || !granted(b) || granted(c) || c.Trial() {
		t.Fatalf("granted %v %v %v", granted(a), granted(b), granted(c))
	}
	a.Begin()
	b.Begin().End(Response{Duration: 4 * time.Second, PromptDuration: time.Second}, nil)
	if s := q.Status(); s.Parallel != 2 || s.Learned {
		t.Errorf("%+v", s)
	}
}

// TestQueueManyAtOnce: turns from many goroutines at once never exceed
// the parallelism, and every one is let through.
func TestQueueManyAtOnce(t *testing.T) {
	q := NewQueue(QueueOptions{Parallel: 2})
	var mu sync.Mutex
	now, most := 0, 0
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			p := Asked
			if i%5 == 0 {
				p = Spoken
			}
			tk := q.Join(string(rune('a'+i%3)), p)
			if err := tk.Wait(t.Context()); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			now++
			most = max(most, now)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			now--
			mu.Unlock()
			tk.Leave()
		})
	}
	wg.Wait()
	s := q.Status()
	if most > 2 || s.InFlight != 0 || s.Waiting != 0 || s.Spoken.Turns != 4 || s.Asked.Turns != 16 {
		t.Errorf("most at once %d, status %+v", most, s)
	}
}

func TestWaitStats(t *testing.T) {
	var w window
	for i := 1; i <= 300; i++ {
		w.add(time.Duration(i) * time.Millisecond)
	}
	s := w.stats()
	if s.Turns != windowLen || s.P50 != 201*time.Millisecond || s.P95 != 291*time.Millisecond || s.Longest != 300*time.Millisecond {
		t.Errorf("%+v", s)
	}
}

// TestQueueNothingLeaks: turns that give up while waiting, turns let
// through on trial and turns that leave twice leave nothing behind.
func TestQueueNothingLeaks(t *testing.T) {
	q := NewQueue(QueueOptions{})
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Go(func() {
			tk := q.Join(string(rune('a'+i%7)), Priority(i%3))
			ctx, cancel := context.WithTimeout(t.Context(), time.Duration(i%4)*time.Millisecond)
			defer cancel()
			if tk.Wait(ctx) == nil {
				c := tk.Begin()
				time.Sleep(time.Millisecond)
				c.End(Response{Duration: time.Millisecond}, nil)
			}
			tk.Leave()
			tk.Leave()
		})
	}
	wg.Wait()
	if s := q.Status(); s.InFlight != 0 || s.Waiting != 0 {
		t.Errorf("after every turn left: %+v", s)
	}
}
