package clock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// kernelSynced asks the kernel whether NTP has synchronised the clock
// (adjtimex, reading only); known is false where it cannot be asked (a
// sandbox that filters the clock calls).
func kernelSynced() (synced, known bool) {
	var tx unix.Timex
	state, err := unix.Adjtimex(&tx)
	if err != nil {
		return false, false
	}
	return state != unix.TIME_ERROR && tx.Status&unix.STA_UNSYNC == 0, true
}

// watchSteps sends on stepped each time the wall clock is set, until ctx
// is done, when the returned channel closes: a timerfd armed far in the future with TFD_TIMER_CANCEL_ON_SET,
// which the kernel cancels when the clock is set (settimeofday,
// clock_settime, an NTP step).
func watchSteps(ctx context.Context, stepped chan<- struct{}) (<-chan struct{}, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_REALTIME, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("clock: timerfd: %w", err)
	}
	if err := arm(fd); err != nil {
		unix.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "clock-steps") // non-blocking: reads wait in the poller
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("clock: timerfd: %w", err)
	}
	context.AfterFunc(ctx, func() { f.Close() })
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 8)
		for {
			_, err := f.Read(b)
			if !errors.Is(err, syscall.ECANCELED) {
				return // closed (an expiry, 35,000 years on, ends it too)
			}
			select {
			case stepped <- struct{}{}:
			default:
			}
			var armErr error
			if err := rc.Control(func(fd uintptr) { armErr = arm(int(fd)) }); err != nil || armErr != nil {
				return
			}
		}
	}()
	return done, nil
}

// arm sets the timerfd to expire at the latest time the board's clock
// holds (2038 where time_t has 32 bits), cancelled when the clock is set.
func arm(fd int) error {
	var spec unix.ItimerSpec
	spec.Value.Sec = 1<<(8*unsafe.Sizeof(spec.Value.Sec)-1) - 1
	if err := unix.TimerfdSettime(fd, unix.TFD_TIMER_ABSTIME|unix.TFD_TIMER_CANCEL_ON_SET, &spec, nil); err != nil {
		return fmt.Errorf("clock: arm timerfd: %w", err)
	}
	return nil
}

// setSystemClock sets the wall clock (CLOCK_REALTIME) to t.
func setSystemClock(t time.Time) error {
	ts := unix.NsecToTimespec(t.UnixNano())
	return unix.ClockSettime(unix.CLOCK_REALTIME, &ts)
}
