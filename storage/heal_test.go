package storage

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The empty memtable or value-log file a crash leaves no longer stops the
// next open, and nothing stored is lost.
func TestOpenHealsAnEmptyFileACrashLeft(t *testing.T) {
	for _, name := range []string{"00009.mem", "000009.vlog"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Facts().Add(t.Context(), "the spare key is under the mat", time.Now()); err != nil {
				t.Fatal(err)
			}
			db.Close()
			os.WriteFile(filepath.Join(dir, name), nil, 0o644)
			var log strings.Builder
			db, err = Open(dir, Options{Log: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatalf("first open after the crash: %v", err)
			}
			defer db.Close()
			facts, err := db.Facts().All(t.Context())
			if err != nil || len(facts) != 1 {
				t.Errorf("facts after healing: %v %v", facts, err)
			}
			if !strings.Contains(log.String(), "removed an empty file") || !strings.Contains(log.String(), name) {
				t.Errorf("the healing is not logged with the file's name:\n%s", log.String())
			}
		})
	}
}

// A file that holds data is never removed, even when the open fails.
func TestHealNeverRemovesData(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "00003.mem"), append(make([]byte, logHeader+5), 7, 0), 0o644)
	os.WriteFile(filepath.Join(dir, "00004.mem"), append([]byte("header: key id, IV!!"), make([]byte, 4096)...), 0o644)
	healed, err := heal(dir, fmt.Errorf("while opening memtables err: Create a new file"), slog.New(slog.DiscardHandler))
	if err != nil || !healed {
		t.Fatalf("heal: %v %v", healed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "00003.mem")); err != nil {
		t.Error("a memtable holding a byte past its header was removed")
	}
	if _, err := os.Stat(filepath.Join(dir, "00004.mem")); err == nil {
		t.Error("a memtable with a header and no entry was kept")
	}
	if healed, _ := heal(dir, fmt.Errorf("some other failure"), slog.New(slog.DiscardHandler)); healed {
		t.Error("healed after an unrelated error")
	}
}

// The kill -9 loop: a child writes with synchronous writes and prints each
// write once Badger acknowledged it; the parent kills it at a random point,
// then reopens and checks that the first open succeeds and every
// acknowledged write is there. 20 cycles in go test; HARK_SOAK=1 (make
// soak) runs 300.
func TestKillLoop(t *testing.T) {
	if dir := os.Getenv("HARK_KILL_CHILD"); dir != "" {
		killChild(dir)
		return
	}
	if testing.Short() {
		t.Skip("-short: the kill -9 loop spawns processes")
	}
	cycles := 20
	if os.Getenv("HARK_SOAK") != "" {
		cycles = 300
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	acked := map[string]bool{}
	var firstOpenFailures, lost, total int
	for c := range cycles {
		cmd := exec.Command(exe, "-test.run", "^TestKillLoop$")
		cmd.Env = append(os.Environ(), "HARK_KILL_CHILD="+dir, "HARK_KILL_CYCLE="+strconv.Itoa(c))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			skipUnderEmulation(t, err)
			t.Fatal(err)
		}
		// Kill at a random moment: while opening, or after some writes.
		deadline := time.After(time.Duration(rng.IntN(400)) * time.Millisecond)
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				if k, ok := strings.CutPrefix(l, "acked "); ok {
					acked[k] = true
					total++
				} else if strings.HasPrefix(l, "open failed") {
					firstOpenFailures++
					t.Errorf("cycle %d: %s", c, l)
				}
			case <-deadline:
				cmd.Process.Signal(syscall.SIGKILL)
				deadline = nil
			}
		}
		cmd.Wait()
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("final open: %v", err)
	}
	defer db.Close()
	have := map[string]bool{}
	db.scan(context.Background(), "read", "kill/", func(key string, _ []byte) error {
		have[strings.TrimPrefix(key, "kill/")] = true
		return nil
	})
	for k := range acked {
		if !have[k] {
			lost++
		}
	}
	t.Logf("kill -9 loop: %d cycles, %d acknowledged writes, %d lost, %d first-open failures", cycles, total, lost, firstOpenFailures)
	if lost > 0 {
		t.Errorf("%d acknowledged writes lost", lost)
	}
}

// killChild opens the store, reports a failed first open, and writes until
// it is killed, printing each write once it is acknowledged.
func killChild(dir string) {
	db, err := Open(dir, Options{})
	if err != nil {
		fmt.Printf("open failed: %v\n", err)
		os.Exit(1)
	}
	cycle := os.Getenv("HARK_KILL_CYCLE")
	for i := 0; ; i++ {
		k := cycle + "-" + strconv.Itoa(i)
		if err := db.put(context.Background(), "write", "kill/"+k, strings.Repeat("x", i%300)); err != nil {
			fmt.Printf("write failed: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("acked %s\n", k)
		if i == 2000 {
			db.Close()
			os.Exit(0)
		}
	}
}

// skipUnderEmulation skips a test whose child process (this test binary
// run again) cannot start because the binary is for another architecture,
// run under qemu without binfmt.
func skipUnderEmulation(t *testing.T, err error) {
	t.Helper()
	if strings.Contains(err.Error(), "exec format error") {
		t.Skipf("cannot run this test binary again as a child under emulation: %v", err)
	}
}
