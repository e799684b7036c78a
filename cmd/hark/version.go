package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/harkbox/hark/pipeline/whisper"
)

// version is set at link time: -ldflags "-X main.version=1.2.3".
var version = "dev"

func cmdVersion(ctx context.Context, e env, g *globals, args []string) error {
	if err := parse(e, flags("version", e, g), args); err != nil {
		return err
	}
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				rev = " (" + s.Value[:12] + ")"
			}
		}
	}
	fmt.Fprintf(e.stdout, "hark %s%s\n", version, rev)
	fmt.Fprintf(e.stdout, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintln(e.stdout, "speech-to-text: "+whisper.Version())
	tts := "espeak-ng not installed"
	if out, err := exec.CommandContext(ctx, "espeak-ng", "--version").Output(); err == nil {
		tts = strings.TrimSpace(string(bytes.SplitN(out, []byte("  "), 2)[0]))
	}
	fmt.Fprintln(e.stdout, "text-to-speech: "+tts)
	return nil
}
