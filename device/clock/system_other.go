//go:build !linux

package clock

import (
	"context"
	"errors"
	"time"
)

var errNoWatch = errors.New("clock: no kernel notice of clock steps on this system")

func kernelSynced() (synced, known bool) { return false, false }

func watchSteps(ctx context.Context, stepped chan<- struct{}) (<-chan struct{}, error) {
	return nil, errNoWatch
}

func setSystemClock(t time.Time) error {
	return errors.New("clock: setting the clock is done only on Linux")
}
