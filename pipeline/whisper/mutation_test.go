//go:build whisper && cgo

package whisper

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be the probe's child process.
func TestMain(m *testing.M) {
	if os.Getenv("HARK_PROBE_CHILD") == "1" {
		model := os.Args[len(os.Args)-1]
		if err := ProbeChild(context.Background(), model); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// selfProbe is the probe with this test binary as the child.
func selfProbe(timeout time.Duration) func(context.Context, string) error {
	return ProbeCommand{Path: os.Args[0], Args: []string{"-test.run=^$"}, Env: []string{"HARK_PROBE_CHILD=1"}, Timeout: timeout}.Probe
}

// TestCorruptModelsNeverTakeTheProcessDown: 60 random byte mutations of
// the shared test model (a fixed seed), each loaded the way the daemon
// loads a model: the file check, the probe in a child process, then the
// load in this process. None may abort or hang this process; each is
// either a model that loads and transcribes, or a clear error.
func TestCorruptModelsNeverTakeTheProcessDown(t *testing.T) {
	src := sharedModel(t, "for-tests-ggml-tiny.en.bin")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(60, 2026))
	dir := t.TempDir()
	var checked, probed, loaded int
	kinds := map[string]int{}
	for i := range 60 {
		m := append([]byte(nil), data...)
		at := rng.IntN(len(m))
		v := byte(rng.IntN(256))
		for v == m[at] {
			v = byte(rng.IntN(256))
		}
		m[at] = v
		path := filepath.Join(dir, fmt.Sprintf("mutant-%02d.bin", i))
		if err := os.WriteFile(path, m, 0o644); err != nil {
			t.Fatal(err)
		}
		e, err := New(Options{Model: path, Threads: 1, Language: "en", Probe: selfProbe(60 * time.Second)})
		switch {
		case err != nil && CheckModel(path) != nil:
			checked++
			kinds["refused by the file check"]++
		case err != nil:
			probed++
			switch {
			case strings.Contains(err.Error(), "crashed"):
				kinds["refused by the probe: whisper.cpp crashed in the child"]++
			case strings.Contains(err.Error(), "did not finish"):
				kinds["refused by the probe: the child overran"]++
			default:
				kinds["refused by the probe: the child's error"]++
			}
		default:
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			_, rerr := e.Run(ctx, make([]float32, 16000))
			cancel()
			e.Close()
			if rerr != nil {
				t.Errorf("mutant %d (byte %d = %d) loaded but did not transcribe: %v", i, at, v, rerr)
			}
			loaded++
			kinds["loaded and transcribed"]++
		}
		if err != nil && !strings.HasPrefix(err.Error(), "whisper: ") {
			t.Errorf("mutant %d (byte %d = %d): unclear error %q", i, at, v, err)
		}
	}
	t.Logf("60 mutations: %d refused by the file check, %d by the probe, %d loaded; %v", checked, probed, loaded, kinds)
}

func sharedModel(t *testing.T, name string) string {
	path := filepath.Join("..", "..", "..", "shared", "models", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not available (../shared beside the repository): %v", name, err)
	}
	return path
}
