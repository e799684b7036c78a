package box

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"

	"github.com/harkbox/hark/internal/atomicfile"
)

// probeRecord remembers a speech model whose probe passed and which then
// loaded in the daemon too, so the next start need not probe the same
// model with the same program again: a box that reboots skips a load and
// a transcription in a child (seconds on a Pi, a minute emulated). The
// record is taken back (renamed to path.loading) while the daemon loads
// the model, so a load that kills the process leaves no record and the
// next start probes. A record that cannot be written only means probing
// each time.
type probeRecord struct {
	path    string                                        // the record, in the data directory
	program string                                        // the program that probes and loads
	args    []string                                      // its arguments before the model
	probe   func(ctx context.Context, model string) error // the probe itself
}

// Probe skips the probe when the record vouches for model, and otherwise
// probes it, keeping what passed for Loaded to confirm.
func (r probeRecord) Probe(ctx context.Context, model string) error {
	if r.trusted(model) {
		return nil
	}
	err := r.probe(ctx, model)
	if err == nil {
		if id, ok := r.identity(model); ok {
			// Taken as passed only once the daemon's own load works.
			atomicfile.Write(r.path+".loading", id, 0o644)
		}
	}
	return err
}

// Loaded records that model, probed (or vouched for) by Probe, has now
// loaded in this process too.
func (r probeRecord) Loaded(model string) {
	id, ok := r.identity(model)
	if !ok {
		return
	}
	if got, err := os.ReadFile(r.path + ".loading"); err != nil || !bytes.Equal(got, id) {
		return
	}
	if os.Rename(r.path+".loading", r.path) == nil {
		atomicfile.SyncDir(filepath.Dir(r.path))
	}
}

// trusted reports whether the record vouches for model with this program,
// and if so takes the record back for the load to come.
func (r probeRecord) trusted(model string) bool {
	id, ok := r.identity(model)
	if !ok {
		return false
	}
	got, err := os.ReadFile(r.path)
	if err != nil || !bytes.Equal(got, id) {
		return false
	}
	// Taken back before the load: if the load kills the process, the next
	// start finds no record and probes.
	return os.Rename(r.path, r.path+".loading") == nil && atomicfile.SyncDir(filepath.Dir(r.path)) == nil
}

// identity is what a record holds: the model file and the program that
// loads it, each by path, size, modification time, device and inode, so a
// model or a program replaced (a new download, a rebuild) is probed again,
// and so is the same path on the other slot after an update (another
// device, however alike the two files are).
func (r probeRecord) identity(model string) ([]byte, bool) {
	type file struct {
		Path   string `json:"path"`
		Size   int64  `json:"size"`
		MTime  int64  `json:"mtime_ns"`
		Device uint64 `json:"device"`
		Inode  uint64 `json:"inode"`
	}
	stat := func(path string) (file, bool) {
		fi, err := os.Stat(path)
		if err != nil {
			return file{}, false
		}
		f := file{Path: path, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			f.Device, f.Inode = uint64(st.Dev), st.Ino
		}
		return f, true
	}
	m, ok1 := stat(model)
	prog, ok2 := stat(r.program)
	if !ok1 || !ok2 {
		return nil, false
	}
	b, err := json.Marshal(struct {
		Model   file     `json:"model"`
		Program file     `json:"program"`
		Args    []string `json:"args"`
	}{m, prog, r.args})
	return append(b, '\n'), err == nil
}
