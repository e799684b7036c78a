package box

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/update"
	"github.com/harkbox/hark/internal/atomicfile"
)

// identityFile names the box: made on its first start, kept on the data
// partition (the root filesystem is read-only), gone with a factory reset.
const identityFile = "device-id"

// ensureIdentity returns the box's identity, making it on the first start.
func ensureIdentity(dataDir string) (id string, created bool, err error) {
	if id, err := ReadIdentity(dataDir); err == nil {
		return id, false, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", false, err
	}
	b := make([]byte, 16)
	rand.Read(b)
	id = hex.EncodeToString(b)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", false, fmt.Errorf("box: device identity: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dataDir, identityFile), []byte(id+"\n"), 0o644); err != nil {
		return "", false, fmt.Errorf("box: device identity: %w", err)
	}
	return id, true, nil
}

// ReadIdentity reads the box's identity, made on its first start.
func ReadIdentity(dataDir string) (string, error) {
	path := filepath.Join(dataDir, identityFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if _, err := hex.DecodeString(id); err != nil || len(id) != 32 {
		return "", fmt.Errorf("box: device identity %s: %q is not 32 hex digits", path, id)
	}
	return id, nil
}

// UpdateService is the update service of the box cfg describes, over RAUC
// on its bus: what `hark update` runs (the daemon's API runs the same).
// idle waits for the speaker to be idle before a reboot; reboot is nil for
// systemctl reboot. Close the RAUC connection when done.
func UpdateService(ctx context.Context, cfg *config.Loaded, version string, idle, reboot func(context.Context) error, log *slog.Logger) (*update.Service, *update.RAUC, error) {
	r, err := update.DialRAUC(ctx, cfg.Update.RAUCBus)
	if err != nil {
		return nil, nil, err
	}
	if reboot == nil {
		reboot = update.SystemReboot
	}
	id, _ := ReadIdentity(cfg.DataDir) // the update server may log which box asked
	agent := update.NewAgent(update.AgentOptions{Manifest: cfg.Update.Manifest, Dir: cfg.Update.Dir, Floor: int64(cfg.Storage.ReserveMiB) << 20,
		RAUC: r, Running: version, Device: id, Idle: idle, Reboot: reboot, Log: log})
	return update.NewService(agent), r, nil
}
