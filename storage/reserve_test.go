package storage

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/sharedtest"
)

// The reserve with the free space told by the test: writes are refused
// below the floor (the ballast given up once, the state logged once),
// reads go on, and writes resume with room for the floor and the ballast.
func TestReserveRefusesWritesBelowTheFloor(t *testing.T) {
	dir := t.TempDir()
	var free atomic.Int64
	free.Store(1 << 30)
	var log strings.Builder
	db, err := Open(dir, Options{Floor: 16 << 20, Ballast: 8 << 20, Free: func(string) (int64, error) { return free.Load(), nil },
		Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	ballast := filepath.Join(dir, ballastFile)
	if st, err := os.Stat(ballast); err != nil || st.Size() != 8<<20 {
		t.Fatalf("ballast: %v %v", st, err)
	}
	if _, err := db.Facts().Add(ctx, "kept before the disk filled", time.Now()); err != nil {
		t.Fatal(err)
	}

	free.Store(10 << 20)
	_, err = db.Facts().Add(ctx, "refused", time.Now())
	if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "10.0 MiB free on the data partition, below the 16.0 MiB reserve") {
		t.Errorf("write below the floor: %v, want ErrFull naming the free space and the floor", err)
	}
	if err := db.Dialogue().Append(ctx, Exchange{At: time.Now(), Conversation: "c", User: "hi"}); !errors.Is(err, ErrFull) {
		t.Errorf("dialogue below the floor: %v", err)
	}
	if err := db.Settings().Set(ctx, "volume", 3); !errors.Is(err, ErrFull) {
		t.Errorf("settings below the floor: %v", err)
	}
	if !db.Full() {
		t.Error("Full() is false below the floor")
	}
	if _, err := os.Stat(ballast); !os.IsNotExist(err) {
		t.Error("the ballast was not released")
	}
	if facts, err := db.Facts().All(ctx); err != nil || len(facts) != 1 {
		t.Errorf("reads while full: %v %v", facts, err)
	}
	// The schedule goes on, into the reserve, so timers set still ring.
	if err := db.Schedule().Put(ctx, Item{ID: "timer-1", Kind: Timer, State: Ringing}); err != nil {
		t.Errorf("the schedule on a full disk: %v", err)
	}
	free.Store(3 << 20)
	if err := db.Schedule().Put(ctx, Item{ID: "timer-1", Kind: Timer, State: Done}); !errors.Is(err, ErrFull) {
		t.Errorf("the schedule below a quarter of the floor: %v, want ErrFull", err)
	}
	free.Store(10 << 20)
	if strings.Count(log.String(), "storage is full") != 1 {
		t.Errorf("want one log line that the storage is full:\n%s", log.String())
	}

	// Room for the floor but not the ballast: still refused.
	free.Store(20 << 20)
	if _, err := db.Facts().Add(ctx, "still refused", time.Now()); !errors.Is(err, ErrFull) {
		t.Errorf("between the floor and the ballast: %v", err)
	}
	free.Store(100 << 20)
	if _, err := db.Facts().Add(ctx, "room again", time.Now()); err != nil {
		t.Errorf("after room came back: %v", err)
	}
	if db.Full() {
		t.Error("still full with room")
	}
	if _, err := os.Stat(ballast); err != nil {
		t.Error("the ballast was not made again")
	}
}

// TestDiskFullOnARealFilesystem fills a small tmpfs under a process that
// keeps writing to the store: it is never killed by a signal (no SIGBUS),
// its writes are refused with ErrFull, what it wrote before reads back,
// and once room is freed it writes again.
func TestDiskFullOnARealFilesystem(t *testing.T) {
	if dir := os.Getenv("HARK_FULL_CHILD"); dir != "" {
		fullChild(dir)
		return
	}
	mnt := sharedtest.SmallDisk(t, "96m")
	data := filepath.Join(mnt, "data")
	os.MkdirAll(data, 0o700)

	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run", "^TestDiskFullOnARealFilesystem$")
	cmd.Env = append(os.Environ(), "HARK_FULL_CHILD="+data)
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		skipUnderEmulation(t, err)
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	next := func() string {
		if !lines.Scan() {
			return "EOF"
		}
		return lines.Text()
	}
	if l := next(); l != "open" {
		t.Fatalf("child: %s", l)
	}
	// Another program fills the partition, a megabyte at a time, while the
	// child keeps writing until a write is refused.
	filler, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(stdin, "write until full")
	mb := make([]byte, 1<<20)
	for i := 0; ; i++ {
		if _, err := filler.Write(mb); err != nil {
			break // the filesystem is full
		}
		if i > 200 {
			t.Fatal("the tmpfs never filled")
		}
	}
	filler.Sync()
	if l := next(); !strings.HasPrefix(l, "refused after ") || !strings.Contains(l, "the storage is full") {
		t.Errorf("writing while the disk filled: %q, want refused with ErrFull", l)
	} else {
		t.Logf("disk filled under a writer: %s", l)
	}
	start := time.Now()
	fmt.Fprintln(stdin, "write")
	refused := next()
	if !strings.HasPrefix(refused, "refused: storage: ") || !strings.Contains(refused, "the storage is full") {
		t.Errorf("write on a full disk: %q, want refused with ErrFull", refused)
	}
	t.Logf("disk full: the write was refused %v after the filesystem filled: %s", time.Since(start).Round(time.Millisecond), refused)
	fmt.Fprintln(stdin, "read")
	if l := next(); l != "read ok" {
		t.Errorf("read while full: %q", l)
	}
	// Room again.
	filler.Close()
	os.Remove(filepath.Join(mnt, "filler"))
	fmt.Fprintln(stdin, "write")
	if l := next(); l != "written" {
		t.Errorf("write after room was freed: %q", l)
	}
	stdin.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("the writer was killed by %v", ws.Signal())
		}
		t.Fatalf("the writer failed: %v", err)
	}
}

// fullChild opens the store and writes a batch at each "write", reading
// back at each "read", reporting on stdout.
func fullChild(dir string) {
	db, err := Open(dir, Options{Ballast: 8 << 20})
	if err != nil {
		fmt.Println("open failed:", err)
		os.Exit(1)
	}
	fmt.Println("open")
	ctx := context.Background()
	if _, err := db.Facts().Add(ctx, "written before the disk filled", time.Now()); err != nil {
		fmt.Println("first write failed:", err)
	}
	sc := bufio.NewScanner(os.Stdin)
	written := 0
	for sc.Scan() {
		switch sc.Text() {
		case "write":
			var err error
			for i := 0; i < 200 && err == nil; i++ {
				written++ // each a fact of its own: one told again is not written again
				_, err = db.Facts().Add(ctx, fmt.Sprintf("%s%d", strings.Repeat("a fact worth keeping ", 50), written), time.Now())
			}
			if err != nil {
				fmt.Println("refused:", err)
			} else {
				fmt.Println("written")
			}
		case "write until full":
			var err error
			n := 0
			for ; n < 1_000_000 && err == nil; n++ {
				written++
				_, err = db.Facts().Add(ctx, fmt.Sprintf("%s%d", strings.Repeat("a fact worth keeping ", 50), written), time.Now())
			}
			fmt.Printf("refused after %d writes: %v\n", n, err)
		case "read":
			facts, err := db.Facts().All(ctx)
			if err != nil || len(facts) == 0 || facts[0].Text != "written before the disk filled" {
				fmt.Println("read failed:", err)
			} else {
				fmt.Println("read ok")
			}
		}
	}
	if err := db.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "close:", err)
	}
}
