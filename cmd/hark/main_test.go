package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps the tests off this machine's sound card: alsa-lib reads
// a configuration with only the null device, so `hark run --sim` in a
// build with ALSA uses its WAV stand-ins, as it does on a machine with no
// sound card. Tests that want ALSA devices define their own.
//
// hark run re-executes its own binary to probe a whisper model; under go
// test that binary is this one, so it plays hark for that command.
func TestMain(m *testing.M) {
	if os.Getenv("HARK_MCP_SERVE") != "" {
		serveMCP() // this binary is a test's MCP server
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "probe-model" {
		os.Exit(run(context.Background(), os.Args[1:], env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}))
	}
	dir, err := os.MkdirTemp("", "hark-alsa")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	conf := filepath.Join(dir, "asound.conf")
	if err := os.WriteFile(conf, []byte("pcm.null { type null }\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("ALSA_CONFIG_PATH", conf)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
