package update

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/harkbox/hark/internal/disk"
)

// Progress is how far an update has come.
type Progress struct {
	Stage   string // "download" or "install"
	Percent int    // 0 to 100
	Done    int64  // bytes, while downloading
	Total   int64
	Message string // RAUC's step, while installing
}

// Downloader fetches a bundle into a directory, resuming where a broken
// download stopped.
//
// A bundle of version v is hark-v.raucb in Dir, and hark-v.raucb.part
// while it downloads. Those names are the Downloader's own: it removes
// such files of other versions before a download (see Fetch), and
// Agent.Install removes them all once RAUC has written a bundle into a
// slot. Nothing else in Dir is touched. Fetch does not lock Dir;
// Agent.Install does, around its download and install.
type Downloader struct {
	HTTP *http.Client
	// Dir keeps the bundle and its partial download; on the box it is on
	// the data partition, never the read-only root.
	Dir string
	// Attempts is how many times a dropped connection is retried (from
	// where it stopped) before the download fails; 0 means 5.
	Attempts int
	// Backoff is the pause before a retry, growing with each; 0 means 1 s.
	Backoff time.Duration
	// Idle is how long an attempt may go without receiving a byte (while
	// connecting, waiting for the answer or reading the bundle) before it
	// is dropped and retried from where it stopped, like a lost
	// connection; 0 means 60 s.
	Idle time.Duration
	// Floor is the free space the download must leave on Dir's
	// filesystem (the data partition's reserve, so that the store keeps
	// working); 0 checks nothing.
	Floor int64
	// Free reports a directory's free bytes; default statfs.
	Free func(dir string) (int64, error)
}

// ErrNoRoom reports a bundle that would not fit above the reserve.
var ErrNoRoom = errors.New("update: no room for the bundle")

// ErrChecksum reports a download whose size or sha256 is not the
// manifest's. The partial file is removed, so the next try starts over.
var ErrChecksum = errors.New("update: the download does not match the manifest")

// Fetch downloads m's bundle and returns its path. A bundle already there
// with the right sha256 is not fetched again. Bundles and partial
// downloads of other versions are removed first: the data partition has
// room for one, and none of them will be installed now. A partial
// download of m's version is kept and resumed.
//
// A dropped or stalled connection is retried from where it stopped; a
// fault of the bundle's own file (no permission, no space left) is not.
func (d *Downloader) Fetch(ctx context.Context, m Manifest, progress func(Progress)) (string, error) {
	if err := makeDir(d.Dir); err != nil {
		return "", fmt.Errorf("download: %w", err)
	}
	// A file that cannot be removed only costs room, which room checks.
	_ = d.prune(m.Version)
	final := filepath.Join(d.Dir, bundleName(m.Version))
	part := final + partSuffix
	if m.SHA256 == "" {
		os.Remove(part) // nothing to check a partial file against
	} else if sum, err := fileSHA256(final); err == nil && sum == m.SHA256 {
		return final, nil
	}
	if err := d.room(m, part); err != nil {
		return "", err
	}
	attempts := orDefault(d.Attempts, 5)
	backoff := time.Duration(orDefault(int(d.Backoff), int(time.Second)))
	var last error
	for i := range attempts {
		if i > 0 {
			select {
			case <-ctx.Done():
				return "", fmt.Errorf("download: %w", ctx.Err())
			case <-time.After(time.Duration(i) * backoff):
			}
		}
		done, err := d.once(ctx, m, part, progress)
		if err == nil {
			break
		}
		if errors.Is(err, ErrChecksum) || ctx.Err() != nil || !retryable(err) {
			return "", err
		}
		last = err
		if m.Size > 0 && done >= m.Size {
			break
		}
		if i == attempts-1 {
			return "", fmt.Errorf("download %s: gave up after %d attempts: %w", Shown(m.URL), attempts, last)
		}
	}
	sum, err := fileSHA256(part)
	if err != nil {
		return "", fmt.Errorf("download: %w", err)
	}
	if m.SHA256 != "" && sum != m.SHA256 {
		os.Remove(part)
		return "", fmt.Errorf("download %s: sha256 %s, the manifest says %s: %w", Shown(m.URL), sum, m.SHA256, ErrChecksum)
	}
	if err := os.Rename(part, final); err != nil {
		return "", fmt.Errorf("download: %w", err)
	}
	return final, nil
}

