package pipeline

import (
	"context"
	"sync"

	"github.com/harkbox/hark/pipeline/voice"
)

// Feed carries published states one way from the pipeline to one observer.
// Publishing never blocks; when the observer falls more than the feed's
// capacity behind, the oldest states are dropped and counted. An LED renderer
// reads Latest and skips what it missed; a log or a test reads Next and sees
// every state.
type Feed struct {
	mu      sync.Mutex
	buf     []voice.Status // oldest first
	cap     int
	dropped int
	wake    chan struct{} // holds a token while buf is non-empty
}

func newFeed(capacity int) *Feed {
	return &Feed{cap: max(capacity, 1), wake: make(chan struct{}, 1)}
}

func (f *Feed) publish(s voice.Status) {
	f.mu.Lock()
	if len(f.buf) == f.cap {
		copy(f.buf, f.buf[1:])
		f.buf = f.buf[:len(f.buf)-1]
		f.dropped++
	}
	f.buf = append(f.buf, s)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// Next returns the oldest state not yet read, waiting for one if there is
// none. It returns ctx.Err() when ctx is done first.
func (f *Feed) Next(ctx context.Context) (voice.Status, error) {
	return f.take(ctx, false)
}

// Latest waits like Next but returns only the newest state, discarding any
// older unread ones.
func (f *Feed) Latest(ctx context.Context) (voice.Status, error) {
	return f.take(ctx, true)
}

func (f *Feed) take(ctx context.Context, latest bool) (voice.Status, error) {
	for {
		f.mu.Lock()
		if n := len(f.buf); n > 0 {
			var s voice.Status
			if latest {
				s, f.buf = f.buf[n-1], f.buf[:0]
			} else {
				s = f.buf[0]
				f.buf = f.buf[:copy(f.buf, f.buf[1:])]
			}
			if len(f.buf) > 0 { // keep the wake token for the rest
				select {
				case f.wake <- struct{}{}:
				default:
				}
			}
			f.mu.Unlock()
			return s, nil
		}
		f.mu.Unlock()
		select {
		case <-f.wake:
		case <-ctx.Done():
			return voice.Status{}, ctx.Err()
		}
	}
}

// Dropped is how many states this feed lost because its reader fell behind.
func (f *Feed) Dropped() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dropped
}

// feedSet is the pipeline's list of feeds.
type feedSet struct {
	mu    sync.Mutex
	feeds []*Feed
}

func (s *feedSet) add(f *Feed) {
	s.mu.Lock()
	s.feeds = append(s.feeds, f)
	s.mu.Unlock()
}

func (s *feedSet) publish(st voice.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.feeds {
		f.publish(st)
	}
}
