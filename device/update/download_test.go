package update

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/internal/listener"
)

// bundleServer serves one file with range support, and can drop the
// connection partway through the first request.
type bundleServer struct {
	*httptest.Server
	data     []byte
	dropAt   int // bytes sent before the first response is cut; 0 never
	noRanges bool

	mu     sync.Mutex
	ranges []string
}

func newBundleServer(t *testing.T, size, dropAt int) *bundleServer {
	data := make([]byte, size)
	rand.New(rand.NewSource(1)).Read(data)
	s := &bundleServer{data: data, dropAt: dropAt}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *bundleServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	first := len(s.ranges) == 1
	s.mu.Unlock()
	if s.noRanges {
		r.Header.Del("Range")
	}
	if first && s.dropAt > 0 {
		w.Header().Set("Content-Length", strconv.Itoa(len(s.data)))
		w.WriteHeader(http.StatusOK)
		w.Write(s.data[:s.dropAt])
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	http.ServeContent(w, r, "bundle.raucb", time.Time{}, bytes.NewReader(s.data))
}

func (s *bundleServer) manifest() Manifest {
	h := sha256.Sum256(s.data)
	return Manifest{Version: "1.2.0", URL: s.URL + "/bundle.raucb", Size: int64(len(s.data)), SHA256: hex.EncodeToString(h[:])}
}

func TestDownloadReportsProgress(t *testing.T) {
	srv := newBundleServer(t, 300_000, 0)
	d := Downloader{HTTP: srv.Client(), Dir: t.TempDir()}
	var seen []Progress
	path, err := d.Fetch(t.Context(), srv.manifest(), func(p Progress) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, srv.data) {
		t.Fatal("the downloaded bundle differs from the served one")
	}
	if len(seen) < 10 || seen[0].Percent != 0 || seen[len(seen)-1].Percent != 100 || seen[len(seen)-1].Done != 300_000 {
		t.Fatalf("progress %v: want 0 %% to 100 %% in steps", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Percent < seen[i-1].Percent || seen[i].Stage != "download" {
			t.Fatalf("progress went %v then %v", seen[i-1], seen[i])
		}
	}
	// Already there: not fetched again.
	if _, err := d.Fetch(t.Context(), srv.manifest(), nil); err != nil {
		t.Fatal(err)
	}
	if len(srv.ranges) != 1 {
		t.Errorf("%d requests; a bundle already downloaded was fetched again", len(srv.ranges))
	}
}

func TestDownloadResumesAfterADroppedConnection(t *testing.T) {
	srv := newBundleServer(t, 500_000, 123_457)
	d := Downloader{HTTP: srv.Client(), Dir: t.TempDir(), Backoff: time.Millisecond}
	path, err := d.Fetch(t.Context(), srv.manifest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, srv.data) {
		t.Fatal("the resumed bundle differs from the served one")
	}
	if len(srv.ranges) != 2 || srv.ranges[0] != "" || srv.ranges[1] != "bytes=123457-" {
		t.Errorf("requests with ranges %q; want a fresh one, then one from byte 123457", srv.ranges)
	}
	if _, err := os.Stat(path + ".part"); !errors.Is(err, os.ErrNotExist) {
		t.Error("the partial file is left behind")
	}
}

func TestDownloadStartsOverWithoutRangeSupport(t *testing.T) {
	srv := newBundleServer(t, 200_000, 50_000)
	srv.noRanges = true
	d := Downloader{HTTP: srv.Client(), Dir: t.TempDir(), Backoff: time.Millisecond}
	path, err := d.Fetch(t.Context(), srv.manifest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, srv.data) {
		t.Fatal("restarted download differs from the served one")
	}
}

func TestDownloadRefusesAChecksumMismatch(t *testing.T) {
	srv := newBundleServer(t, 100_000, 0)
	dir := t.TempDir()
	d := Downloader{HTTP: srv.Client(), Dir: dir}
	m := srv.manifest()
	m.SHA256 = sum // the sha256 of something else
	_, err := d.Fetch(t.Context(), m, nil)
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "the manifest says "+sum) {
		t.Fatalf("error %v, want a sha256 mismatch naming both sums", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 0 {
		t.Errorf("left %v after a bad download; want nothing", left)
	}
	m = srv.manifest()
	m.Size = 99_000
	if _, err := d.Fetch(t.Context(), m, nil); !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "100000 bytes, the manifest says 99000") {
		t.Errorf("size mismatch: %v", err)
	}
}

func TestDownloadGivesUpOnAMissingBundle(t *testing.T) {
	srv := newBundleServer(t, 1000, 0)
	d := Downloader{HTTP: srv.Client(), Dir: t.TempDir(), Backoff: time.Millisecond}
	m := srv.manifest()
	m.URL = srv.URL + "/gone.raucb"
	srv.Config.Handler = http.NotFoundHandler()
	_, err := d.Fetch(t.Context(), m, nil)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("error %v, want the 404", err)
	}
}

// A bundle that would eat into the data partition's reserve is refused
// before a byte is fetched; with room it downloads.
func TestDownloadRefusesToCrossTheFloor(t *testing.T) {
	s := newBundleServer(t, 4<<20, 0)
	m := s.manifest()
	free := int64(18 << 20)
	d := Downloader{HTTP: s.Client(), Dir: t.TempDir(), Floor: 16 << 20, Free: func(string) (int64, error) { return free, nil }}
	_, err := d.Fetch(t.Context(), m, func(Progress) {})
	if !errors.Is(err, ErrNoRoom) || !strings.Contains(err.Error(), "needs 4.0 MiB more, the data partition has 18.0 MiB free and keeps 16.0 MiB in reserve") {
		t.Errorf("fetch without room: %v", err)
	}
	s.mu.Lock()
	if n := len(s.ranges); n != 0 {
		t.Errorf("%d requests made for a bundle with no room", n)
	}
	s.mu.Unlock()
	free = 64 << 20
	if _, err := d.Fetch(t.Context(), m, func(Progress) {}); err != nil {
		t.Errorf("fetch with room: %v", err)
	}
}

// Bundles of other versions are removed before a download, so that the
// partition that held the last update has room for the next; a partial
// download of the version asked for is resumed, and nothing that is not
// named as a bundle of the Downloader's is touched.
func TestDownloadClearsOtherVersionsFirst(t *testing.T) {
	srv := newBundleServer(t, 2<<20, 0)
	m := srv.manifest() // 1.2.0
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "kept.raucb")
	for name, size := range map[string]int{
		"hark-1.1.0.raucb":      2 << 20, // installed an update ago
		"hark-1.1.0.raucb.part": 1 << 20,
		"hark-download.raucb":   1000, // from a bundle URL given by hand
		"uploaded.raucb":        10,
		"last-result.json":      10,
		"hark-1.1.0.raucb.sig":  10,
		"old-hark-1.0.0.raucb":  10,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "hark-1.2.0.raucb.part"), srv.data[:300_000], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "hark-0.9.0.raucb"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, []byte("a bundle kept elsewhere"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "hark-0.8.0.raucb")); err != nil {
		t.Fatal(err)
	}
	// A partition of 6 MiB that keeps 1 MiB in reserve: with the old
	// bundle and its partial still there, the new one would not fit.
	free := func(string) (int64, error) {
		used := int64(0)
		filepath.WalkDir(dir, func(_ string, e os.DirEntry, _ error) error {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
				used += info.Size()
			}
			return nil
		})
		return 6<<20 - used, nil
	}
	d := Downloader{HTTP: srv.Client(), Dir: dir, Floor: 1 << 20, Free: free}
	path, err := d.Fetch(t.Context(), m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, srv.data) {
		t.Fatal("the downloaded bundle differs from the served one")
	}
	if want := []string{"bytes=300000-"}; !slices.Equal(srv.ranges, want) {
		t.Errorf("requests with ranges %q, want %q: the partial download of 1.2.0 resumed", srv.ranges, want)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{"hark-0.8.0.raucb", "hark-0.9.0.raucb", "hark-1.1.0.raucb.sig", "hark-1.2.0.raucb", "last-result.json", "old-hark-1.0.0.raucb", "uploaded.raucb"}
	if !slices.Equal(left, want) {
		t.Errorf("after the download the directory holds %q, want %q", left, want)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the file a link named like a bundle points at: %v", err)
	}
}