// httpError is a server's refusal; a 5xx is worth another try.
type httpError struct {
	url    string
	status int
	text   string
}

func (e *httpError) Error() string {
	return fmt.Sprintf("download %s: the server answered %s", e.url, e.text)
}

// fileError is a fault of the download's own file (no permission, the
// partition full): not the network's, so not worth another try.
type fileError struct{ err error }

func (e *fileError) Error() string { return "download: " + e.err.Error() }
func (e *fileError) Unwrap() error { return e.err }

// errStalled ends an attempt that received nothing for Downloader.Idle.
var errStalled = errors.New("nothing arrived")

func retryable(err error) bool {
	var he *httpError
	if errors.As(err, &he) {
		return he.status >= 500
	}
	var fe *fileError
	return !errors.As(err, &fe) // else a dropped connection, a reset, a timeout, a stall
}

// once makes one request, from where part ends, and appends to it. It
// returns how many bytes part holds afterwards. The attempt ends with
// errStalled when nothing arrives for d.Idle.
func (d *Downloader) once(ctx context.Context, m Manifest, part string, progress func(Progress)) (int64, error) {
	f, err := os.OpenFile(part, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, &fileError{err}
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, &fileError{err}
	}
	known := m.Size > 0 // a bundle URL given by hand has no manifest
	if known && have > m.Size {
		return 0, d.mismatch(part, m, fmt.Sprintf("%d bytes, the manifest says %d", have, m.Size))
	}
	if known && have == m.Size {
		return have, nil
	}
	idle := d.Idle
	if idle <= 0 {
		idle = time.Minute
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	quiet := time.AfterFunc(idle, func() { cancel(errStalled) })
	defer quiet.Stop()
	stalled := func(at, of int64) error {
		return fmt.Errorf("download %s: %w for %s, at %d of %d bytes", Shown(m.URL), errStalled, idle, at, of)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.URL, nil)
	if err != nil {
		return have, fmt.Errorf("download: %w", err)
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	client := d.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(context.Cause(ctx), errStalled) {
			return have, stalled(have, m.Size)
		}
		return have, fmt.Errorf("download %s: %w", Shown(m.URL), err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
	case resp.StatusCode == http.StatusOK:
		// No range support, or a fresh start: from the top.
		if have > 0 {
			if err := f.Truncate(0); err != nil {
				return 0, &fileError{err}
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return 0, &fileError{err}
			}
		}
		have = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		// The file on the server is not the one begun: start again.
		if err := f.Truncate(0); err != nil {
			return have, &fileError{err}
		}
		return 0, &httpError{Shown(m.URL), 503, resp.Status + " (starting again)"}
	default:
		return have, &httpError{Shown(m.URL), resp.StatusCode, resp.Status}
	}
	if known && resp.ContentLength >= 0 && have+resp.ContentLength != m.Size {
		return have, d.mismatch(part, m, fmt.Sprintf("the server offers %d bytes, the manifest says %d", have+resp.ContentLength, m.Size))
	}
	total := m.Size
	if !known && resp.ContentLength >= 0 {
		total = have + resp.ContentLength
	}
	w := &counter{w: f, n: have, total: total, report: progress}
	w.tell()
	var body io.Reader = &lively{r: resp.Body, quiet: quiet, idle: idle}
	if known {
		body = io.LimitReader(body, m.Size-have+1)
	}
	_, err = io.Copy(w, body)
	switch {
	case w.err != nil:
		return w.n, &fileError{w.err}
	case err != nil && errors.Is(context.Cause(ctx), errStalled):
		return w.n, stalled(w.n, total)
	case err != nil:
		return w.n, fmt.Errorf("download %s: connection lost at %d of %d bytes: %w", Shown(m.URL), w.n, total, err)
	}
	if !known {
		if total > 0 && w.n != total {
			return w.n, fmt.Errorf("download %s: connection closed at %d of %d bytes", Shown(m.URL), w.n, total)
		}
		return w.n, syncFile(f)
	}
	if w.n > m.Size {
		return w.n, d.mismatch(part, m, fmt.Sprintf("more than the %d bytes the manifest says", m.Size))
	}
	if w.n < m.Size {
		return w.n, fmt.Errorf("download %s: connection closed at %d of %d bytes", Shown(m.URL), w.n, m.Size)
	}
	return w.n, syncFile(f)
}

func syncFile(f *os.File) error {
	if err := f.Sync(); err != nil {
		return &fileError{err}
	}
	return nil
}

// lively reads a response body, putting off quiet's firing for idle at
// every read that brings bytes.
type lively struct {
	r     io.Reader
	quiet *time.Timer
	idle  time.Duration
}

func (l *lively) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.quiet.Reset(l.idle)
	}
	return n, err
}

