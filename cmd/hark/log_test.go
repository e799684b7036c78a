package main

import (
	"log/slog"
	"strings"
	"testing"
)

// The one-shot commands' log (hark update, hark center serve, the box a
// command opens) keeps no password of an address, as the daemon's keeps
// none.
func TestLogHidesAddressPasswords(t *testing.T) {
	var out strings.Builder
	log := newLogger(&out, "info", slog.LevelInfo)
	log.Warn("update check failed", "manifest", "https://hark:pw-of-the-updates@updates.lan/manifest.json")
	if got := out.String(); strings.Contains(got, "pw-of-the-updates") || !strings.Contains(got, "hark:[SECRET_1]@updates.lan") {
		t.Errorf("logged %q, want the address without its password", got)
	}
}
