package alert

import (
	"context"
	"fmt"
	"time"

	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// MissedStore keeps the alerts that rang unheard until the household is
// told; *storage.Missed is one. Its writes may fail (a read-only card):
// the alert is then told only if the box does not restart first.
type MissedStore interface {
	Put(ctx context.Context, a storage.MissedAlert) error
	Delete(ctx context.Context, id string) error
	List(ctx context.Context) ([]storage.MissedAlert, error)
}

var _ MissedStore = (*storage.Missed)(nil)

// MissedFor is how long after it went off an alert nobody heard is still
// told after a restart; an older one is dropped, with a log line: "your
// tea timer went off" days later helps nobody.
const MissedFor = 24 * time.Hour

// stale is when an alert that went off at at is too old to tell; zero
// when at is not known (it went off before the clock was set).
func stale(at time.Time) time.Time {
	if at.IsZero() {
		return time.Time{}
	}
	return at.Add(MissedFor)
}

// missedOf is the record of a kept until it is told. Its id tells apart
// the goings-off of one repeating alarm.
func missedOf(a schedule.Alert) storage.MissedAlert {
	return storage.MissedAlert{ID: fmt.Sprintf("%s@%d", a.Item.ID, a.Item.Rang.UnixNano()), Item: a.Item, At: a.At, LateBy: a.LateBy}
}

// unheard records m, an alert that rang unheard, until it is told.
func (s *Service) unheard(ctx context.Context, m storage.MissedAlert) {
	s.mu.Lock()
	s.handed[m.ID] = true // the ringer has it: reading the store must not hand it over again
	s.mu.Unlock()
	if s.missed == nil {
		return
	}
	if err := s.missed.Put(ctx, m); err != nil {
		s.log.Warn("cannot record an alert nobody heard; it is told if the box does not restart first", "kind", m.Item.Kind, "id", m.Item.ID, "err", err)
		return
	}
	s.log.Info("an alert nobody heard is recorded, to be told", "kind", m.Item.Kind, "id", m.Item.ID)
}

// clearMissed deletes the record of m: told, or too old to tell.
func (s *Service) clearMissed(ctx context.Context, m storage.MissedAlert) {
	if s.missed == nil {
		return
	}
	if err := s.missed.Delete(ctx, m.ID); err != nil {
		s.log.Warn("cannot clear an alert nobody heard once told; it may be told again after a restart", "kind", m.Item.Kind, "id", m.Item.ID, "err", err)
	}
}

// tellMissed hands r the alerts that rang unheard before this start and
// were never told, once the store can be read (it is tried every retry
// until it can) and each one's age can be known: one that went off with
// the clock set waits for the clock to be set, and is dropped when
// it went off more than MissedFor ago. One that went off before the clock
// was set has no age to know: it is told. It returns when all are handed
// over or dropped, or when ctx is done.
func (s *Service) tellMissed(ctx context.Context, r Ringer) {
	if s.missed == nil {
		return
	}
	var kept []storage.MissedAlert
	for warned := false; ; warned = true {
		var err error
		if kept, err = s.missed.List(ctx); err == nil {
			break
		}
		if !warned {
			s.log.Warn("cannot read the alerts nobody heard; trying again", "err", err)
		}
		t := time.NewTimer(s.retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	for len(kept) > 0 {
		// The channel is taken before the clock is read, so no setting is
		// missed.
		var changed <-chan struct{}
		if s.clock != nil {
			changed = s.clock.Changed()
		}
		now, synced := s.Now(), s.Synced()
		var wait []storage.MissedAlert
		for _, m := range kept {
			switch {
			case s.wasHanded(m.ID): // recorded by this start, and held by r
			case !m.At.IsZero() && !synced:
				wait = append(wait, m)
			case !m.At.IsZero() && now.Sub(m.At) > MissedFor:
				s.log.Info("an alert nobody heard went off too long ago to be told; dropping it", "kind", m.Item.Kind, "id", m.Item.ID,
					"at", m.At.Format(time.RFC3339), "ago_h", int(now.Sub(m.At).Hours()))
				s.clearMissed(ctx, m)
			default:
				s.log.Info("an alert nobody heard before the box restarted is to be told", "kind", m.Item.Kind, "id", m.Item.ID)
				s.mu.Lock()
				s.handed[m.ID] = true
				s.mu.Unlock()
				a := schedule.Alert{Item: m.Item, At: m.At, LateBy: m.LateBy}
				r.Tell(Alert{ID: m.Item.ID, Language: m.Item.Lang, Missed: a.Missed(now), MissedAt: a.Missed, Stale: stale(m.At),
					Told: func() { s.clearMissed(context.WithoutCancel(ctx), m) }})
			}
		}
		kept = wait
		if len(kept) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// wasHanded reports whether the missed alert of id is the ringer's
// already.
func (s *Service) wasHanded(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handed[id]
}
