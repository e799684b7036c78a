package selfsigned

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestWiden: a certificate is issued again for a name it does not cover
// only when the spec widens it (a pinned one stays as it is), with the
// same key, covering its old names too.
func TestWiden(t *testing.T) {
	dir := t.TempDir()
	s := Spec{Dir: dir, Name: "web", Subject: "hark box", Hosts: []string{"box", "box.local"}}
	first, fp, err := Load(s)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := os.ReadFile(filepath.Join(dir, "web.key"))
	s.Hosts = []string{"box-2.local"}
	if _, got, err := Load(s); err != nil || got != fp {
		t.Errorf("not widened: fingerprint %s (%v), want the same %s", got, err, fp)
	}
	s.Widen = true
	c, got, err := Load(s)
	if err != nil {
		t.Fatal(err)
	}
	if got == fp {
		t.Fatal("widened: the same certificate")
	}
	for _, h := range []string{"box", "box.local", "box-2.local", "localhost", "127.0.0.1"} {
		if err := c.Leaf.VerifyHostname(h); err != nil {
			t.Errorf("widened: %v", err)
		}
	}
	if !bytes.Equal(c.Leaf.RawSubjectPublicKeyInfo, first.Leaf.RawSubjectPublicKeyInfo) {
		t.Error("widened: another key")
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "web.key")); !bytes.Equal(after, key) {
		t.Error("widened: the key file was written again")
	}
	if _, again, _ := Load(s); again != got {
		t.Errorf("a covered name issued another certificate: %s, want %s", again, got)
	}
}
