package schedule

import "github.com/harkbox/hark/reply/schedule/scheduletest"

// newMemStore is the in-memory store: the firing tests use it under
// synctest; the restart tests use the real store.
func newMemStore() *scheduletest.Store { return scheduletest.New() }
