//go:build alsa && cgo && linux

package alsa

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

// stallShim is an ALSA failure double, preloaded under the real alsa-lib:
// a playback device whose clock stops as it drains (a hung USB DAC, a
// stuck I2S clock). The drain is taken and the PCM reports draining from
// then on, until it is dropped.
const stallShim = `
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
static int draining;
int snd_pcm_drain(void *pcm) { draining = 1; return -EAGAIN; }
int snd_pcm_state(void *pcm) {
	static int (*real)(void *);
	if (draining) return 5; /* SND_PCM_STATE_DRAINING */
	if (!real) real = (int (*)(void *))dlsym(RTLD_NEXT, "snd_pcm_state");
	return real(pcm);
}
int snd_pcm_drop(void *pcm) {
	static int (*real)(void *);
	draining = 0;
	if (!real) real = (int (*)(void *))dlsym(RTLD_NEXT, "snd_pcm_drop");
	return real(pcm);
}
`

// shim builds an ALSA failure double from C source, or skips.
func shim(t *testing.T, src string) string {
	t.Helper()
	if os.Getenv("HARK_EMULATED") != "" {
		t.Skip("under user-mode emulation (HARK_EMULATED) a double built for the host cannot be preloaded into the emulated test binary")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc is not installed: the ALSA failure double cannot be built")
	}
	dir := t.TempDir()
	c, so := filepath.Join(dir, "shim.c"), filepath.Join(dir, "shim.so")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-shared", "-fPIC", "-o", so, c, "-ldl").CombinedOutput(); err != nil {
		t.Skipf("cannot build the ALSA failure double: %v\n%s", err, out)
	}
	return so
}

// stallHang is how long the parent waits for the child before calling its
// drain hung: far beyond any bound Drain keeps, so it never decides a pass.
const stallHang = 10 * time.Second

// A drain on a device that stopped playing gives up once the audio queued
// has had its time and a margin: it drops the rest and says which device
// stalled, rather than holding the reply (and the box's next turn)
// forever. Both the PCM's Drain and the Speaker's Close, which the
// pipeline calls, return.
func TestDrainOnAStalledDeviceGivesUp(t *testing.T) {
	if os.Getenv("HARK_STALL_CHILD") != "" {
		stallChild(t)
		return
	}
	so := shim(t, stallShim)
	ctx, cancel := context.WithTimeout(t.Context(), stallHang)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestDrainOnAStalledDeviceGivesUp$", "-test.v")
	cmd.Env = append(os.Environ(), "HARK_STALL_CHILD=1", "LD_PRELOAD="+so)
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(err.Error(), "exec format error") {
		t.Skipf("cannot run this test binary again as a child under emulation (nor preload a host-built double into it): %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("a drain on a stalled device had not returned after %v: it waits forever\n%s", stallHang, out)
	}
	if err != nil {
		t.Fatalf("the stalled-device child: %v\n%s", err, out)
	}
	if i := strings.Index(string(out), "stall:"); i >= 0 {
		t.Logf("figure: %s", strings.TrimSpace(strings.SplitN(string(out[i:]), "\n", 2)[0]))
	}
}

func stallChild(t *testing.T) {
	fileDevices(t, `pcm.speaker { type file; slave.pcm "null"; file "/dev/null"; format "raw" }`)
	cfg := Config{Device: "speaker", Format: pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S16LE}}
	clip := make([]float32, 2*4800) // 100 ms

	p, err := Open(Playback, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Write(t.Context(), clip); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = p.Drain(t.Context())
	took := time.Since(start)
	if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), `"speaker"`) {
		t.Errorf("Drain on a stalled device = %v; want ErrStalled naming the device", err)
	}
	fmt.Printf("stall: Drain gave up after %v (a buffer of %d frames at %d Hz): %v\n", took.Round(time.Millisecond), p.buffer, p.format.Rate, err)

	pb, err := NewSpeaker(cfg, nil).Open(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := pb.Write(t.Context(), pcm.Buffer{Rate: 48000, Channels: 2, Samples: clip}); err != nil {
		t.Fatal(err)
	}
	if err := pb.Close(t.Context()); !errors.Is(err, ErrStalled) {
		t.Errorf("the Speaker's Close on a stalled device = %v; want ErrStalled", err)
	}
}