// Removing every bundle (after an install) leaves the rest.
func TestPruneRemovesOnlyBundles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"hark-1.1.0.raucb", "hark-1.2.0.raucb.part", "hark-.raucb", "hark-1.0.0.raucb.part.part", "failed-boot-check.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := Downloader{Dir: dir}
	if err := d.prune(""); err != nil {
		t.Fatal(err)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{"failed-boot-check.json", "hark-.raucb", "hark-1.0.0.raucb.part.part"}; !slices.Equal(left, want) {
		t.Errorf("left %q, want %q", left, want)
	}
	if err := (&Downloader{}).prune(""); err != nil {
		t.Errorf("a Downloader without a directory: %v", err)
	}
	if err := (&Downloader{Dir: filepath.Join(dir, "none")}).prune(""); err != nil {
		t.Errorf("a directory not made yet: %v", err)
	}
}

// pipeServer serves h over net.Pipe connections, so that HTTP runs in a
// synctest bubble (a goroutine waiting on a real socket is not durably
// blocked, and the bubble's clock would stand still). The transport
// dials it; stop shuts the server down.
func pipeServer(h http.Handler) (tr *http.Transport, stop func()) {
	ln := listener.NewPipe(&net.TCPAddr{IP: net.IPv4(192, 168, 1, 10), Port: 8080})
	srv := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() { srv.Serve(ln); close(served) }()
	tr = &http.Transport{DialContext: ln.DialContext}
	return tr, func() {
		srv.Close()
		<-served
		tr.CloseIdleConnections()
	}
}

