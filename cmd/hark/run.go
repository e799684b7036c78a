package main

import (
	"context"
	"strings"
	"time"

	"github.com/harkbox/hark/device/box"
	"github.com/harkbox/hark/device/box/config"
)

// cmdRun runs the appliance until SIGINT or SIGTERM (or, in simulation,
// until standard input ends).
func cmdRun(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("run", e, g)
	simulate := fs.Bool("sim", false, "simulate the hardware on this computer (the default for board = \"sim\")")
	micWAV := fs.String("mic-wav", "", "WAV `file` to use as the microphone in simulation")
	verbose := fs.Bool("verbose", false, "in simulation, show the log on the terminal too (it always goes to hark.log in the data directory)")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	var overrides []override
	if *simulate {
		overrides = append(overrides, override{"board", "sim", "--sim"})
	}
	if *micWAV != "" {
		overrides = append(overrides, override{"sim.mic_wav", *micWAV, "--mic-wav"})
	}
	return box.Run(ctx, box.RunOptions{
		Version: version,
		Load: func() (*config.Loaded, config.Resolved, error) {
			// The daemon says what of the settings did not load: in its
			// log and its status.
			return readConfig(e, g, false, overrides...)
		},
		Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, StdoutTTY: e.stdoutTTY,
		Verbose: *verbose,
	})
}

// cmdSmoketest checks the board's hardware the way go test cannot, with a
// PASS, FAIL or SKIP line for each check.
func cmdSmoketest(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("smoketest", e, g)
	skip := fs.String("skip", "", "comma-separated checks to leave out: mic, speaker, button, leds")
	listen := fs.Duration("listen", 3*time.Second, "how long the microphone check listens")
	wait := fs.Duration("wait", 10*time.Second, "how long the button check waits for a press")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	cfg, _, err := loadConfig(e, g)
	if err != nil {
		return err
	}
	return box.Smoketest(ctx, cfg, box.SmokeOptions{Skip: strings.Split(*skip, ","), Listen: *listen, Wait: *wait}, e.stdout)
}
