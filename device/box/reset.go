package box

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/update"
	"github.com/harkbox/hark/internal/atomicfile"
)

// resetMark, in the data directory, says a factory reset is under way: it
// is written before the directory is emptied and removed once it is, so
// that a reset a power cut stopped halfway is finished at the next start
// (the household asked for everything to be forgotten, perhaps before
// giving the box away).
const resetMark = ".factory-reset"

// factoryReset empties cfg's data directory, keeping the records of the
// box's own slots (update.State.Slots).
func factoryReset(cfg *config.Loaded) error {
	mark := filepath.Join(cfg.DataDir, resetMark)
	if err := atomicfile.Write(mark, nil, 0o600); err != nil {
		return err
	}
	keep := append(update.State{Dir: cfg.Update.Dir}.Slots(), mark)
	if err := wipe(cfg.DataDir, keep...); err != nil {
		return err
	}
	if err := os.Remove(mark); err != nil {
		return err
	}
	return atomicfile.SyncDir(cfg.DataDir)
}

// resetCutShort reports a factory reset that did not finish.
func resetCutShort(cfg *config.Loaded) bool {
	_, err := os.Lstat(filepath.Join(cfg.DataDir, resetMark))
	return err == nil
}

// wipe empties the data directory: the store (dialogue, memory, timers,
// secrets, settings) and the reply files, keeping the directory itself
// and the files named in keep (the records of the box's own slots).
func wipe(dir string, keep ...string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		inside := func(k string) bool { return strings.HasPrefix(k, path+string(filepath.Separator)) }
		switch {
		case slices.Contains(keep, path):
			continue
		case e.IsDir() && slices.ContainsFunc(keep, inside):
			err = wipe(path, keep...)
		default:
			err = os.RemoveAll(path)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