// A server that stops sending without closing the connection (a NAS gone
// to sleep, a laptop's Wi-Fi dropped) ends the attempt after a minute of
// silence, and the download resumes from where it stopped; before, it
// waited for ever, and on the web page the install job refused every
// other install meanwhile.
func TestDownloadResumesAfterAStall(t *testing.T) {
	for _, c := range []struct {
		name    string
		headers bool // the first answer never gets as far as its headers
		agent   bool // download with the client NewAgent makes, as the box does
		resume  string
	}{
		{name: "the body stops midway", resume: "bytes=36864-"},
		{name: "the body stops midway, on the box's agent", agent: true, resume: "bytes=36864-"},
		{name: "no answer at all", headers: true, resume: ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				data := []byte(strings.Repeat("hark bundle bytes ", 4096))
				sum := sha256.Sum256(data)
				release := make(chan struct{})
				var mu sync.Mutex
				var ranges []string
				tr, stop := pipeServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					ranges = append(ranges, r.Header.Get("Range"))
					first := len(ranges) == 1
					mu.Unlock()
					if first {
						if !c.headers {
							w.Header().Set("Content-Length", strconv.Itoa(len(data)))
							w.WriteHeader(http.StatusOK)
							w.Write(data[:len(data)/2])
							w.(http.Flusher).Flush()
						}
						<-release // silence; the connection stays up
						return
					}
					http.ServeContent(w, r, "bundle.raucb", time.Time{}, bytes.NewReader(data))
				}))
				defer stop()
				defer close(release)
				d := Downloader{HTTP: &http.Client{Transport: tr}, Dir: t.TempDir()}
				if c.agent {
					a := NewAgent(AgentOptions{Dir: t.TempDir(), Running: "1.0.0"})
					a.Download.HTTP.Transport.(userAgent).rt.(*http.Transport).DialContext = tr.DialContext
					d = a.Download
				}
				m := Manifest{Version: "1.3.0", URL: "http://updates.lan:8080/hark-1.3.0.raucb", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}

				// An hour stands for never: the update unit allows 6 h,
				// the page's install has no deadline.
				ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
				defer cancel()
				start := time.Now()
				path, err := d.Fetch(ctx, m, nil)
				waited := time.Since(start)
				if err != nil {
					t.Fatalf("after %v: %v; want the stalled attempt dropped after a minute and the download resumed", waited, err)
				}
				if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
					t.Error("the resumed bundle differs from the served one")
				}
				if waited < time.Minute || waited > 2*time.Minute {
					t.Errorf("the download took %v, want a minute of silence and a retry", waited)
				}
				mu.Lock()
				defer mu.Unlock()
				if want := []string{"", c.resume}; !slices.Equal(ranges, want) {
					t.Errorf("requests with ranges %q, want %q", ranges, want)
				}
			})
		})
	}
}

// A fault of the download's own file is no fault of the network's: the
// download fails at once, saying what went wrong, instead of asking the
// server again five times with growing pauses.
func TestDownloadDoesNotRetryAFaultOfItsFile(t *testing.T) {
	for _, c := range []struct {
		name     string
		part     func(t *testing.T, part string)
		says     string
		requests int
	}{
		{"the partial file cannot be opened", func(t *testing.T, part string) {
			if err := os.Mkdir(part, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "is a directory", 0},
		{"the partition is full", func(t *testing.T, part string) {
			if _, err := os.Stat("/dev/full"); err != nil {
				t.Skip("no /dev/full to stand for a full partition")
			}
			if err := os.Symlink("/dev/full", part); err != nil {
				t.Fatal(err)
			}
		}, "no space left on device", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				data := []byte("hark-rpi4-64 1.3.0")
				sum := sha256.Sum256(data)
				var requests atomic.Int32
				tr, stop := pipeServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					requests.Add(1)
					w.Write(data)
				}))
				defer stop()
				dir := t.TempDir()
				c.part(t, filepath.Join(dir, "hark-1.3.0.raucb.part"))
				d := Downloader{HTTP: &http.Client{Transport: tr}, Dir: dir}
				m := Manifest{Version: "1.3.0", URL: "http://updates.lan:8080/hark-1.3.0.raucb", Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
				start := time.Now()
				_, err := d.Fetch(t.Context(), m, nil)
				if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "hark-1.3.0.raucb.part") {
					t.Errorf("error %v, want one naming the file and saying %q", err, c.says)
				}
				if waited := time.Since(start); waited != 0 {
					t.Errorf("failed after %v of retries, want at once", waited)
				}
				if n := requests.Load(); int(n) != c.requests {
					t.Errorf("%d requests, want %d", n, c.requests)
				}
			})
		})
	}
}
