package box_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/harkbox/hark/device/box"
	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
)

// A box opened from its configuration, as a one-shot `hark` command opens
// it when no daemon runs: its API answers in process, through the same
// handlers the daemon serves on its socket. A timer is set by voice's own
// rules and listed; with no model server, what the box understands
// offline is still answered.
func Example() {
	dir, _ := os.MkdirTemp("", "hark-example")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "hark.toml")
	os.WriteFile(file, []byte("[ollama]\nhost = \"http://127.0.0.1:9\"\n"), 0o600)
	env := func(k string) string { return map[string]string{"HOME": dir}[k] }
	cfg, err := config.Load(file, env)
	if err != nil {
		log.Fatal(err)
	}
	cfg.Override("data_dir", filepath.Join(dir, "data"), "example")
	res, err := cfg.Resolve(env)
	if err != nil {
		log.Fatal(err)
	}

	b, err := box.Open(cfg, res, box.Options{Version: "1.2.3"})
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	api := control.Local(control.Handler(b.API()))
	defer api.Close()
	ctx := context.Background()
	if _, err := api.Ask(ctx, control.Question{Text: "set a tea timer for 4 minutes"}, func(s string) { fmt.Println("says:", s) }); err != nil {
		log.Fatal(err)
	}
	timers, _ := api.Alerts(ctx, false)
	fmt.Println("timers:", len(timers), timers[0].Name)
	st, _ := api.Status(ctx)
	fmt.Println("state:", st.State)
	// Output:
	// says: Tea timer set for 4 minutes.
	// timers: 1 tea
	// state: stopped
}
