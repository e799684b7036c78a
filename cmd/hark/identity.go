package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/harkbox/hark/internal/atomicfile"
)

// identityFile names the box: made on its first start, kept on the data
// partition (the root filesystem is read-only), gone with a factory reset.
const identityFile = "device-id"

// ensureIdentity returns the box's identity, making it on the first start.
func ensureIdentity(dataDir string) (id string, created bool, err error) {
	if id, err := readIdentity(dataDir); err == nil {
		return id, false, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", false, err
	}
	b := make([]byte, 16)
	rand.Read(b)
	id = hex.EncodeToString(b)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", false, fmt.Errorf("device identity: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dataDir, identityFile), []byte(id+"\n"), 0o644); err != nil {
		return "", false, fmt.Errorf("device identity: %w", err)
	}
	return id, true, nil
}

// readIdentity reads the identity made by ensureIdentity.
func readIdentity(dataDir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, identityFile))
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if len(id) != 32 {
		return "", fmt.Errorf("device identity %s: %q is not 32 hex digits", filepath.Join(dataDir, identityFile), id)
	}
	if _, err := hex.DecodeString(id); err != nil {
		return "", fmt.Errorf("device identity %s: %q is not 32 hex digits", filepath.Join(dataDir, identityFile), id)
	}
	return id, nil
}