func (d *Downloader) mismatch(part string, m Manifest, what string) error {
	os.Remove(part)
	return fmt.Errorf("download %s: %s: %w", Shown(m.URL), what, ErrChecksum)
}

// counter reports download progress at each whole percent, and keeps
// the write error that tells a fault of the file from one of the network.
type counter struct {
	w        io.Writer
	n, total int64
	last     int
	report   func(Progress)
	err      error
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		c.err = err
	}
	if pct := int(c.n * 100 / max(c.total, 1)); pct != c.last {
		c.tell()
	}
	return n, err
}

func (c *counter) tell() {
	c.last = int(c.n * 100 / max(c.total, 1))
	if c.report != nil {
		c.report(Progress{Stage: "download", Percent: c.last, Done: c.n, Total: c.total})
	}
}

const (
	bundlePrefix = "hark-"
	bundleSuffix = ".raucb"
	partSuffix   = ".part"
)

// bundleName is the file a bundle of version v is downloaded to.
func bundleName(v string) string { return bundlePrefix + v + bundleSuffix }

// bundleVersion is the version that name, a whole or partial download,
// is a bundle of; false when name is not one of the Downloader's.
func bundleVersion(name string) (string, bool) {
	v, ok := strings.CutPrefix(strings.TrimSuffix(name, partSuffix), bundlePrefix)
	if !ok {
		return "", false
	}
	v, ok = strings.CutSuffix(v, bundleSuffix)
	return v, ok && v != ""
}

// prune removes the downloaded bundles and partial downloads in Dir of
// every version but keep; keep "" removes them all. Only regular files
// named as the Downloader's are removed.
func (d *Downloader) prune(keep string) error {
	if d.Dir == "" {
		return nil
	}
	entries, err := os.ReadDir(d.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	var errs []error
	for _, e := range entries {
		v, ours := bundleVersion(e.Name())
		if !ours || !e.Type().IsRegular() || (keep != "" && v == keep) {
			continue
		}
		if err := os.Remove(filepath.Join(d.Dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("download: %w", err))
		}
	}
	return errors.Join(errs...)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var h hash.Hash = sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// room refuses a download that would leave less than Floor free: what the
// manifest says is still to come must fit above it.
func (d *Downloader) room(m Manifest, part string) error {
	if d.Floor <= 0 || m.Size <= 0 {
		return nil
	}
	free := d.Free
	if free == nil {
		free = func(dir string) (int64, error) {
			s, err := disk.Usage(dir)
			return s.Free, err
		}
	}
	avail, err := free(d.Dir)
	if err != nil {
		return nil // cannot tell: the download itself will say
	}
	need := m.Size
	if st, err := os.Stat(part); err == nil {
		need -= st.Size()
	}
	if avail-need < d.Floor {
		return fmt.Errorf("%w: it needs %s more, the data partition has %s free and keeps %s in reserve for the box's memory and timers",
			ErrNoRoom, disk.MiB(need), disk.MiB(avail), disk.MiB(d.Floor))
	}
	return nil
}
