package control_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/harkbox/hark/device/control"
)

// box is a daemon's state as its API serves it.
type box struct{}

func (box) Status(context.Context) control.Status {
	return control.Status{State: "idle", Ready: true, Version: "1.2.3",
		Checks: []control.Check{{Name: "storage", OK: true, Detail: "open"}}}
}
func (box) WaitIdle(context.Context) error { return nil }
func (box) SetUpdating(bool, int)          {}

// A client of the daemon's API over its unix socket: what every `hark`
// command does. The daemon serves the handler of its resources; a
// resource it lacks answers that this daemon does not serve it.
func ExampleClient() {
	dir, _ := os.MkdirTemp("", "hark-example")
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "control.sock")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go control.Serve(ctx, sock, control.Handler(control.API{Box: box{}}), nil)

	c := control.Dial(sock)
	defer c.Close()
	var st control.Status
	var err error
	for range 50 { // the daemon is starting
		if st, err = c.Status(ctx); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		log.Fatal(err)
	}
	healthy, _ := st.Healthy()
	fmt.Println(st.State, st.Version, "healthy:", healthy)
	_, err = c.Alerts(ctx, false)
	fmt.Println(err)
	// Output:
	// idle 1.2.3 healthy: true
	// control: not found: this daemon does not serve alerts
}
