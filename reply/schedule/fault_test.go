package schedule

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/reply/schedule/scheduletest"
	"github.com/harkbox/hark/storage"
)

// faultyStore is a store whose writes, or reads, fail on demand: a data
// partition the kernel turned read-only, or one that cannot be read.
type faultyStore struct {
	*scheduletest.Store
	mu                 sync.Mutex
	refuse, unreadable bool
	puts               int // writes refused
}

var errReadOnly = errors.New("open schedule/x: read-only file system")

func (f *faultyStore) set(refuse, unreadable bool) {
	f.mu.Lock()
	f.refuse, f.unreadable = refuse, unreadable
	f.mu.Unlock()
}

func (f *faultyStore) Put(ctx context.Context, it storage.Item) error {
	f.mu.Lock()
	refuse := f.refuse
	if refuse {
		f.puts++
	}
	f.mu.Unlock()
	if refuse {
		return errReadOnly
	}
	return f.Store.Put(ctx, it)
}

func (f *faultyStore) List(ctx context.Context, kinds ...storage.ItemKind) ([]storage.Item, error) {
	f.mu.Lock()
	bad := f.unreadable
	f.mu.Unlock()
	if bad {
		return nil, errReadOnly
	}
	return f.Store.List(ctx, kinds...)
}

func (f *faultyStore) Get(ctx context.Context, id string) (storage.Item, bool, error) {
	f.mu.Lock()
	bad := f.unreadable
	f.mu.Unlock()
	if bad {
		return storage.Item{}, false, errReadOnly
	}
	return f.Store.Get(ctx, id)
}

// TestReadOnlyStoreStillRings: with the store refusing writes, a timer set
// before the fault and one set during it both ring on time, from memory;
// what could not be saved is listed as unsaved and saved once the store
// takes writes again. Before, the first timer was lost (fire wrote its
// ringing state first, the write failed, and it was active nowhere).
func TestReadOnlyStoreStillRings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &faultyStore{Store: scheduletest.New()}
		s, r, stop := running(t, Options{Store: store, Location: time.UTC, Retry: 30 * time.Second})
		defer stop()
		set := time.Now()
		before, _ := s.AddTimer(t.Context(), "before", time.Minute)
		time.Sleep(10 * time.Second)
		store.set(true, false) // the SD card fails
		during, err := s.AddTimer(t.Context(), "during", 30*time.Second)
		if err != nil {
			t.Fatalf("a timer set while the store refuses writes: %v", err)
		}
		if pending, _ := s.Pending(t.Context(), storage.Timer); len(pending) != 2 {
			t.Errorf("pending %+v, want both timers", pending)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if r.count() != 2 || r.at[0].Sub(set) != 40*time.Second || r.at[1].Sub(set) != time.Minute {
			t.Fatalf("rang %+v at %v, want both on time", r.alerts, r.at)
		}
		if u := s.Unsaved(); len(u) != 2 || u[0].State != storage.Done || u[1].State != storage.Done {
			t.Errorf("unsaved %+v, want both timers' ringing", u)
		}
		if err := s.Flush(t.Context()); err == nil {
			t.Error("Flush reported success on a read-only store")
		}
		store.set(false, false) // remounted
		time.Sleep(30 * time.Second)
		synctest.Wait()
		if u := s.Unsaved(); len(u) != 0 {
			t.Errorf("still unsaved after the store came back: %+v", u)
		}
		for _, id := range []string{before.ID, during.ID} {
			if it, ok, _ := store.Get(t.Context(), id); !ok || it.State != storage.Done {
				t.Errorf("%s on disk: %+v, %v; want done", id, it, ok)
			}
		}
		if r.count() != 2 {
			t.Errorf("rang %d times", r.count())
		}
	})
}

// TestUnreadableStoreAtStart: a store that cannot be read at start does
// not stop the scheduler: what is set rings; the items already stored
// join (and ring) once it can be read.
func TestUnreadableStoreAtStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &faultyStore{Store: scheduletest.New()}
		old, _ := New(Options{Store: store, Location: time.UTC})
		kept, _ := old.AddTimer(t.Context(), "kept", 10*time.Minute)
		store.set(true, true)
		s, r, stop := running(t, Options{Store: store, Location: time.UTC, Retry: 30 * time.Second})
		defer stop()
		fresh, err := s.AddTimer(t.Context(), "fresh", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if r.count() != 1 || r.alerts[0].Item.ID != fresh.ID {
			t.Fatalf("alerts %+v, want the fresh timer", r.alerts)
		}
		store.set(false, false)
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if r.count() != 2 || r.alerts[1].Item.ID != kept.ID {
			t.Errorf("alerts %+v, want the stored timer too once readable", r.alerts)
		}
	})
}
