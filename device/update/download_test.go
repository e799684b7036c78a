package update

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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
